/**
 * The library server's current generation loaded as an index (issue 37): the same LibraryIndex,
 * ranking and cards as on the publisher's machine, made from the server's rows (read.ts), or from
 * this machine's copy of that generation when it has one (memberCopy.ts).
 */
import type { EmbeddingProvider } from '../../embedding/provider';
import { LibraryIndex } from '../search/libraryIndex';
import { serverName, serverRefused, type LibraryServer } from './connection';
import { errorCode } from '../../../shared/errors';
import { copiedGenerations, openLatestCopy, openMemberCopy, writeMemberCopy, type CopyRecord } from './memberCopy';
import { currentGeneration, generationHealth, generationManifest, readGenerationRows, type ServerGeneration } from './read';

export interface ServerLibrary {
  index: LibraryIndex;
  /** Read from the server's rows, or from this machine's copy of the same generation. */
  from: 'server' | 'copy';
  /** The server out of reach: the copy read is of this generation, which the server may no longer serve. */
  offline?: CopyRecord;
  /** Writes this machine's copy of what was read from the server (absent when read from the copy); says where. */
  keepCopy?: () => Promise<string>;
}

/**
 * Loads the server's library for `provider`; `index-not-ready` with the server's health when it
 * cannot serve that model. `copy: false`: the server's rows only, none from or for a copy.
 */
export async function loadServerLibrary(
  workspace: string,
  server: LibraryServer,
  provider: EmbeddingProvider,
  opts: { copy?: boolean } = {},
): Promise<ServerLibrary> {
  const copy = opts.copy !== false;
  // The generation is asked first only where a copy of this library lies (its sources' records: one row).
  if (copy && (await copiedGenerations(workspace, server, provider.key)).length) {
    let g: ServerGeneration | undefined;
    try {
      g = await currentGeneration(server);
    } catch (err) {
      // Out of reach (offline, VPN down): the newest generation copied here serves meanwhile.
      if (errorCode(err) !== 'server-unreachable' || serverRefused(err)) throw err;
      const latest = await openLatestCopy(workspace, server, provider);
      if (!latest) throw err;
      return { index: stamped(latest.index, latest.record.generation, server), from: 'copy', offline: latest.record };
    }
    if (g && generationHealth(server, g, provider.key).state === 'ready') {
      const index = await openMemberCopy(workspace, server, g, provider);
      if (index) return { index: stamped(index, g.id, server), from: 'copy' };
    }
  }
  const dim = await provider.dimension();
  const { g, rows } = await readGenerationRows(server, provider.key, dim);
  const lib = g.library;
  const m = generationManifest(lib, {
    ...(lib.activeModel ? { activeModel: lib.activeModel } : {}),
    nextGen: 0,
    sources: Object.fromEntries(lib.sources.map((r) => [r.id, r])),
    shards: {},
    vectors: Object.fromEntries(Object.entries(lib.vectors).map(([k, x]) => [k, { ...x, shards: {} }])),
  });
  const index = stamped(await LibraryIndex.fromRows(workspace, m, provider, rows, dim, undefined, g.highlights ?? ''), g.id, server);
  return { index, from: 'server', ...(copy ? { keepCopy: () => writeMemberCopy(workspace, server, g, provider, rows, dim) } : {}) };
}

/** The server's library as loadServerLibrary loads it, without writing a copy. */
export async function openServerLibrary(
  workspace: string,
  server: LibraryServer,
  provider: EmbeddingProvider,
  opts: { copy?: boolean } = {},
): Promise<LibraryIndex> {
  return (await loadServerLibrary(workspace, server, provider, opts)).index;
}

function stamped(index: LibraryIndex, generation: number, server: LibraryServer): LibraryIndex {
  index.generation = generation;
  index.serverName = serverName(server);
  return index;
}
