/**
 * What a member's machine last read from the library server (issue 37: offline): which
 * generation, for which model, and the loaded index's fingerprint, which keys the analyses
 * cached here. With it, a draft reopened while the server is down still gets the results found
 * from that generation; when the server answers with another generation, they are not served.
 * Kept beside the analysis cache in the workspace's index folder; never the password.
 */
import * as path from 'node:path';
import { indexDir } from '../store/manifest';
import { writeFileAtomic } from '../../util/atomicWrite';
import { isMissing, readConfinedText } from '../../util/confinedFiles';
import { serverName, type LibraryServer } from './connection';

export interface ServerRead {
  /** serverName: host, port, database and schema. */
  server: string;
  model: string;
  generation: number;
  fingerprint: string;
}

const FILE = 'server-read.json';

/** Records the generation an analysis cached here was made from (rebuildable: written without fsync). */
export async function recordServerRead(workspace: string, r: ServerRead): Promise<void> {
  const file = path.join(indexDir(workspace), FILE);
  const read: ServerRead = { server: r.server, model: r.model, generation: r.generation, fingerprint: r.fingerprint };
  await writeFileAtomic(file, JSON.stringify(read), { durable: false });
}

/** The last generation read here from `server` for `model`; undefined when none (or the record is damaged: it is written again at the next load). */
export async function lastServerRead(workspace: string, server: LibraryServer, model: string): Promise<ServerRead | undefined> {
  const dir = indexDir(workspace);
  let text: string;
  try {
    text = (await readConfinedText(path.join(dir, FILE), { kind: 'index', within: [dir], maxBytes: 64 * 1024 })).text;
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
  let r: Partial<ServerRead>;
  try {
    r = JSON.parse(text) as Partial<ServerRead>;
  } catch {
    return undefined;
  }
  const valid =
    typeof r.server === 'string' &&
    typeof r.model === 'string' &&
    Number.isInteger(r.generation) &&
    typeof r.fingerprint === 'string' &&
    r.fingerprint.length > 0;
  return valid && r.server === serverName(server) && r.model === model ? (r as ServerRead) : undefined;
}
