/**
 * Ctrl-C for a long CLI command: the first one aborts the command's signal (it stops and keeps
 * what is done), after `message` on stderr; `stop()` ends the listening when the command is over.
 * With `secondExits`, a second Ctrl-C exits at once (130), and `kill` (SIGTERM) cancels like the
 * first; otherwise a second Ctrl-C is Node's own (the process ends).
 */
export interface Interrupt {
  signal: AbortSignal;
  stop(): void;
}

export function cancelOnInterrupt(message: string | undefined, opts: { secondExits?: boolean } = {}): Interrupt {
  const ac = new AbortController();
  const onSignal = () => {
    if (ac.signal.aborted) {
      process.stderr.write('stopped.\n');
      process.exit(130);
    }
    if (message) process.stderr.write(message + '\n');
    ac.abort();
  };
  if (opts.secondExits) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  } else {
    process.once('SIGINT', onSignal);
  }
  return {
    signal: ac.signal,
    stop: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
