/**
 * Fuzzing the CLI's terminal output (issue 35, item 8): any string a file name, a PDF, a
 * bibliography or Zotero may hold, written through the CLI's line writers (`src/cli/output.ts`)
 * and `terminalText`, must come out as text: no C0 control but the newline that ends the line, no
 * DEL, no C1 control (U+0080–U+009F, the 8-bit CSI among them), no bidi or other format character,
 * no line or paragraph separator, no lone surrogate; bounded length; a name still shows every
 * visible character it had (escapes are added, nothing visible removed). Floods of warnings of
 * any kinds print a bounded number of lines. Strings are drawn with controls, escape sequences
 * (CSI, OSC 8 links, OSC titles, DCS) and bidi marks over-represented.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { WarningLines, err, out } from '../../src/cli/output';
import { terminalText } from '../../src/shared/untrusted';
import { FUZZ_BUDGET_MS, fuzzParams } from './budget';

/** What no terminal line may hold: controls, format characters (bidi, zero-width, tags), separators, lone surrogates (the line's own newline is cut off before this is tested). */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/u;

const piece = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 0x9f }).map((c) => String.fromCharCode(c)) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '\u001b[2J',
      '\u001b[31m',
      '\u001b]8;;https://x.example\u0007',
      '\u001b]8;;\u001b\\',
      '\u001b]0;title\u0007',
      '\u001bP+q\u001b\\',
      '\u009b1m',
      '\r\n',
      '\u2028',
      '\u2029',
      '\t',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom('\u202e', '\u202d', '\u2066', '\u2069', '\u200b', '\u200f', '\u061c', '\ufeff', '\u00ad', '\udc00', '\ud800', '\u{E0041}'),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
);
const hostile = fc.array(piece, { maxLength: 40 }).map((p) => p.join(''));

function captured(write: () => void): string {
  const chunks: string[] = [];
  const original = process.stdout.write;
  const originalErr = process.stderr.write;
  process.stdout.write = ((c: string) => (chunks.push(String(c)), true)) as typeof process.stdout.write;
  process.stderr.write = ((c: string) => (chunks.push(String(c)), true)) as typeof process.stderr.write;
  try {
    write();
  } finally {
    process.stdout.write = original;
    process.stderr.write = originalErr;
  }
  return chunks.join('');
}

describe('fuzz: terminal output', function () {
  this.timeout(FUZZ_BUDGET_MS * 3 + 60_000);

  it('any field, written as a line: one line of text, bounded, its visible characters kept', () => {
    let tried = 0;
    fc.assert(
      fc.property(hostile, fc.integer({ min: 1, max: 300 }), fc.constantFrom<'name' | 'prose'>('name', 'prose'), (s, max, kind) => {
        tried++;
        const t = terminalText(s, max, kind);
        assert.equal(UNSAFE.exec(t), null, `${JSON.stringify(s)} → ${JSON.stringify(t)}`);
        assert.ok([...t].length <= max, `${[...t].length} > ${max}`);
        if (kind === 'name' && !t.endsWith('…')) {
          // Every visible character of the name is still there, in order.
          const visible = [...s].filter((c) => !UNSAFE.test(c) && c !== '\\');
          let at = 0;
          for (const c of visible) {
            at = t.indexOf(c, at);
            assert.ok(at >= 0, `${JSON.stringify(c)} of ${JSON.stringify(s)} lost in ${JSON.stringify(t)}`);
            at += c.length;
          }
        }
        for (const write of [out, err]) {
          const line = captured(() => write(`field: ${s}`));
          assert.ok(line.endsWith('\n') && line.indexOf('\n') === line.length - 1, `${JSON.stringify(s)}: ${JSON.stringify(line)} is not one line`);
          assert.equal(UNSAFE.exec(line.slice(0, -1).replace(/\t/g, ' ')), null, JSON.stringify(line));
        }
      }),
      fuzzParams({ interruptAfterTimeLimit: FUZZ_BUDGET_MS / 2 }),
    );
    console.log(`      fields: ${tried.toLocaleString('en')} tried`);
  });

  it('floods of warnings of any kinds: a bounded number of safe lines', () => {
    let tried = 0;
    let worst = 0;
    fc.assert(
      fc.property(fc.array(hostile, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 5_000 }), (kinds, n) => {
        tried++;
        const lines: string[] = [];
        const w = new WarningLines((l) => lines.push(l), { now: () => 0 });
        for (let i = 0; i < n; i++) w.warn(`${kinds[i % kinds.length]} /lib/file-${i}.pdf: damaged`);
        w.flush(' (index --json lists them all)');
        worst = Math.max(worst, lines.length);
        assert.ok(lines.length <= 100 + 6, `${n} warnings of ${kinds.length} kinds: ${lines.length} lines`);
        for (const l of lines) assert.equal(UNSAFE.exec(l), null, JSON.stringify(l));
      }),
      fuzzParams({ interruptAfterTimeLimit: FUZZ_BUDGET_MS / 2 }),
    );
    console.log(`      warning floods: ${tried.toLocaleString('en')} tried, at most ${worst} lines`);
  });
});
