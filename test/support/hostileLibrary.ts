/**
 * A hostile source for the real-VS-Code suite: a PDF whose metadata and text
 * hold HTML, Markdown links and images, bare URLs, a bidi override, zero-width
 * characters and a 5,000-character word, and a draft paragraph that finds it
 * (its rare invented words are found nowhere else in the example library).
 *
 *   node --import tsx test/support/hostileLibrary.ts <workspace>
 * writes <workspace>/library/hostile/hostile.pdf and <workspace>/hostile.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildPdf } from './pdfWriter';

export const HOSTILE_TITLE = `<img src=x onerror="document.body.dataset.pwned='1'"> \u202EEvil title\u202C https://example.com/a.png www.example.com`;
export const HOSTILE_AUTHOR = '<iframe src="https://example.com"></iframe>';
/** Words that only the hostile source and its paragraph hold. */
export const HOSTILE_WORDS = 'quillwort flumadiddle zorblax snickersnee gallimaufry';
export const HOSTILE_PARAGRAPH = `The ${HOSTILE_WORDS} of the archive deserve a closer look: quillwort and flumadiddle recur in every zorblax ledger, and the snickersnee gallimaufry appears in each.`;

export function writeHostileFixtures(workspace: string): void {
  const dir = join(workspace, 'library', 'hostile');
  mkdirSync(dir, { recursive: true });
  const body = [
    `${HOSTILE_PARAGRAPH} <script>document.body.dataset.pwned='2'</script> [click me](javascript:alert(1)) ![pixel](https://example.com/pixel.png) [run](command:workbench.action.terminal.new) https://example.com/page mail@example.com`,
    `A very long word follows: ${'x'.repeat(5000)} and the text goes on about quillwort and zorblax ledgers.`,
  ];
  const pdf = buildPdf({
    info: { Title: `${HOSTILE_TITLE} ${'y'.repeat(5000)}`, Author: HOSTILE_AUTHOR, CreationDate: new Date(Date.UTC(2026, 0, 1)) },
    pages: [{ paragraphs: body }, { paragraphs: [`${HOSTILE_PARAGRAPH} Zero\u200Bwidth and NUL\u0000 characters.`] }],
  });
  writeFileSync(join(dir, 'hostile.pdf'), pdf);
  writeFileSync(join(workspace, 'hostile.md'), `# Hostile sources\n\n${HOSTILE_PARAGRAPH}\n`);
}

if (process.argv[1] && /hostileLibrary\.ts$/.test(process.argv[1])) {
  const target = process.argv[2];
  if (!target) throw new Error('usage: node --import tsx test/support/hostileLibrary.ts <workspace>');
  writeHostileFixtures(target);
}
