/**
 * Strength bands for a card, from its shown similarity: what the CodeLens,
 * the panel and `analyze --json` say in words. The cut-offs are fitted with
 * the similarity (scripts/calibrate-bands.ts) on paragraph queries; the texts
 * say what each band estimates, with the precision measured on held-out ones.
 */

export type Band = 'strong' | 'related' | 'weak';

/** Lowest similarity of each band (weak: everything below `related`). */
export const BANDS = { strong: 0.44, related: 0.2 } as const;

export function bandOf(similarity: number): Band {
  if (similarity >= BANDS.strong) return 'strong';
  if (similarity >= BANDS.related) return 'related';
  return 'weak';
}

/** Strongest first. */
export const BAND_ORDER: readonly Band[] = ['strong', 'related', 'weak'];

/**
 * What each band estimates, for a hover: how often a card of the band was a
 * right source on held-out paragraph queries (SciFact paragraphs and the
 * example's draft, the top 10 cards each; scripts/calibrate-bands.ts).
 */
export const BAND_DESCRIPTIONS: Record<Band, string> = {
  strong: 'Strong: very likely a source to cite here (about 3 in 4 such cards were a right source on held-out paragraphs).',
  related: 'Related: worth a look (about 2 in 5 such cards were a right source on held-out paragraphs).',
  weak: 'Weak: shares some words with the paragraph; rarely a right source (about 1 in 30 on held-out paragraphs).',
};

/** The band and the number, for a hover: "Strong (63%): …". */
export function describeStrength(similarity: number): string {
  const band = bandOf(similarity);
  const text = BAND_DESCRIPTIONS[band];
  const colon = text.indexOf(':');
  return `${text.slice(0, colon)} (${Math.round(similarity * 100)}%)${text.slice(colon)}`;
}

/** What a segment's CodeLens says: the best band reached and how many cards reach it, or that none reached `minBand`. */
export type LensSummary<C> =
  | { kind: 'signal'; band: Band; count: number; top: C }
  | { kind: 'below'; minBand: Band; best: Band | null };

/**
 * The lens of a segment whose cards come strongest first: the count of cards
 * in the best band, with the top card, when that band is `minBand` or
 * stronger; otherwise "below", which the lens shows dimmer ("no strong source").
 */
export function lensSummary<C extends { similarity: number }>(cards: readonly C[], minBand: Band): LensSummary<C> {
  if (cards.length === 0) return { kind: 'below', minBand, best: null };
  const band = bandOf(cards[0].similarity);
  if (BAND_ORDER.indexOf(band) > BAND_ORDER.indexOf(minBand)) return { kind: 'below', minBand, best: band };
  return { kind: 'signal', band, count: cards.filter((c) => bandOf(c.similarity) === band).length, top: cards[0] };
}
