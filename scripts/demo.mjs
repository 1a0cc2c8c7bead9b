// The main job on the bundled example, offline with the embedded provider:
// build, index examples/library (its .vscode/settings.json names the library,
// the Better BibTeX export and the primary sources), then analyse examples/draft.md.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

function run(args) {
  const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

run(['scripts/build.mjs']);
if (!existsSync('examples/draft.md')) {
  console.error('examples/ is missing: the bundled example was not checked out');
  process.exit(1);
}
run(['dist/cli.js', 'analyze', 'examples/draft.md', '--workspace', 'examples', '--provider', 'embedded', '--max-results', '3', ...process.argv.slice(2)]);
