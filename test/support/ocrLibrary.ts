/**
 * A library folder and its workspace for the OCR tests, and an index run through the product's
 * path (libraryInputs, then updateIndex) with the tests' shared OCR pool.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { EmbeddedProvider } from '../../src/core/embedding/embeddedProvider';
import { updateIndex, type IndexReport } from '../../src/core/index/write/indexer';
import { libraryInputs, type LibraryInputOptions } from '../../src/core/library/pdfSource';
import type { OcrPool } from '../../src/core/ocr/ocrPool';

/** `<root>/<name>/lib` holding `files`, and an empty `<root>/<name>/ws`. */
export async function ocrLibrary(root: string, name: string, files: Record<string, Buffer>): Promise<{ lib: string; workspace: string }> {
  const lib = join(root, name, 'lib');
  const workspace = join(root, name, 'ws');
  await fs.mkdir(lib, { recursive: true });
  await fs.mkdir(workspace, { recursive: true });
  for (const [f, bytes] of Object.entries(files)) await fs.writeFile(join(lib, f), bytes);
  return { lib, workspace };
}

/** Indexes `lib` into `workspace` with the embedded model, scanned pages read by `pool`. */
export async function indexWithOcr(
  pool: OcrPool,
  workspace: string,
  lib: string,
  opts: Partial<LibraryInputOptions> = {},
  extra: Partial<Parameters<typeof updateIndex>[1]> = {},
): Promise<IndexReport> {
  const { inputs, dispose } = await libraryInputs({ folders: [lib], baseDir: workspace, ocrEngine: pool, ...opts });
  try {
    return await updateIndex(inputs, { workspace, provider: new EmbeddedProvider(), ...extra });
  } finally {
    await dispose();
  }
}
