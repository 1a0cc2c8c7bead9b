/**
 * Whether the index can serve a provider before something is scored on it, made so where the
 * caller asks (the engine instance's `ready`, instance.ts): the extension's Find Similar Sources
 * and the CLI's analyze and search decide it here, not each on its own. In order: this engine's
 * indexing run under way is waited for (until its library is committed: an OCR pass does not hold
 * an analysis back); the library is indexed when asked ('always') or when the index cannot serve
 * ('if-needed', after the host's confirmation; a damaged index is rebuilt); then the vectors a
 * neural model still lacks are computed, started in the background, or left, as asked.
 */
import { needsIndexing, type IndexHealth } from '../shared/health';
import type { IndexRunOptions, IndexRunReport, Readiness, ReadyOptions, VectorsReport } from './engineTypes';
import { embedsInBackground, type EmbeddingProvider } from './provider';

/** What readiness needs of its engine instance. */
export interface ReadinessOwner {
  provider(): Promise<EmbeddingProvider>;
  whenIndexed(): Promise<IndexRunReport> | undefined;
  index(opts: IndexRunOptions): Promise<IndexRunReport>;
  health(provider: EmbeddingProvider): Promise<IndexHealth>;
  embedInBackground(provider: EmbeddingProvider): void;
  completeVectors(provider: EmbeddingProvider, signal?: AbortSignal): Promise<VectorsReport>;
}

export async function ensureReady(engine: ReadinessOwner, o: ReadyOptions): Promise<Readiness> {
  const provider = o.provider ?? (await engine.provider());
  const vectors = o.vectors ?? 'partial';
  const running = engine.whenIndexed();
  if (running) {
    o.onWaitForRun?.();
    // A run that failed said so to whoever started it; the index is judged as it stands.
    await running.catch(() => undefined);
  }
  // An indexing run made here ends as the vectors are asked to: computed within it, started after it, or left.
  const run = async (rebuild: boolean): Promise<IndexRunReport | undefined> => {
    const opts: IndexRunOptions = { rebuild, jobs: o.jobs, signal: o.signal, vectors: vectors === 'partial' ? 'later' : vectors };
    return o.runIndex ? o.runIndex(opts) : engine.index(opts);
  };
  let indexed: IndexRunReport | undefined;
  if (o.index === 'always') {
    indexed = await run(false);
    if (!indexed || indexed.cancelled) return { ready: false, why: 'cancelled', provider, indexed };
    if (indexed.sources === 0) return { ready: false, why: 'empty', provider, indexed };
  }
  let health = await engine.health(provider);
  if (health.state !== 'ready' && o.index === 'if-needed' && needsIndexing(health)) {
    if (o.confirmIndex && !(await o.confirmIndex(health))) return { ready: false, why: 'declined', provider, health };
    indexed = await run(health.state === 'corrupt');
    if (!indexed || indexed.cancelled) return { ready: false, why: 'cancelled', provider, indexed };
    if (indexed.sources === 0) return { ready: false, why: 'empty', provider, indexed };
    health = await engine.health(provider);
  }
  // Another process indexing, no workspace, an index not asked to be made: an open would say why.
  if (health.state !== 'ready') return { ready: false, why: 'not-ready', provider, health, indexed };
  const missing = embedsInBackground(provider) ? health.semantic : undefined;
  if (!missing) return { ready: true, provider, health, indexed };
  if (vectors === 'background') {
    // Vectors still missing (an index left partial, a model just installed): computed in the
    // background while what is asked runs on what there is, and says so.
    engine.embedInBackground(provider);
    return { ready: true, provider, health, indexed };
  }
  if (vectors === 'partial') return { ready: true, provider, health, indexed };
  const v = o.completeVectors ? await o.completeVectors(provider, missing) : await engine.completeVectors(provider, o.signal);
  if (v.cancelled) return { ready: false, why: 'cancelled', provider, health, indexed, vectors: v };
  return { ready: true, provider, health: await engine.health(provider), indexed, vectors: v };
}
