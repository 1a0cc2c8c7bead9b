// The main job on the bundled example, with the embedded (offline) provider:
// build, index examples/library into examples/.similar-sources, then search it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

run(process.execPath, ['scripts/build.mjs']);
if (!existsSync('examples/library')) {
  console.error('examples/library is missing: the bundled example was not checked out');
  process.exit(1);
}
const cli = ['dist/cli.js'];
const bib = existsSync('examples/library/library.bib') ? ['--bib', 'examples/library/library.bib'] : [];
run(process.execPath, [...cli, 'index', '--library', 'examples/library', '--workspace', 'examples', '--primary', 'library/archives', ...bib]);
for (const q of ['export licences for Sicilian grain and the price of bread', 'la longue durée et les trois temps de Braudel']) {
  console.log(`\n$ similar-sources search "${q}" --k 3`);
  run(process.execPath, [...cli, 'search', q, '--workspace', 'examples', '--k', '3']);
}
