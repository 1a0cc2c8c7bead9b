/**
 * Reranking a segment's top candidates: the interface, and the LLM one (Ollama `generate`); the
 * local cross-encoder is core/rerank/crossEncoder.ts. Reranking only reorders: the similarity
 * shown stays the retrieval similarity. Any failure leaves the retrieval order and says why.
 */
import { SETTINGS } from '../../shared/settings';
import { ollamaGenerate } from '../embedding/ollamaGenerate';
import { DEFAULT_OLLAMA_HOST, mapOllamaError, ollamaClientFor } from '../embedding/ollamaProvider';

export interface RerankCandidate {
  id: string;
  text: string;
}

export interface Reranker {
  readonly description: string;
  /** A local cross-encoder, or (unset) an LLM asked for an order. */
  readonly kind?: 'cross-encoder' | 'llm';
  /** Undefined when usable, else why not (checked once, then remembered). */
  unavailable(signal?: AbortSignal): Promise<string | undefined>;
  /**
   * The same, judged from what is known without loading a model (its files there): what keys a
   * cached result when only the cache is read (a reopened draft), which must not wait for a load.
   */
  unavailableBeforeLoading?(): string | undefined;
  /** Candidate ids, best first. */
  rerank(query: string, candidates: RerankCandidate[], signal?: AbortSignal): Promise<string[]>;
}

export const DEFAULT_RERANK_MODEL: string = SETTINGS.rerankModel.default;

export class OllamaReranker implements Reranker {
  readonly description: string;
  private checked?: Promise<string | undefined>;

  constructor(private readonly opts: { host?: string; model?: string; timeoutMs?: number; checkTimeoutMs?: number } = {}) {
    this.description = `Ollama ${this.model} at ${this.host}`;
  }

  private get host() {
    return (this.opts.host ?? DEFAULT_OLLAMA_HOST).replace(/\/+$/, '');
  }
  private get model() {
    return this.opts.model ?? DEFAULT_RERANK_MODEL;
  }

  unavailable(signal?: AbortSignal): Promise<string | undefined> {
    this.checked ??= (async () => {
      const ctx = { host: this.host, model: this.model, timeoutMs: this.opts.checkTimeoutMs ?? 1500, signal, purpose: 'generate' as const };
      try {
        const { client } = ollamaClientFor(ctx);
        const { models } = await client.list();
        const names = new Set(models.flatMap((m) => [m.name, m.model, m.name.replace(/:latest$/, '')]));
        if (!names.has(this.model) && !names.has(`${this.model}:latest`)) {
          return `Ollama at ${this.host} has no model "${this.model}" for reranking (pull it with "ollama pull ${this.model}")`;
        }
        return undefined;
      } catch (err) {
        return mapOllamaError(err, ctx).message;
      }
    })();
    return this.checked;
  }

  async rerank(query: string, candidates: RerankCandidate[], signal?: AbortSignal): Promise<string[]> {
    const list = candidates.map((c, i) => `[${i + 1}] ${c.text.replace(/\s+/g, ' ').slice(0, 700)}`).join('\n\n');
    const prompt =
      `A scholar is writing this paragraph:\n"""${query}"""\n\n` +
      `Which of these passages from their library are most worth reading or citing for it?\n\n${list}\n\n` +
      `Answer with the passage numbers only, most useful first, separated by commas.`;
    const answer = await ollamaGenerate({
      host: this.host,
      model: this.model,
      prompt,
      timeoutMs: this.opts.timeoutMs ?? 60_000,
      signal,
      options: { temperature: 0 },
    });
    return parseOrder(
      answer,
      candidates.map((c) => c.id),
    );
  }
}

/** "3, 1, 2" → ids in that order; unknown or repeated numbers ignored, missing ones appended. */
export function parseOrder(answer: string, ids: string[]): string[] {
  const order: string[] = [];
  for (const m of answer.matchAll(/\d+/g)) {
    const i = Number(m[0]) - 1;
    if (i >= 0 && i < ids.length && !order.includes(ids[i])) order.push(ids[i]);
  }
  if (order.length === 0) throw new Error(`the reranker's answer names no passage: "${answer.slice(0, 80)}"`);
  for (const id of ids) if (!order.includes(id)) order.push(id);
  return order;
}
