/**
 * Strength bands for a card, from its shown similarity: what the CodeLens,
 * the panel and `analyze --json` say in words. The cut-offs are fitted with
 * the similarity (scripts/calibrate-bands.ts) on paragraph queries; the texts
 * say what each band estimates, with the precision measured on held-out ones.
 */

export type Band = 'strong' | 'related' | 'weak';

/** Lowest similarity of each band (weak: everything below `related`). */
export interface BandCuts {
  strong: number;
  related: number;
}

/** The embedded model's cut-offs, and every model's without a row of its own. */
export const BANDS: Readonly<BandCuts> = { strong: 0.44, related: 0.2 };

/**
 * Cut-offs per model, keyed by the model's name (the last part of its id or folder, lower
 * case): the same similarity curve gives each model's cards a different spread, so each is
 * fitted on its own scores (scripts/calibrate-bands.ts --model <folder>: SciFact train claims
 * and paragraphs, the fit part's paragraphs, top 10 cards; strong where ≥ 70% were a right
 * source, related where ≥ 25%). Held-out AUC and band precision: BENCHMARKS.md, "Bands per model".
 */
export const BANDS_BY_MODEL: Readonly<Record<string, Readonly<BandCuts>>> = {
  // 2026-12-04, int8 ONNX through LocalProvider, the neural fusion of that day: held-out AUC 0.925
  // (claims) / 0.942 (paragraphs); paragraphs strong 73% of 71 cards, related 29% of 89, weak 3.6% of 720.
  'bge-small-en-v1.5': { strong: 0.4, related: 0.13 },
  // The same day and method (scripts/calibrate-bands.ts --model, SciFact train, 298 queries held out):
  // held-out AUC 0.944 / 0.950; paragraphs strong 66% of 77, related 39% of 62, weak 3.8% of 741.
  'e5-small-v2': { strong: 0.37, related: 0.17 },
  // Held-out AUC 0.924 / 0.923; paragraphs strong 71% of 66, related 29% of 99, weak 3.2% of 715.
  'all-minilm-l6-v2': { strong: 0.44, related: 0.13 },
  // The default model, the same method with its queries embedded twice (models.ts queryAlsoAsPassage),
  // on a 1,662-abstract part of SciFact (every abstract train claims cite, and 1,097 others; the full
  // 5,183 did not embed in time on the shared machine): held-out AUC 0.960 (claims) / 0.956
  // (paragraphs); paragraphs strong 67% of 107 cards, related 40% of 20, weak 3.2% of 753.
  'multilingual-e5-small': { strong: 0.24, related: 0.18 },
};

/**
 * The cut-offs for a model: its id, folder or provider key (`local-xenova_bge-small-en-v1.5`)
 * ends with a BANDS_BY_MODEL name (the longest that does); otherwise today's BANDS.
 */
export function bandsFor(model: string | undefined): Readonly<BandCuts> {
  if (!model) return BANDS;
  const m = model.toLowerCase().replace(/[\\/]+$/, '');
  let best: string | undefined;
  for (const name of Object.keys(BANDS_BY_MODEL)) {
    if (!m.endsWith(name)) continue;
    const before = m.charAt(m.length - name.length - 1);
    if ((before === '' || /[\\/_-]/.test(before)) && (!best || name.length > best.length)) best = name;
  }
  return best ? BANDS_BY_MODEL[best] : BANDS;
}

export function bandOf(similarity: number, cuts: Readonly<BandCuts> = BANDS): Band {
  if (similarity >= cuts.strong) return 'strong';
  if (similarity >= cuts.related) return 'related';
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

/** A similarity (0..1; clamped, and not a number reads 0) as a whole percent: "63%". */
export function formatPercent(similarity: number): string {
  const v = Number.isFinite(similarity) ? Math.min(1, Math.max(0, similarity)) : 0;
  return `${Math.round(v * 100)}%`;
}

/**
 * A card's strength for a tooltip, from its band's description in the user's language
 * (BAND_DESCRIPTIONS or its translation): the number goes after the band word, "Strong (63%): …".
 * A language that spaces its colon keeps that space, whichever it is (plain, no-break or narrow
 * no-break): French "Forte : …" gives "Forte (63%) : …". The one formatter of the CodeLens, the
 * hover (vscode/strength.ts) and the panel (webview-ui/panel/render.ts).
 */
export function formatStrength(description: string, similarity: number): string {
  const percent = formatPercent(similarity);
  const colon = description.indexOf(':');
  if (colon < 0) return `${description} (${percent})`;
  const head = description.slice(0, colon).trimEnd();
  return `${head} (${percent})${description.slice(head.length)}`;
}

/** The English strength, for a hover: "Strong (63%): …"; the card's band (its model's cut-offs), else today's. */
export function describeStrength(similarity: number, band: Band = bandOf(similarity)): string {
  return formatStrength(BAND_DESCRIPTIONS[band], similarity);
}

/** What a segment's CodeLens says: the best band reached and how many cards reach it, or that none reached `minBand`. */
export type LensSummary<C> = { kind: 'signal'; band: Band; count: number; top: C } | { kind: 'below'; minBand: Band; best: Band | null };

/**
 * The lens of a segment whose cards come strongest first: the count of cards
 * in the best band, with the top card, when that band is `minBand` or
 * stronger; otherwise "below", which the lens shows dimmer ("no strong source").
 */
export function lensSummary<C extends { similarity: number; band?: Band }>(cards: readonly C[], minBand: Band): LensSummary<C> {
  if (cards.length === 0) return { kind: 'below', minBand, best: null };
  // A card's own band (its model's cut-offs) when it has one.
  const of = (c: C) => c.band ?? bandOf(c.similarity);
  const band = of(cards[0]);
  if (BAND_ORDER.indexOf(band) > BAND_ORDER.indexOf(minBand)) return { kind: 'below', minBand, best: band };
  return { kind: 'signal', band, count: cards.filter((c) => of(c) === band).length, top: cards[0] };
}
