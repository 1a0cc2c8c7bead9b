/**
 * Generated libraries and index snapshots for the reliability tests: small,
 * deterministic PDFs (seeded text), and a comparable picture of an index
 * (every source's passages and vectors, read back from its shard files).
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildPdf, type PdfSpec } from './pdfWriter';
// Deterministic PRNG (mulberry32): the benchmark corpus's own.
import { rng } from '../../scripts/bench/corpus';
export { rng };
import { readManifest, indexDir } from '../../src/core/index/store/manifest';
import { readPassageShard, readVectorShard } from '../../src/core/index/store/shards';

const WORDS = (
  'grain trade licence harbour merchant senate viceroy bread price harvest famine shipping credit insurance ' +
  'granary tax revenue province empire city port cargo wheat barley rye vessel captain freight contract ' +
  'notary archive register council magistrate bishop abbey monastery parish peasant landlord tenant rent ' +
  'manor village market fair guild craft weaver dyer wool silk spice pepper sugar cotton indigo silver ' +
  'coin mint debt loan bank exchange bill ledger account profit loss risk voyage storm pirate convoy navy ' +
  'admiral treaty alliance war siege fortress army soldier mercenary plague epidemic doctor hospital ' +
  'charity almshouse orphan widow marriage dowry inheritance estate law court judge trial witness oath ' +
  'chronicle letter diary sermon pamphlet printer book library scholar university college student lecture'
).split(' ');

function sentence(r: () => number): string {
  const n = 8 + Math.floor(r() * 14);
  const w: string[] = [];
  for (let i = 0; i < n; i++) w.push(WORDS[Math.floor(r() * WORDS.length)]);
  const s = w.join(' ');
  return s[0].toUpperCase() + s.slice(1) + '.';
}

export function paragraph(r: () => number, sentences = 5): string {
  return Array.from({ length: sentences }, () => sentence(r)).join(' ');
}

/** A small PDF: `pages` pages of three seeded paragraphs, a title and an author. */
export function smallPdfSpec(seed: number, pages = 2): PdfSpec {
  const r = rng(seed);
  return {
    info: { Title: `Study ${seed}: ${sentence(r).slice(0, 40)}`, Author: `Author ${seed % 7} Writer` },
    pages: Array.from({ length: pages }, (_, i) => ({
      heading: i === 0 ? `Study number ${seed}` : undefined,
      paragraphs: [paragraph(r), paragraph(r), paragraph(r)],
      footer: String(i + 1),
    })),
  };
}

export interface StressLibraryVariant {
  /** File name → bytes; `null` removes the file. */
  files: Map<string, Buffer | null>;
}

/**
 * Variant A: `count` PDFs (seeds 1..count) plus one file that is not a PDF.
 * Variant B: the same library edited the way a user does: 5 PDFs rewritten,
 * one removed, one added, one renamed (same bytes, new name).
 */
export function stressLibraryVariants(count = 30): { a: StressLibraryVariant; b: StressLibraryVariant } {
  const a = new Map<string, Buffer | null>();
  for (let i = 1; i <= count; i++) a.set(`paper-${String(i).padStart(2, '0')}.pdf`, buildPdf(smallPdfSpec(i, 1 + (i % 3))));
  a.set('broken.pdf', Buffer.from('not a pdf at all\n'));
  const b = new Map(a);
  for (const i of [3, 9, 14, 21, 27]) b.set(`paper-${String(i).padStart(2, '0')}.pdf`, buildPdf(smallPdfSpec(1000 + i, 2)));
  b.set('paper-05.pdf', null);
  b.set('paper-new.pdf', buildPdf(smallPdfSpec(5000, 2)));
  b.set('paper-11.pdf', null);
  b.set('renamed-11.pdf', a.get('paper-11.pdf')!);
  for (const [k, v] of a) if (!b.has(k)) b.set(k, v);
  const aFull = new Map(a);
  for (const k of b.keys()) if (!aFull.has(k)) aFull.set(k, null);
  return { a: { files: aFull }, b: { files: b } };
}

/** Writes a variant into `dir` (removing the files it removes). */
export async function applyVariant(dir: string, v: StressLibraryVariant): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [name, bytes] of v.files) {
    if (bytes === null) await rm(join(dir, name), { force: true });
    else await writeFile(join(dir, name), bytes);
  }
}

export interface SourceSnapshot {
  path: string;
  contentHash: string;
  title: string;
  pageCount: number;
  passages: Array<{ p: number; l?: string; e: number; h?: string; t: string; k: string }>;
  /** The vector of each passage, as the hex of its float32 bytes. */
  vectors: string[];
}

export interface IndexSnapshot {
  /** By path; shard placement is deliberately not compared. */
  sources: Record<string, SourceSnapshot>;
  skipped: Record<string, string>;
}

/**
 * Reads every committed shard of the index in `workspace` (checksums checked by the
 * shard readers) for the model `modelKey`. Undefined when no manifest exists yet.
 * Throws when the committed index is inconsistent (a shard or vector missing).
 */
export async function snapshotIndex(workspace: string, modelKey: string): Promise<IndexSnapshot | undefined> {
  const dir = indexDir(workspace);
  const m = await readManifest(dir);
  if (!m) return undefined;
  const out: IndexSnapshot = { sources: {}, skipped: {} };
  for (const s of Object.values(m.skipped)) out.skipped[s.path] = s.reason;
  const set = m.vectors[modelKey];
  for (const [key, rec] of Object.entries(m.shards)) {
    const shard = await readPassageShard(dir, rec);
    const vecRec = set?.shards[key];
    if (!vecRec) throw new Error(`shard ${key} has no vectors for ${modelKey}`);
    const vectors = await readVectorShard(dir, vecRec);
    for (const src of shard) {
      const r = m.sources[src.id];
      if (!r) continue;
      out.sources[r.path] = {
        path: r.path,
        contentHash: r.contentHash,
        title: r.title,
        pageCount: r.pageCount,
        passages: src.passages,
        vectors: src.passages.map((_, i) => {
          const v = vectors.get(`${src.contentHash}:${i}`);
          if (!v) throw new Error(`vector ${i} of ${r.path} is missing`);
          return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
        }),
      };
    }
  }
  for (const r of Object.values(m.sources)) {
    if (!out.sources[r.path]) throw new Error(`${r.path} is in the manifest but in no shard`);
  }
  return out;
}

/** The snapshot with its paths made relative to `root`, so two workspaces compare. */
export function relativeSnapshot(s: IndexSnapshot, root: string): IndexSnapshot {
  const rel = (p: string) => (p.startsWith(root) ? p.slice(root.length) : p);
  const sources: Record<string, SourceSnapshot> = {};
  for (const [p, v] of Object.entries(s.sources)) sources[rel(p)] = { ...v, path: rel(p) };
  const skipped: Record<string, string> = {};
  for (const [p, v] of Object.entries(s.skipped)) skipped[rel(p)] = v;
  return { sources, skipped };
}

/**
 * Asserts that `s` is a committed state between two clean builds: every source
 * in it equals its version in `from` or in `to` (passages and vectors), and
 * every source both builds share unchanged is there. Returns a problem, or undefined.
 */
export function betweenBuilds(s: IndexSnapshot, from: IndexSnapshot, to: IndexSnapshot): string | undefined {
  const same = (a: SourceSnapshot | undefined, b: SourceSnapshot) => !!a && JSON.stringify(a) === JSON.stringify(b);
  for (const [p, src] of Object.entries(s.sources)) {
    if (!same(from.sources[p], src) && !same(to.sources[p], src)) return `${p} matches neither build`;
  }
  for (const [p, src] of Object.entries(from.sources)) {
    if (same(to.sources[p], src) && !same(s.sources[p], src)) return `${p}, unchanged in both builds, is missing or different`;
  }
  return undefined;
}
