/**
 * Temporary folders that never outlive the process (issue 35): the Zotero reader copies a
 * library's database (hundreds of MB, the user's data) into one, and a folder left behind by a
 * process stopped mid-copy stays in the temporary folder for good.
 *
 * The caller removes its folder on every path of its own (`finally`). What it cannot see is the
 * process ending under it; that is covered here, for every host at once (CLI, extension host,
 * scripts), without wiring in any of them and without changing how the process ends:
 *
 * - `process.exit()` (a second Ctrl-C in the CLI): an 'exit' hook removes the live folders,
 *   synchronously (nothing asynchronous runs after 'exit');
 * - SIGINT, SIGTERM, SIGHUP that nothing else listens to, which would end the process at once: the
 *   folders are removed, the listener steps aside and the signal is raised again, so the process
 *   ends as it would have (killed by that signal). Where a host listens (the CLI's Ctrl-C cancels
 *   the run), the host decides: the read is cancelled and its own `finally` removes the folder;
 *   nothing is removed here under a copy still being written.
 *
 * The listeners exist only while a folder does, and are put first, so that at the signal they see
 * the host's listeners before a `once` one has removed itself.
 */
import { promises as fs, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const live = new Set<string>();
const SIGNALS: NodeJS.Signals[] = process.platform === 'win32' ? ['SIGINT', 'SIGTERM'] : ['SIGINT', 'SIGTERM', 'SIGHUP'];
let hooked = false;

function removeAllSync(): void {
  for (const dir of live) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Nothing more can be done while the process ends.
    }
  }
  live.clear();
}

function onSignal(sig: NodeJS.Signals): void {
  if (process.listenerCount(sig) > 1) return;
  removeAllSync();
  unhook();
  process.kill(process.pid, sig);
}

function hook(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', removeAllSync);
  for (const s of SIGNALS) process.prependListener(s, onSignal);
}

function unhook(): void {
  if (!hooked) return;
  hooked = false;
  process.off('exit', removeAllSync);
  for (const s of SIGNALS) process.off(s, onSignal);
}

/** A new folder `<parent>/<prefix>XXXXXX`, removed at the latest when the process ends. */
export async function makeTempFolder(prefix: string, parent = os.tmpdir()): Promise<string> {
  const dir = await fs.mkdtemp(path.join(parent, prefix));
  live.add(dir);
  hook();
  return dir;
}

/** Removes a folder made by makeTempFolder (and forgets it). */
export async function removeTempFolder(dir: string): Promise<void> {
  try {
    await fs.rm(dir, { recursive: true, force: true });
  } finally {
    live.delete(dir);
    if (!live.size) unhook();
  }
}

/** The folders made and not yet removed (for tests). */
export function liveTempFolders(): string[] {
  return [...live];
}
