/**
 * Quarto cross-references (`@fig-map`, `@sec-intro`, `@tbl-prices`, `@eq-1`…)
 * are written like Pandoc citations but name a figure, section or table of
 * the draft itself: they are no citekeys (not completed, not "cited in", not
 * checked against the library). Quarto reserves these prefixes.
 */
const PREFIXES = ['fig', 'tbl', 'lst', 'tip', 'nte', 'wrn', 'imp', 'cau', 'thm', 'lem', 'cor', 'prp', 'cnj', 'def', 'exm', 'exr', 'sol', 'rem', 'eq', 'sec'];
const CROSS_REFERENCE = new RegExp(`^(?:${PREFIXES.join('|')})-`);

/** True for a key (without its `@`) that is a Quarto cross-reference. */
export function isCrossReference(key: string): boolean {
  return CROSS_REFERENCE.test(key);
}
