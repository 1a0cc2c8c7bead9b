import assert from 'node:assert/strict';
import { detectLanguage, foldText, stemEnglish, stemFrench, tokenize, words } from '../../src/core/text/tokenize';

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
});
