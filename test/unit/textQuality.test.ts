import assert from 'node:assert/strict';
import { pageTextQuality, wordLike } from '../../src/core/pdf/textQuality';
import { cleanPageTexts, DAMAGES } from '../support/textLayers';

describe('garbage-text-layer rule (which pages need OCR)', function () {
  this.timeout(60_000);
  let clean: string[];
  before(async () => {
    clean = await cleanPageTexts();
  });

  it('keeps every clean text layer of the example library and the test corpus (no needless OCR)', () => {
    assert.ok(clean.length >= 20, `pages: ${clean.length}`);
    const flagged = clean.map((t) => [pageTextQuality(t), t.slice(0, 60)] as const).filter(([q]) => q.verdict !== 'ok');
    assert.deepEqual(flagged, []);
  });

  for (const [name, damage] of Object.entries(DAMAGES)) {
    it(`sends every page to OCR whose layer is damaged this way: ${name}`, () => {
      const missed = clean.map((t, i) => pageTextQuality(damage(t, i + 1))).filter((q) => q.verdict === 'ok');
      assert.equal(missed.length, 0, JSON.stringify(missed[0]));
    });
  }

  it('sends a page with no text layer, or only a page number, to OCR', () => {
    assert.equal(pageTextQuality('').verdict, 'no-text');
    assert.equal(pageTextQuality('  \n 212 \n').verdict, 'no-text');
  });

  it('reads words, numbers and names as words; noise as not', () => {
    for (const w of ['Braudel', "l'histoire", 'aujourd’hui', 'Jean-Paul', '1550–1650', 'XVIe', 'McDonald', '(p.', 'vol.', 'Œuvres']) assert.ok(wordLike(w), w);
    for (const w of ['G3n0ese', 'tHe', 'rrrrr', 'xzqvbn', '#%&', 'Ã©tÃ©']) assert.ok(!wordLike(w), w);
  });
});
