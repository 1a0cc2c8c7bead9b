#!/usr/bin/env node
import { main } from './main';
import { err } from './output';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    // The message (which may name a file) on one safe line, then the stack's frames, one a line.
    const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    err(`error: ${message}`);
    const stack = e instanceof Error ? (e.stack ?? '') : '';
    const frames = stack.startsWith(message) ? stack.slice(message.length) : '';
    for (const frame of frames.split('\n')) if (frame.trim()) err(frame);
    process.exitCode = 1;
  },
);
