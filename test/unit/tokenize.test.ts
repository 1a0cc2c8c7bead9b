import assert from 'node:assert/strict';
import { americanSpelling, detectLanguage, foldText, stemEnglish, stemFrench, tokenize, words } from '../../src/core/text/tokenize';

describe('tokenize', () => {
  it('folds case, accents, ligatures and elisions', () => {
    assert.equal(foldText("L’Œuvre d'Éloïse"), 'oeuvre eloise');
    assert.equal(foldText('ÉTÉ à Noël, ﬁn'), 'ete a noel, fin');
    assert.equal(foldText("qu'il jusqu'ici"), 'il ici');
  });

  it('removes FR and EN stopwords', () => {
    assert.deepEqual(tokenize('the cells of the liver'), ['cell', 'liver']);
    assert.deepEqual(tokenize('les cellules du foie et des reins'), ['cellul', 'foie', 'rein']);
  });

  it('stems English plurals and inflections (Porter)', () => {
    assert.equal(stemEnglish('cells'), stemEnglish('cell'));
    assert.equal(stemEnglish('studies'), stemEnglish('study'));
    assert.equal(stemEnglish('caresses'), 'caress');
    assert.equal(stemEnglish('relational'), 'relat');
    assert.equal(stemEnglish('hopping'), 'hop');
    assert.equal(stemEnglish('generalizations'), 'gener');
  });

  it('stems French plurals and feminine forms', () => {
    assert.equal(stemFrench('cellules'), stemFrench('cellule'));
    assert.equal(stemFrench('journaux'), stemFrench('journal'));
    assert.equal(stemFrench('etudiees'), stemFrench('etudie'));
    assert.equal(stemFrench('cancereuses'), stemFrench('cancereux'));
    assert.equal(stemFrench('actives'), stemFrench('actif'));
  });

  it('matches accented and unaccented French after folding', () => {
    assert.deepEqual(tokenize('les études médicales'), tokenize('les etudes medicales'));
  });

  it('detects the language of a text from its function words', () => {
    assert.equal(detectLanguage(words('Les résultats de cette étude sont dans le tableau')), 'fr');
    assert.equal(detectLanguage(words('The results of this study are in the table')), 'en');
  });

  it('keeps digits', () => {
    assert.deepEqual(tokenize('IL-6 in 2019'), ['il', '6', '2019']);
  });

  it('spells out Greek letters, so the symbol meets the written name', () => {
    assert.deepEqual(tokenize('TNF-α'), tokenize('TNF-alpha'));
    assert.deepEqual(tokenize('the IL-1β receptor'), ['il', '1', 'beta', 'receptor']);
    assert.deepEqual(tokenize('interferon-γ and κB'), tokenize('interferon-gamma and kappa B'));
    // The micro sign and the Greek mu are one letter to a reader.
    assert.deepEqual(tokenize('5 µg'), tokenize('5 μg'));
  });

  it('keeps a letter-digit word whole and adds its letter and digit runs', () => {
    assert.deepEqual(tokenize('NLRP3'), ['nlrp3', 'nlrp', '3']);
    assert.deepEqual(tokenize('NIH3T3 cells'), ['nih3t3', 'nih', '3', 't', '3', 'cell']);
    // So the spaced and hyphenated spellings share terms with the joined one.
    const joined = new Set(tokenize('IL6'));
    for (const t of tokenize('IL-6')) assert.ok(joined.has(t), t);
  });

  it('folds British spellings onto American ones before stemming', () => {
    const same = (a: string, b: string) => assert.deepEqual(tokenize(a), tokenize(b), `${a} / ${b}`);
    same('tumour', 'tumor');
    same('ischaemia', 'ischemia');
    same('haemoglobin', 'hemoglobin');
    same('anaemia', 'anemia');
    same('oestrogen', 'estrogen');
    same('randomised', 'randomized');
    same('analysed', 'analyzed');
    same('behaviour', 'behavior');
    same('centre', 'center');
    same('paediatric', 'pediatric');
    // Words without a British form are left alone, and French words are not touched.
    assert.equal(americanSpelling('tumor'), 'tumor');
    assert.equal(americanSpelling('disease'), 'disease');
    assert.deepEqual(tokenize('le centre de la ville', 'fr'), ['centr', 'vill']);
  });
});

describe('languageOf', () => {
  it('tells French from English by their function words, and says nothing when they do not tell', async () => {
    const { languageOf } = await import('../../src/core/text/tokenize');
    assert.equal(languageOf("Les Annales ont fait de la longue durée l'horizon de l'histoire sociale, et les historiens en ont débattu."), 'fr');
    assert.equal(languageOf('The Annales made the longue durée the horizon of social history, and historians argued over it.'), 'en');
    assert.equal(languageOf('Braudel 1949'), undefined);
  });
});

describe("languageHint (the fusion's cross-language test)", () => {
  it('tells the language of a sentence by one function word, else by a French-only letter', async () => {
    const { languageHint } = await import('../../src/core/text/tokenize');
    assert.equal(languageHint('Tom slept with them.'), 'en');
    assert.equal(languageHint('Je suis fatigué.'), 'fr');
    assert.equal(languageHint('Très bien.'), 'fr');
    assert.equal(languageHint('Braudel 1949'), undefined);
  });
});
