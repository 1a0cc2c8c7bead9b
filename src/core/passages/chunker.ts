/**
 * Splits one source's clean pages into passages: whole sentences, at most
 * `maxWords` words (sized so every supported embedder sees the whole passage,
 * never a silently truncated one), with a sentence-level overlap. Passages never
 * cross sources; a heading starts a new passage and labels the ones below it.
 */
import type { CleanPage } from '../pdf/cleanPages';
import { splitSentences } from '../text/sentences';

export interface Passage {
  /** Position in the source, 0-based. */
  index: number;
  /** 1-based PDF page where the passage starts. */
  page: number;
  /** Printed label of that page, when the PDF defines labels. */
  pageLabel?: string;
  /** 1-based PDF page where the passage ends. */
  endPage: number;
  heading?: string;
  text: string;
}

export interface ChunkOptions {
  maxWords: number;
  /** The next passage starts with the previous one's last whole sentences, up to this many words. */
  overlapWords: number;
  /** … and at most this many sentences (default: no limit but `overlapWords`). */
  overlapSentences?: number;
  /** A trailing passage shorter than this is merged into the previous one when it fits. */
  minWords: number;
}

export const CHUNK_DEFAULTS: ChunkOptions = { maxWords: 180, overlapWords: 35, minWords: 25 };
/** Bump when extraction, cleaning or chunking change, so indexes built with the old rules are rebuilt. */
export const CHUNKER_VERSION = 1;

interface Unit {
  text: string;
  words: number;
  page: number;
  label?: string;
}

const wordCount = (s: string) => (s.match(/\S+/g) ?? []).length;

export function chunkPages(pages: CleanPage[], options: Partial<ChunkOptions> = {}): Passage[] {
  const opt = { ...CHUNK_DEFAULTS, ...options };
  const passages: Passage[] = [];
  let heading: string | undefined;
  let units: Unit[] = [];
  /** How many leading units were carried over as overlap (already emitted once). */
  let carried = 0;

  const emit = (list: Unit[]) => {
    if (!list.length) return;
    const first = list[0];
    const last = list[list.length - 1];
    passages.push({
      index: passages.length,
      page: first.page,
      pageLabel: first.label,
      endPage: last.page,
      heading,
      text: list.map((u) => u.text).join(' '),
    });
  };

  const flushSection = () => {
    if (units.length === carried) {
      units = [];
      carried = 0;
      return;
    }
    const fresh = units.slice(carried);
    const words = fresh.reduce((n, u) => n + u.words, 0);
    const prev = passages[passages.length - 1];
    // A stub after a long passage of the same section reads better merged.
    if (words < opt.minWords && prev && prev.heading === heading && wordCount(prev.text) + words <= opt.maxWords * 1.2) {
      prev.text += ' ' + fresh.map((u) => u.text).join(' ');
      prev.endPage = fresh[fresh.length - 1].page;
    } else {
      emit(units);
    }
    units = [];
    carried = 0;
  };

  for (const page of pages) {
    for (const block of page.blocks) {
      if (block.kind === 'heading') {
        flushSection();
        heading = block.text;
        continue;
      }
      for (const s of splitSentences(block.text)) {
        for (const piece of splitLong(s.text, opt.maxWords)) {
          const unit: Unit = { text: piece, words: wordCount(piece), page: page.page, label: page.label };
          let total = units.reduce((n, u) => n + u.words, 0);
          if (units.length && total + unit.words > opt.maxWords) {
            emit(units);
            units = overlapTail(units, opt.overlapWords, opt.overlapSentences ?? Infinity);
            total = units.reduce((n, u) => n + u.words, 0);
            if (total + unit.words > opt.maxWords) units = [];
            carried = units.length;
          }
          units.push(unit);
        }
      }
    }
  }
  flushSection();
  return passages;
}

function overlapTail(units: Unit[], overlapWords: number, overlapSentences: number): Unit[] {
  const tail: Unit[] = [];
  let n = 0;
  for (let i = units.length - 1; i > 0; i--) {
    if (n + units[i].words > overlapWords || tail.length >= overlapSentences) break;
    tail.unshift(units[i]);
    n += units[i].words;
  }
  return tail;
}

/** A "sentence" longer than a passage (tables, lists without stops) is cut by words. */
function splitLong(sentence: string, maxWords: number): string[] {
  const words = sentence.split(/\s+/).filter(Boolean);
  if (words.length <= maxWords) return [sentence];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += maxWords) out.push(words.slice(i, i + maxWords).join(' '));
  return out;
}
