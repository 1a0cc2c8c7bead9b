/**
 * The benchmark's PDF library: `files` text-layer PDFs of `pages` pages each (header, footer,
 * headings, three paragraphs a page), deterministic, written with the tests' PDF writer.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { buildPdf } from '../../test/support/pdfWriter';
import { paragraph, rng, sentence, topic } from './corpus';

export async function makePdfs(dir: string, files: number, pages: number): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  for (let f = 0; f < files; f++) {
    const t = topic(5000 + f);
    const r = rng(777 + f);
    const spec = {
      info: { Title: sentence(t, r).slice(0, 60), Author: `Author ${f}` },
      pages: Array.from({ length: pages }, (_, p) => ({
        header: `Journal of Synthetic Studies ${f}`,
        footer: String(p + 1),
        heading: p % 4 === 0 ? `Section ${p / 4 + 1}` : undefined,
        paragraphs: [paragraph(t, r, 140), paragraph(t, r, 140), paragraph(t, r, 120)],
      })),
    };
    await fs.writeFile(path.join(dir, `paper-${String(f).padStart(3, '0')}.pdf`), buildPdf(spec));
  }
}
