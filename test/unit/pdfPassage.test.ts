import assert from 'node:assert/strict';
import { findPassage, foldChar, needleOf } from '../../webview-ui/pdf/passage';

describe('PDF viewer: finding a passage in a page', () => {
  it('folds characters to letters and digits without accents or case', () => {
    assert.equal(foldChar('É'), 'e');
    assert.equal(foldChar('ç'), 'c');
    assert.equal(foldChar('-'), '');
    assert.equal(foldChar(' '), '');
    assert.equal(foldChar('7'), '7');
  });

  it('makes the needle from the first words, ignoring a leading ellipsis', () => {
    assert.equal(needleOf('…Les Annales, fondées à Strasbourg', 3), 'lesannalesfondees');
    assert.equal(needleOf('', 12), '');
  });

  it('finds a passage split across items, across a line-end hyphen, whatever the case and accents', () => {
    const items = ['Intro text. ', 'Les An-', 'nales, FONDÉES à Stras', 'bourg en 1929, ont', ' changé'];
    const ranges = findPassage(items, 'Les Annales, fondées à Strasbourg en 1929, ont changé l’histoire');
    assert.ok(ranges);
    // Twelve words run past the page ("l’histoire" is not on it): the first eight are found.
    assert.deepEqual([...ranges.keys()], [1, 2, 3]);
    assert.deepEqual(ranges.get(1), [0, 7]);
    assert.deepEqual(ranges.get(2), [0, items[2].length]);
    assert.equal(items[3].slice(...ranges.get(3)!), 'bourg en 1929, ont');
  });

  it('starts the range inside an item when the passage starts mid-item', () => {
    const items = ['The first line ends and the grain trade of Sicily begins here with licences'];
    const ranges = findPassage(items, 'the grain trade of Sicily begins here');
    assert.ok(ranges);
    const [start, end] = ranges.get(0)!;
    assert.equal(items[0].slice(start, end), 'the grain trade of Sicily begins here');
  });

  it('falls back to fewer words when the passage goes on past the page', () => {
    const items = ['… the grain trade of Sicily was licensed'];
    const ranges = findPassage(items, 'the grain trade of Sicily was licensed by the viceroys who sold export rights every spring');
    assert.ok(ranges, 'found with a shorter needle');
    // Twelve and eight words are not on the page; the first six are.
    assert.equal(items[0].slice(...ranges.get(0)!), 'the grain trade of Sicily was');
  });

  it('gives null when the page does not hold the passage, or has no text', () => {
    assert.equal(findPassage(['Nothing to see here at all'], 'the grain trade of Sicily was licensed'), null);
    assert.equal(findPassage([], 'anything'), null);
  });
});
