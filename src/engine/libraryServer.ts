/**
 * The engine's side of a lab's library server (issue 37): which server the settings name, its
 * health for a model, the index read from it, and publishing the workspace's index to it. The
 * instance (instance.ts) asks these where it would ask the workspace's index: with
 * `similarSources.libraryServer` set, the library is read from the server and never indexed here.
 */
import { loadServerLibrary, type ServerLibrary } from '../core/index/server/open';
import { latestCopy } from '../core/index/server/memberCopy';
import { serverName, serverRefused, type LibraryServer } from '../core/index/server/connection';
import { publishIndex, type PublishOptions, type PublishReport } from '../core/index/server/publish';
import { lastServerRead } from '../core/index/server/lastRead';
import { currentGeneration, currentGenerationHead, currentGenerationId, generationHealth, keptPerGeneration } from '../core/index/server/read';
import type { IndexHealth } from '../shared/health';
import type { Settings } from '../shared/settings';
import { EngineError, errorCode } from '../shared/errors';
import type { Readiness, VectorsReport } from './engineTypes';
import { embedsInBackground, type EmbeddingProvider } from './provider';
import { coreIndex, servedIndex, type SearchIndex } from './search';
import { findLocalCopy } from '../core/library/localCopy';
import { locateZotero } from '../core/zotero/dataDir';
import type { LibrarySpec } from './library';

export type { LibraryServer, PublishReport };

/** The server the settings name (a URL without its password: PGPASSWORD or ~/.pgpass give it), or undefined. */
export function serverOf(s: Pick<Settings, 'libraryServer' | 'libraryServerSchema'>): LibraryServer | undefined {
  return s.libraryServer ? { url: s.libraryServer, ...(s.libraryServerSchema ? { schema: s.libraryServerSchema } : {}) } : undefined;
}

/** The current generation's head, fetched once per generation (then only its id is asked). */
const keptHead = keptPerGeneration(currentGenerationHead);

/**
 * The server's library as the health of an index for `provider`, and the generation it would be
 * read from; `unreachable` when the server cannot be reached.
 */
export async function serverState(
  server: LibraryServer,
  provider: Pick<EmbeddingProvider, 'key'>,
  workspace?: string,
): Promise<{ health: IndexHealth; generation?: number }> {
  let g;
  try {
    g = await keptHead(server);
  } catch (err) {
    if (errorCode(err) !== 'server-unreachable') throw err;
    // This machine's copy of a generation serves while the server is out of reach (memberCopy.ts).
    const copy = workspace && !serverRefused(err) ? (await latestCopy(workspace, server, provider.key))?.record : undefined;
    return {
      health: {
        state: 'unreachable',
        dir: serverName(server),
        detail: (err as Error).message,
        server: true,
        ...(copy ? { copy: { generation: copy.generation, publishedAt: copy.publishedAt } } : {}),
      },
    };
  }
  return { health: generationHealth(server, g, provider.key), ...(g ? { generation: g.id } : {}) };
}

/**
 * What keys the analyses cached here for the server's library: the last generation this machine
 * read for `model`, while the server still serves it — or while it cannot be reached (the results
 * found before are shown offline, and the health says the server is unreachable).
 */
export async function serverCacheState(
  workspace: string,
  server: LibraryServer,
  model: string,
): Promise<{ fingerprint: string; semantic?: undefined } | undefined> {
  const last = await lastServerRead(workspace, server, model);
  if (!last) return undefined;
  let generation;
  try {
    generation = await currentGenerationId(server);
  } catch (err) {
    if (errorCode(err) === 'server-unreachable') return { fingerprint: last.fingerprint };
    throw err;
  }
  return generation === last.generation ? { fingerprint: last.fingerprint } : undefined;
}

/**
 * What names the server's library as a loaded index is kept for: the server and its current
 * generation (asked at each search and analysis: its id only).
 */
export async function serverStamp(server: LibraryServer): Promise<{ fingerprint: string; updatedAt: string }> {
  let generation: number | undefined;
  try {
    generation = await currentGenerationId(server);
  } catch (err) {
    if (errorCode(err) !== 'server-unreachable') throw err;
  }
  return { fingerprint: `${server.url} ${server.schema ?? ''}`, updatedAt: String(generation) };
}

/**
 * The library read from the server for `provider` (index-not-ready with the server's health when it
 * cannot serve it), or from this machine's copy of the same generation; `keepCopy` writes that copy
 * after a read from the server, for the next start.
 */
export async function openServerIndex(workspace: string, server: LibraryServer, provider: EmbeddingProvider): Promise<ServedLibrary> {
  const read = await loadServerLibrary(workspace, server, provider);
  return { ...read, index: servedIndex(read.index) };
}

export type ServedLibrary = Omit<ServerLibrary, 'index'> & { index: SearchIndex };

/** Where a load found the server's generation, for the log. */
export function whereRead(read: Pick<ServerLibrary, 'from' | 'offline' | 'reused'>): string {
  if (read.offline) return `out of reach; generation ${read.offline.generation} read from this machine's copy`;
  if (read.from === 'copy') return "generation read from this machine's copy";
  const r = read.reused;
  if (!r) return 'generation read from the server';
  return `generation read from the server, but for the passages and vectors of ${r.contents} of its ${r.of} PDFs, taken from this machine's copy of generation ${r.generation}`;
}

/** What publishing needs of the engine instance. */
export interface PublishOwner {
  readonly indexDir: string;
  libraryServer(): Promise<LibraryServer | undefined>;
  provider(): Promise<EmbeddingProvider>;
  health(provider: EmbeddingProvider): Promise<IndexHealth>;
  completeVectors(provider: EmbeddingProvider, signal?: AbortSignal): Promise<VectorsReport>;
  stopEmbedding(): Promise<void>;
}

export type PublishRequest = Omit<PublishOptions, 'onProgress'> & { onProgress?: (shardsDone: number, shards: number) => void };

/**
 * Publishes the workspace's index to the server the settings name, as its next generation: the
 * configured model's vectors are computed first (every member's query is embedded by that model),
 * and the background embedding, which writes the index, waits meanwhile.
 */
export async function publishWorkspace(engine: PublishOwner, o: PublishRequest): Promise<PublishReport> {
  const server = await engine.libraryServer();
  if (!server) throw new EngineError('invalid-options', 'no library server to publish to: set similarSources.libraryServer (the CLI: --server <postgres-url>)');
  const provider = await engine.provider();
  if (embedsInBackground(provider)) {
    const v = await engine.completeVectors(provider, o.signal);
    if (v.cancelled) throw new EngineError('cancelled', 'publication cancelled while the vectors were computed');
  }
  await engine.stopEmbedding();
  return publishIndex(engine.indexDir, server, o);
}

/** Whether the server's library can serve `provider` (a reader never indexes: the publisher does). */
export async function serverReadiness(engine: Pick<PublishOwner, 'provider' | 'health'>, p?: EmbeddingProvider): Promise<Readiness> {
  const provider = p ?? (await engine.provider());
  const health = await engine.health(provider);
  // Out of reach, a copy of a generation made on this machine serves (the health says which).
  const serves = health.state === 'ready' || (health.state === 'unreachable' && !!health.copy);
  return serves ? { ready: true, provider, health } : { ready: false, why: 'not-ready', provider, health };
}

/** Where "Open PDF" finds a source on this machine: `path` to open, or `problem` in words to show. */
export type PdfHere = { path: string; copy?: boolean } | { problem: string };

/**
 * Where a member's machine has a published source's PDF. The server gives the path the publisher
 * indexed it from; the member's copy is looked for in their Zotero storage (same attachment key:
 * group sync) and library folders (same last folders: a shared drive), with the same size
 * (core/library/localCopy.ts). The sizes are the loaded index's, else the current generation's list
 * of sources (as the citation check reads it: one row, not the library's passages); with the server
 * out of reach they are unknown and a copy is taken by its place and name. Undefined when `file` is
 * no source of the library.
 */
export async function pdfOnMemberMachine(index: SearchIndex | undefined, at: LibraryServer, file: string, lib: LibrarySpec): Promise<PdfHere | undefined> {
  // `size` unknown: the server is out of reach.
  let sources: ReadonlyArray<{ path: string; size?: number; title?: string }>;
  try {
    sources = index ? coreIndex(index).sources : ((await currentGeneration(at))?.library.sources ?? []);
  } catch {
    sources = [{ path: file }];
  }
  const source = sources.find((s) => s.path === file);
  if (!source) return undefined;
  const zotero = lib.zotero ? await locateZotero({ setting: lib.zotero.dataDir, home: lib.zotero.home }).catch(() => undefined) : undefined;
  const copy = await findLocalCopy({ path: source.path, size: source.size }, { zoteroDataDir: zotero?.dataDir, folders: lib.folders });
  if (copy) return { path: copy, copy: true };
  const title = source.title ? `"${source.title}"` : 'This PDF';
  const how = 'Sync the group library in Zotero, or add the folder that holds it to similarSources.libraryFolders.';
  if (source.size === undefined)
    return {
      problem: `${title} is in the lab's library, which is out of reach: it was published from ${file}, and no file of that name is in Zotero's storage or the library folders here. ${how}`,
    };
  return {
    problem:
      `${title} is in the lab's library, but not on this machine: it was published from ${file}, and no copy of it ` +
      `(${source.size.toLocaleString('en-US')} bytes) is in Zotero's storage or the library folders here. ${how}`,
  };
}
