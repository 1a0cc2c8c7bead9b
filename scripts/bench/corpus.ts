/**
 * Deterministic synthetic scholarly corpus for the benchmark: French and English
 * humanities prose with Zipfian word frequencies, topic-skewed per source, from a
 * seeded PRNG. No network, no files: the same seed gives the same library.
 */
import type { CleanPage } from '../../src/core/pdf/cleanPages';

/** mulberry32: small, fast, good enough for text generation. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EN_FUNCTION =
  'the of and to in a that is was for as by with on it from this which be were had not his their at are but or an have they its has been more who between than into these also would there only other such after over both most under during while however because those without'.split(
    ' ',
  );
const FR_FUNCTION =
  'de la le et les des à en du un une que qui dans par pour sur au est se il ne pas plus aux ce son sa ses leur leurs elle ont été avec comme mais ou cette entre dont sont aussi sans lors tandis après même ainsi'.split(
    ' ',
  );

const EN_ROOTS = `history economy trade grain price harvest merchant port city state crown empire war peace treaty
market credit debt bank tax revenue famine dearth bread wheat ship fleet route sea coast island province
governor viceroy senate council court law custom contract guild craft labour wage peasant estate land rent
lord church bishop monastery parish reform doctrine heresy inquisition print book reader archive source
record ledger letter chronicle memory identity nation border frontier migration colony slavery plantation sugar
silver gold coin currency inflation population census mortality plague epidemic hospital charity poverty
household family marriage dowry inheritance kinship gender woman child education school university science
knowledge observation experiment instrument map navigation voyage discovery encounter exchange culture ritual
festival theatre music painting image text language translation rhetoric argument evidence method theory
structure society class elite nobility bourgeoisie revolution rebellion riot crowd protest police prison
justice punishment crime violence army soldier officer navy siege fortress artillery diplomacy embassy envoy
alliance dynasty succession sovereignty authority legitimacy power institution bureaucracy office administration
finance loan interest usury commerce shipping insurance company monopoly privilege license export import
customs tariff smuggling piracy corsair captive ransom pilgrimage mission conversion minority community
neighbourhood street house workshop factory machine industry railway steam coal iron textile cotton wool silk`.split(/\s+/);
const FR_ROOTS = `histoire économie commerce grain prix récolte marchand port ville état couronne empire guerre paix traité
marché crédit dette banque impôt revenu famine disette pain blé navire flotte route mer côte île province
gouverneur vice-roi sénat conseil cour loi coutume contrat corporation métier travail salaire paysan domaine terre rente
seigneur église évêque monastère paroisse réforme doctrine hérésie inquisition imprimé livre lecteur archive source
registre lettre chronique mémoire identité nation frontière migration colonie esclavage plantation sucre
argent or monnaie inflation population recensement mortalité peste épidémie hôpital charité pauvreté
ménage famille mariage dot héritage parenté genre femme enfant éducation école université science
savoir observation expérience instrument carte navigation voyage découverte rencontre échange culture rituel
fête théâtre musique peinture image texte langue traduction rhétorique argument preuve méthode théorie
structure société classe élite noblesse bourgeoisie révolution rébellion émeute foule protestation police prison
justice châtiment crime violence armée soldat officier marine siège forteresse artillerie diplomatie ambassade envoyé
alliance dynastie succession souveraineté autorité légitimité pouvoir institution bureaucratie office administration
finance emprunt intérêt usure négoce transport assurance compagnie monopole privilège licence exportation importation
douane tarif contrebande piraterie corsaire captif rançon pèlerinage mission conversion minorité communauté
quartier rue maison atelier usine machine industrie chemin vapeur charbon fer textile coton laine soie annales durée`.split(/\s+/);
const EN_SUFFIX = ['', 's', 'al', 'ed', 'ing'];
const FR_SUFFIX = ['', 's', 'e', 'es'];
const SYL =
  'ba be bi bo ca co da de di do fa fe ga go la le li lo ma me mi mo na ne no pa pe pi po ra re ri ro sa se si so ta te ti to va ve vi zo ar el in on ur'.split(
    ' ',
  );

export interface Vocabulary {
  fn: string[];
  content: string[];
  /** cumulative Zipf weights */
  fnCum: Float64Array;
  contentCum: Float64Array;
}

function shuffle<T>(a: T[], r: () => number): T[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

function zipfCum(n: number, s = 1.05): Float64Array {
  const c = new Float64Array(n);
  let acc = 0;
  for (let i = 0; i < n; i++) c[i] = acc += 1 / Math.pow(i + 1, s);
  for (let i = 0; i < n; i++) c[i] /= acc;
  return c;
}

function pick(cum: Float64Array, x: number): number {
  let lo = 0;
  let hi = cum.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cum[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function vocabulary(lang: 'en' | 'fr', seed: number): Vocabulary {
  const r = rng(seed);
  const roots = lang === 'en' ? EN_ROOTS : FR_ROOTS;
  const suffixes = lang === 'en' ? EN_SUFFIX : FR_SUFFIX;
  const forms = new Set<string>();
  for (const root of roots) for (const s of suffixes) if (s === '' || r() < 0.45) forms.add(root + s);
  // Proper nouns (people, places) form the long tail.
  for (let i = 0; i < 6000; i++) {
    const n = 2 + Math.floor(r() * 3);
    let w = '';
    for (let k = 0; k < n; k++) w += SYL[Math.floor(r() * SYL.length)];
    forms.add(w[0].toUpperCase() + w.slice(1));
  }
  // Real-looking words first (ranked high), names after them, each group shuffled.
  const words = [...forms];
  const common = shuffle(
    words.filter((w) => w[0] === w[0].toLowerCase()),
    r,
  );
  const names = shuffle(
    words.filter((w) => w[0] !== w[0].toLowerCase()),
    r,
  );
  const content = [...common, ...names];
  const fn = lang === 'en' ? EN_FUNCTION : FR_FUNCTION;
  return { fn, content, fnCum: zipfCum(fn.length, 0.9), contentCum: zipfCum(content.length) };
}

const VOCAB = { en: vocabulary('en', 11), fr: vocabulary('fr', 13) };

export interface Topic {
  lang: 'en' | 'fr';
  words: string[];
  cum: Float64Array;
}

export function topic(seed: number, lang?: 'en' | 'fr'): Topic {
  const r = rng(seed * 7919 + 1);
  const l = lang ?? (r() < 0.3 ? 'fr' : 'en');
  const v = VOCAB[l];
  const words: string[] = [];
  for (let i = 0; i < 40; i++) words.push(v.content[pick(v.contentCum, r() * 0.95)]);
  for (let i = 0; i < 20; i++) words.push(v.content[Math.floor(r() * v.content.length)]);
  return { lang: l, words, cum: zipfCum(words.length, 0.8) };
}

export function sentence(t: Topic, r: () => number): string {
  const v = VOCAB[t.lang];
  const n = 8 + Math.floor(r() * 18);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const x = r();
    if (x < 0.42) out.push(v.fn[pick(v.fnCum, r())]);
    else if (x < 0.72) out.push(t.words[pick(t.cum, r())]);
    else out.push(v.content[pick(v.contentCum, r())]);
  }
  if (r() < 0.1) out.splice(1 + Math.floor(r() * (n - 1)), 0, String(1450 + Math.floor(r() * 450)));
  const s = out.join(' ');
  return s[0].toUpperCase() + s.slice(1) + (r() < 0.05 ? '?' : '.');
}

export function paragraph(t: Topic, r: () => number, minWords: number): string {
  const parts: string[] = [];
  let words = 0;
  while (words < minWords) {
    const s = sentence(t, r);
    parts.push(s);
    words += s.split(' ').length;
  }
  return parts.join(' ');
}

export function title(t: Topic, r: () => number): string {
  const s = sentence(t, r).replace(/[.?]$/, '').split(' ').slice(0, 8).join(' ');
  return s;
}

/** One synthetic source: pages of clean blocks (what extraction + cleaning would give). */
export function syntheticSource(no: number, wordsTotal: number): { title: string; author: string; year: number; pages: CleanPage[]; topic: Topic } {
  const t = topic(no);
  const r = rng(no * 104729 + 17);
  const pages: CleanPage[] = [];
  let words = 0;
  let page = 1;
  while (words < wordsTotal) {
    const blocks: CleanPage['blocks'] = [];
    if (r() < 0.25) blocks.push({ kind: 'heading', text: title(t, r).split(' ').slice(0, 5).join(' ') });
    let pw = 0;
    while (pw < 450) {
      const p = paragraph(t, r, 60 + Math.floor(r() * 90));
      blocks.push({ kind: 'text', text: p });
      pw += p.split(' ').length;
    }
    words += pw;
    pages.push({ page, label: String(page + 10), blocks });
    page++;
  }
  return { title: title(t, r), author: `Author ${no}`, year: 1950 + (no % 70), pages, topic: t };
}

/** A draft of `n` paragraphs under section headings, on topics of library sources. */
export function syntheticDraft(n: number, sources: number, seed = 99): string[] {
  const r = rng(seed);
  const paras: string[] = [];
  for (let i = 0; i < n; i++) paras.push(paragraph(topic(Math.floor(r() * sources)), r, 50 + Math.floor(r() * 80)));
  return paras;
}

export function draftMarkdown(paras: string[]): string {
  const out = ['# A synthetic chapter on trade, states and societies', ''];
  paras.forEach((p, i) => {
    if (i % 10 === 0) out.push(`## Section ${i / 10 + 1}`, '');
    out.push(p, '');
  });
  return out.join('\n');
}
