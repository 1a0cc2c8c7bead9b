/**
 * The library server's current generation loaded as an index (issue 37): the same LibraryIndex,
 * ranking and cards as on the publisher's machine, made from the server's rows (read.ts), or from
 * this machine's copy of that generation when it has one (memberCopy.ts); a new generation takes
 * from the copy of an earlier one what it shares with it, and reads the rest from the server.
 */
import type { EmbeddingProvider } from '../../embedding/provider';
import { LibraryIndex } from '../search/libraryIndex';
import { serverName, serverRefused, type LibraryServer } from './connection';
import { errorCode } from '../../../shared/errors';
import { copiedGenerations, earlierCopy, openLatestCopy, openMemberCopy, writeMemberCopy, type CopyRecord, type EarlierCopy } from './memberCopy';
import { writeNextCopy, type NextCopy } from './nextCopy';
import { currentGeneration, generationHealth, generationManifest, readGenerationRows, type ReusedContents, type ServerGeneration } from './read';

export interface ServerLibrary {
  index: LibraryIndex;
  /** Read from the server's rows, or from this machine's copy of the same generation. */
  from: 'server' | 'copy';
  /** The server out of reach: the copy read is of this generation, which the server may no longer serve. */
  offline?: CopyRecord;
  /** Writes this machine's copy of what was read from the server (absent when read from the copy); says where. */
  keepCopy?: () => Promise<string>;
  /** Read from the server, but for the contents this machine's copy of an earlier generation held. */
  reused?: ReusedContents;
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
  let earlier: EarlierCopy | undefined;
  let known: ServerGeneration | undefined;
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
    known = g;
    if (g && generationHealth(server, g, provider.key).state === 'ready') {
      const index = await openMemberCopy(workspace, server, g, provider);
      if (index) return { index: stamped(index, g.id, server), from: 'copy' };
      // A new generation: what it shares with the copy of an earlier one is not read from the server again.
      earlier = await earlierCopy(workspace, server, provider.key, await provider.dimension(), g.library, g.id);
      const next = earlier && (await nextCopy(workspace, server, g, provider, earlier));
      if (next) return next;
    }
  }
  const dim = await provider.dimension();
  const { g, rows, reused } = await readGenerationRows(server, provider.key, dim, { ...(earlier ? { copied: earlier } : {}), ...(known ? { known } : {}) });
  const lib = g.library;
  const m = generationManifest(lib, {
    ...(lib.activeModel ? { activeModel: lib.activeModel } : {}),
    nextGen: 0,
    sources: Object.fromEntries(lib.sources.map((r) => [r.id, r])),
    shards: {},
    vectors: Object.fromEntries(Object.entries(lib.vectors).map(([k, x]) => [k, { ...x, shards: {} }])),
  });
  const index = stamped(await LibraryIndex.fromRows(workspace, m, provider, rows, dim, undefined, g.highlights ?? ''), g.id, server);
  return {
    index,
    from: 'server',
    ...(reused ? { reused } : {}),
    ...(copy ? { keepCopy: () => writeMemberCopy(workspace, server, g, provider, rows, dim, { ...(earlier ? { pagesFrom: earlier.dir } : {}) }) } : {}),
  };
}

/**
 * Generation `g` loaded from its copy made from this machine's copy of an earlier generation and
 * the server's rows of what changed (nextCopy.ts); undefined when making it is not worth it. A
 * server out of reach meanwhile is said; any other failure leaves the read to the server.
 */
async function nextCopy(
  workspace: string,
  server: LibraryServer,
  g: ServerGeneration,
  provider: EmbeddingProvider,
  earlier: EarlierCopy,
): Promise<ServerLibrary | undefined> {
  let next: NextCopy | undefined;
  try {
    next = await writeNextCopy(workspace, server, g, provider, await provider.dimension(), earlier);
  } catch (err) {
    if (errorCode(err) === 'server-unreachable') throw err;
    return undefined;
  }
  const index = next && (await openMemberCopy(workspace, server, g, provider));
  return index && { index: stamped(index, g.id, server), from: 'server', reused: next!.reused };
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
