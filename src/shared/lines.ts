/**
 * Line numbers of offsets in a draft. A line ends at LF, CRLF or a lone CR — a
 * line break for the Markdown parser, the LaTeX reader and VS Code alike — so a
 * segment's lines are the editor's.
 */

/** Offsets where lines start. */
export function lineStarts(s: string): number[] {
  const starts = [0];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 10 || (c === 13 && s.charCodeAt(i + 1) !== 10)) starts.push(i + 1);
  }
  return starts;
}

/** The 1-based line of `offset`, given the line starts (a binary search). */
export function lineOf(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
