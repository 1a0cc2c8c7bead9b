/**
 * util/tempFolders.ts in a process of its own: makes a temporary folder under TMPDIR, prints
 * "made <dir>", then ends as argv[2] says:
 * - "exit": process.exit(3) at once;
 * - "wait": waits (to be killed by a signal nothing else listens to);
 * - "host": listens to SIGINT once as a host does (the CLI's Ctrl-C), prints "host" when it comes,
 *   then "still <dir exists?>" and removes the folder itself before ending normally.
 */
import { existsSync } from 'node:fs';
import { makeTempFolder, removeTempFolder } from '../../src/core/util/tempFolders';

void (async () => {
  const dir = await makeTempFolder('similar-sources-zotero-');
  const how = process.argv[2];
  if (how === 'host') {
    // A signal listener does not keep a process alive: without this timer the child could end on
    // its own before the test's SIGINT reaches it (seen under CI's load: "made" and nothing else).
    const alive = setInterval(() => undefined, 1000);
    process.once('SIGINT', () => {
      clearInterval(alive);
      console.log('host');
      setTimeout(async () => {
        console.log(`still ${existsSync(dir)}`);
        await removeTempFolder(dir);
      }, 200);
    });
  }
  console.log(`made ${dir}`);
  if (how === 'exit') process.exit(3);
  if (how !== 'host') setInterval(() => undefined, 1000);
})();
