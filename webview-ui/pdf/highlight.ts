/**
 * The passage's highlight on the text layer: which pages are searched, which
 * text items are the layer's spans, and how each span is cut to mark the
 * passage (passage.ts finds where it lies). Pure: tested under mocha without a DOM.
 */

/** Item index → [start, end) code-unit offsets in that item's string. */
export type PassageRanges = Map<number, [number, number]>;

/**
 * The pages to look for the passage on, in order: the one asked for, then the next (a passage
 * that starts at the foot of a page), then the previous (a page number one off); only those that exist.
 */
export function pagesToSearch(target: number, pageCount: number): number[] {
  return [target, target + 1, target - 1].filter((n) => n >= 1 && n <= pageCount);
}

/**
 * The strings of a page's text items (pdf.js getTextContent), in the order of the text layer's
 * spans: marked-content items have no `str`, and no span.
 */
export function itemStrings(items: readonly unknown[]): string[] {
  return items.filter((it): it is { str: string } => typeof (it as { str?: unknown } | null)?.str === 'string').map((it) => it.str);
}

/** Where a marked piece lies in a passage that spans several spans (the CSS rounds the ends only). */
export type MarkPosition = 'begin' | 'middle' | 'end';

/** One span of the text layer, cut in three: the passage's part is `marked`. */
export interface MarkedSpan {
  /** The span's index in the text layer (= its item's index in `itemStrings`). */
  index: number;
  before: string;
  marked: string;
  after: string;
  /** Absent when the passage lies in one span. */
  position?: MarkPosition;
}

/**
 * How to cut the spans that hold the passage, in page order. `strings` are the text layer's
 * strings (`textContentItemsStr`); a range whose span the layer lacks is left out.
 */
export function markedSpans(strings: readonly string[], ranges: PassageRanges): MarkedSpan[] {
  const indices = [...ranges.keys()].sort((a, b) => a - b);
  const spans: MarkedSpan[] = [];
  indices.forEach((index, n) => {
    const str = strings[index];
    const [start, end] = ranges.get(index)!;
    if (str === undefined) return;
    const span: MarkedSpan = { index, before: str.slice(0, start), marked: str.slice(start, end), after: str.slice(end) };
    if (indices.length > 1) span.position = n === 0 ? 'begin' : n === indices.length - 1 ? 'end' : 'middle';
    spans.push(span);
  });
  return spans;
}
