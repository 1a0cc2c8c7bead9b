#!/usr/bin/env node
import { main } from './main';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`error: ${(e as Error)?.stack ?? e}\n`);
    process.exitCode = 1;
  },
);
