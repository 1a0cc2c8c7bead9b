/**
 * The library server's current generation loaded as an index (issue 37): the same LibraryIndex,
 * ranking and cards as on the publisher's machine, made from the server's rows (read.ts).
 */
import type { EmbeddingProvider } from '../../embedding/provider';
import { LibraryIndex } from '../search/libraryIndex';
import { MANIFEST_FORMAT, type Manifest } from '../store/manifest';
import { serverName, type LibraryServer } from './connection';
import { readGenerationRows } from './read';

/** Loads the server's library for `provider`; `index-not-ready` with the server's health when it cannot serve that model. */
export async function openServerLibrary(workspace: string, server: LibraryServer, provider: EmbeddingProvider): Promise<LibraryIndex> {
  const dim = await provider.dimension();
  const { g, rows } = await readGenerationRows(server, provider.key, dim);
  const lib = g.library;
  const m: Manifest = {
    format: MANIFEST_FORMAT,
    chunker: lib.chunker,
    lexical: lib.lexical,
    fingerprint: lib.fingerprint,
    updatedAt: lib.updatedAt,
    ...(lib.activeModel ? { activeModel: lib.activeModel } : {}),
    nextGen: 0,
    sources: Object.fromEntries(lib.sources.map((r) => [r.id, r])),
    skipped: {},
    shards: {},
    vectors: Object.fromEntries(Object.entries(lib.vectors).map(([k, x]) => [k, { ...x, shards: {} }])),
  };
  const index = await LibraryIndex.fromRows(workspace, m, provider, rows, dim, undefined, g.highlights ?? '');
  index.generation = g.id;
  index.serverName = serverName(server);
  return index;
}
