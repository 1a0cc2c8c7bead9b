/**
 * The CLI's writers. Human output (results on stdout; progress, warnings and errors on stderr)
 * carries file names, PDF text and bibliography fields, which may hold terminal control
 * sequences: every line is made safe as it is written (`terminalText`), whatever a command
 * put in it, so no field can clear the screen, make a link or a fake line. The commands clean
 * and bound their fields before (prose collapsed, names escaped, each field its length); this is
 * the net under them. --json output is data: written as it is (JSON.stringify escapes C0
 * controls; the rest is the exact string, which a JSON reader wants).
 *
 * Warnings that come in floods (one per unreadable file, per damaged PDF, per broken
 * bibliography entry) are shown up to a number of each kind, then counted and summed up.
 */
import { terminalText } from '../shared/untrusted';

/** A line's length on the terminal, generous: fields are bounded by the commands. */
const LINE_MAX = 4000;
/** One warning's length: its file name and reason, not a 100,000-character field in it. */
export const WARNING_MAX = 600;

/** Each tab-separated part made safe: tabs stay, `segment` prints columns. A tab cannot hide text. */
function safeLine(s: string): string {
  return String(s)
    .split('\t')
    .map((part) => terminalText(part, LINE_MAX))
    .join('\t');
}

/** One line of human output on stdout (a newline in `s` is shown as `\n`, not a new line). */
export const out = (s: string) => process.stdout.write(safeLine(s) + '\n');
/** One line on stderr, as `out`. */
export const err = (s: string) => process.stderr.write(safeLine(s) + '\n');
/** Text the CLI wrote itself on several lines (the usage), each line safe. */
export function lines(write: (line: string) => void, text: string): void {
  for (const line of text.split('\n')) write(line);
}
/** --json output on stdout, as it is: it is data (see above). */
export const outJson = (json: string) => process.stdout.write(json + '\n');

const count = (n: number) => n.toLocaleString('en-US');

/**
 * The first `max` of `items` as lines, then one line for the rest: a list of 100,000 skipped files
 * is not 100,000 lines. `more(n)` says what the n others are (and where they are all listed).
 */
export function listed<T>(write: (line: string) => void, items: readonly T[], line: (item: T) => string, more: (n: string) => string, max = 20): void {
  for (const item of items.slice(0, max)) write(line(item));
  if (items.length > max) write(more(count(items.length - max)));
}

/**
 * What makes warnings "of one kind": the words before the first part that changes from one to
 * the next — a path, a number, a quoted name. "cannot read /lib/a.pdf: EACCES" is of the kind
 * "cannot read"; a warning that starts with its file's path ("/lib/a.pdf: damaged xref") is of
 * the kind "" (a file's). Warnings are the engine's sentences: this is a heuristic, and the
 * overall cap below holds when it fails.
 */
export function warningKind(w: string): string {
  return (/^[^/\\\d"'“‘«(]*/.exec(w)?.[0] ?? '').trim().slice(0, 80);
}

/**
 * Warnings on stderr: at most `perKind` of each kind and `total` in all until flushed, the rest
 * summed up. A command flushes when its step is done (an index run) and at its end; a process
 * that lives on (mcp) is flushed by the next warning once `windowMs` have passed, so that it
 * never falls silent for good.
 */
export class WarningLines {
  private shownOf = new Map<string, number>();
  private hiddenOf = new Map<string, number>();
  private shown = 0;
  private since: number;

  constructor(
    private write: (line: string) => void,
    private opts: { perKind?: number; total?: number; windowMs?: number; now?: () => number } = {},
  ) {
    this.since = this.now();
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  warn(w: string): void {
    if (this.now() - this.since >= (this.opts.windowMs ?? 30_000)) this.flush();
    const kind = warningKind(w);
    const seen = this.shownOf.get(kind) ?? 0;
    if (seen < (this.opts.perKind ?? 20) && this.shown < (this.opts.total ?? 100)) {
      this.shownOf.set(kind, seen + 1);
      this.shown++;
      this.write(`warning: ${terminalText(w, WARNING_MAX)}`);
    } else {
      this.hiddenOf.set(kind, (this.hiddenOf.get(kind) ?? 0) + 1);
    }
  }

  /** The warnings left out so far, summed up (at most 6 lines); `where`: where they are all listed. */
  flush(where = ''): void {
    const hidden = [...this.hiddenOf].sort((a, b) => b[1] - a[1]);
    const named = hidden.slice(0, 5);
    for (const [kind, n] of named)
      this.write(`warning: … and ${count(n)} more ${kind ? `“${terminalText(kind, 80)} …” warnings` : 'warnings about single files'}${where}`);
    const rest = hidden.slice(5);
    if (rest.length) this.write(`warning: … and ${count(rest.reduce((s, [, n]) => s + n, 0))} more warnings of ${rest.length} other kinds${where}`);
    this.shownOf.clear();
    this.hiddenOf.clear();
    this.shown = 0;
    this.since = this.now();
  }
}

/** The process's warnings (a CLI process runs one command). */
export const warnings = new WarningLines(err);
export const warn = (w: string) => warnings.warn(w);
