import assert from 'node:assert/strict';
import { itemStrings, markedSpans, pagesToSearch } from '../../webview-ui/pdf/highlight';
import {
  canvasSize,
  fitWidthScale,
  MAX_CANVAS_PIXELS,
  MAX_SCALE,
  MIN_SCALE,
  pageAt,
  pageBox,
  scrollTopForMark,
  scrollTopForPage,
  shareDownPage,
  userUnitOf,
  zoomStep,
} from '../../webview-ui/pdf/layout';
import { findPassage } from '../../webview-ui/pdf/passage';
import { describeOpenError, highlightStatus, keyCommand, nextToRender, targetPage, ViewerState, type Highlight } from '../../webview-ui/pdf/viewerState';

// A US Letter page at scale 1 (612 × 792 pt), 12 px apart: the tops of a four-page document.
const TOPS = [12, 816, 1620, 2424];

describe('PDF viewer: page layout and zoom', () => {
  it('fits the page into the view, gaps and border left out, within the zoom limits', () => {
    assert.equal(fitWidthScale(800, 612), (800 - 2 * 12 - 4) / 612);
    assert.equal(fitWidthScale(1252, 612), 2);
    // A view narrower than 120 px still gets a page 120 px wide, and no zoom under the minimum.
    assert.equal(fitWidthScale(60, 300), 120 / 300);
    assert.equal(fitWidthScale(60, 612), MIN_SCALE);
    assert.equal(fitWidthScale(10_000, 100), MAX_SCALE);
  });

  it('zooms in and out by steps, from between two steps to the next one, and stops at the limits', () => {
    assert.equal(zoomStep(1, 1), 1.1);
    assert.equal(zoomStep(1, -1), 0.9);
    // The fit-width zoom (1.2614…) lies between steps.
    assert.equal(zoomStep(772 / 612, 1), 1.5);
    assert.equal(zoomStep(772 / 612, -1), 1.25);
    // Within 0.001 of a step counts as on it.
    assert.equal(zoomStep(1.0005, 1), 1.1);
    assert.equal(zoomStep(1.0995, -1), 1);
    assert.equal(zoomStep(MAX_SCALE, 1), MAX_SCALE);
    assert.equal(zoomStep(MIN_SCALE, -1), MIN_SCALE);
    assert.equal(zoomStep(0.3, -1), MIN_SCALE);
  });

  it('sizes a page in whole pixels and gives the text layer its scale times the user unit', () => {
    assert.deepEqual(pageBox(612, 792, 1.5, 1), { width: 918, height: 1188, totalScaleFactor: 1.5 });
    assert.deepEqual(pageBox(595.28, 841.89, 1.26, 2), { width: 750, height: 1060, totalScaleFactor: 2.52 });
    assert.equal(userUnitOf(undefined), 1);
    assert.equal(userUnitOf(2), 2);
    assert.equal(userUnitOf(0), 1);
    assert.equal(userUnitOf(-1), 1);
  });

  it("draws at the screen's pixel ratio, lowered so that a huge page stays within 4096² pixels", () => {
    assert.deepEqual(canvasSize(918, 1188, 2), { ratio: 2, width: 1836, height: 2376 });
    assert.deepEqual(canvasSize(918.4, 1188.6, 0), { ratio: 1, width: 918, height: 1188 }, 'no ratio reported: 1');
    const huge = canvasSize(3060, 3960, 2); // a Letter page at 5×, on a 2× screen: 48 million pixels wanted
    assert.ok(huge.ratio > 1.17 && huge.ratio < 1.18, String(huge.ratio));
    assert.equal(huge.width, Math.floor(3060 * huge.ratio));
    assert.ok(huge.width * huge.height <= MAX_CANVAS_PIXELS);
    assert.ok(huge.width * huge.height > MAX_CANVAS_PIXELS * 0.999);
    assert.deepEqual(canvasSize(0.2, 0.2, 1), { ratio: 1, width: 1, height: 1 }, 'never an empty canvas');
  });

  it('takes for current page the last one that starts above 30% of the view, reading few page tops', () => {
    const at = (scrollTop: number) => pageAt(TOPS.length, (i) => TOPS[i]!, scrollTop, 1000);
    assert.equal(at(0), 1); // mark at 300
    assert.equal(at(515), 1); // mark at 815: page 2 starts at 816
    assert.equal(at(516), 2);
    assert.equal(at(1400), 3);
    assert.equal(at(50_000), 4);
    assert.equal(
      pageAt(1, () => 0, 9999, 500),
      1,
    );
    let reads = 0;
    const page = pageAt(1000, (i) => (reads++, i * 804 + 12), 500_000, 1000);
    assert.equal(page, Math.floor((500_000 + 300 - 12) / 804) + 1);
    assert.ok(reads <= 10, `${reads} tops read of 1000`);
  });

  it('scrolls a page to the top below half a gap, or centres it; keeps the same point on zooming', () => {
    assert.equal(scrollTopForPage(816, 792, 1000, 'start'), 810);
    assert.equal(scrollTopForPage(816, 792, 1000, 'center'), 816 - 104);
    // A third of the way down page 2, before and after a zoom that doubles it.
    const share = shareDownPage(816 + 264, 816, 792);
    assert.equal(share, 1 / 3);
    assert.equal(1620 + share * 1584, 2148);
    assert.equal(shareDownPage(40, 10, 0), 30, 'a page not laid out yet counts 1 px high');
    // The passage's first mark 300 px down its page, a third down a 900 px view.
    assert.equal(scrollTopForMark(816, 300, 900), 816);
  });
});

describe('PDF viewer: highlighting the passage on the text layer', () => {
  it('searches the page asked for, then the next, then the previous, within the document', () => {
    assert.deepEqual(pagesToSearch(5, 10), [5, 6, 4]);
    assert.deepEqual(pagesToSearch(1, 10), [1, 2]);
    assert.deepEqual(pagesToSearch(10, 10), [10, 9]);
    assert.deepEqual(pagesToSearch(1, 1), [1]);
  });

  it('keeps the text items that are spans of the text layer, in order', () => {
    const items = [
      { str: 'Les An-', dir: 'ltr' },
      { type: 'beginMarkedContent', id: 'mc0' },
      { str: '' },
      null,
      { str: 'nales' },
      { type: 'endMarkedContent' },
    ];
    assert.deepEqual(itemStrings(items), ['Les An-', '', 'nales']);
  });

  it('cuts the spans that hold a passage running over several items: first, middle and last', () => {
    const items = ['Intro text. ', 'Les An-', 'nales, FONDÉES à Stras', 'bourg en 1929, ont', ' changé'];
    const ranges = findPassage(items, 'Les Annales, fondées à Strasbourg en 1929, ont changé l’histoire')!;
    assert.deepEqual(markedSpans(items, ranges), [
      { index: 1, before: '', marked: 'Les An-', after: '', position: 'begin' },
      { index: 2, before: '', marked: 'nales, FONDÉES à Stras', after: '', position: 'middle' },
      { index: 3, before: '', marked: 'bourg en 1929, ont', after: '', position: 'end' },
    ]);
  });

  it('cuts one span around a passage inside it, without a position', () => {
    const items = ['Header', 'The first line ends and the grain trade of Sicily begins here with licences'];
    const ranges = findPassage(items, 'the grain trade of Sicily begins here')!;
    assert.deepEqual(markedSpans(items, ranges), [
      { index: 1, before: 'The first line ends and ', marked: 'the grain trade of Sicily begins here', after: ' with licences' },
    ]);
  });

  it('leaves out a span the text layer lacks, and orders the spans by index', () => {
    const ranges = new Map<number, [number, number]>([
      [4, [0, 3]],
      [2, [1, 3]],
    ]);
    assert.deepEqual(markedSpans(['a', 'b', 'xyz'], ranges), [{ index: 2, before: 'x', marked: 'yz', after: '', position: 'begin' }]);
  });
});

describe('PDF viewer: state transitions', () => {
  const found = (page: number): Highlight => ({ page, ranges: new Map([[0, [0, 4]]]), applied: false, scrolled: false });

  it('shows an empty toolbar until a document is loaded, and acts on none', () => {
    const s = new ViewerState();
    assert.deepEqual(s.toolbar(), {
      zoom: '',
      fitPressed: true,
      zoomOutDisabled: true,
      zoomInDisabled: true,
      page: '',
      pageMax: 1,
      total: '',
      prevDisabled: true,
      nextDisabled: true,
      noDocument: true,
    });
    assert.equal(s.zoomTo(2), false);
    assert.equal(s.scale, 1);
    assert.equal(s.goTo(3), undefined);
    assert.equal(s.scrolledTo(3), false);
  });

  it('lets only the latest open go on, in the strings it came with', () => {
    const s = new ViewerState();
    const first = s.beginOpen(undefined);
    const second = s.beginOpen({ 'pdf.of': 'sur {total}' });
    assert.ok(!s.isCurrent(first));
    assert.ok(s.isCurrent(second));
    s.load(12, 3);
    assert.equal(s.toolbar().total, 'sur 12');
    s.beginOpen(undefined);
    assert.equal(s.toolbar().total, 'of 12', 'English when the host sends no strings');
  });

  it('opens at the page asked for (the last when past it), at the width of the view', () => {
    const s = new ViewerState();
    s.beginOpen(undefined);
    s.load(10, 12);
    s.openAtWidth(772 / 612);
    assert.deepEqual(s.toolbar(), {
      zoom: '126%',
      fitPressed: true,
      zoomOutDisabled: false,
      zoomInDisabled: false,
      page: '10',
      pageMax: 10,
      total: 'of 10',
      prevDisabled: false,
      nextDisabled: true,
      noDocument: false,
    });
    assert.equal(targetPage('7'), 7);
    assert.equal(targetPage(2.4), 2);
    assert.equal(targetPage(0), 1);
    assert.equal(targetPage(-3), 1);
    assert.equal(targetPage(undefined), 1);
    assert.equal(targetPage('vii'), 1);
  });

  it('zooms within the limits, leaves fit width on a step, and says when the pages must be laid out again', () => {
    const s = new ViewerState();
    s.load(3, 1);
    s.openAtWidth(1.26);
    assert.equal(s.zoomBy(1), true);
    assert.equal(s.scale, 1.5);
    assert.equal(s.fitWidth, false);
    assert.equal(s.zoomTo(9), true);
    assert.equal(s.scale, MAX_SCALE);
    assert.equal(s.toolbar().zoomInDisabled, true);
    assert.equal(s.zoomTo(MAX_SCALE + 0.00001), false, 'no change, no new layout');
    assert.equal(s.zoomTo(0.1, true), true);
    assert.equal(s.scale, MIN_SCALE);
    assert.deepEqual([s.toolbar().zoom, s.toolbar().fitPressed, s.toolbar().zoomOutDisabled], ['25%', true, true]);
    // The fit-width zoom again at the same width: fit is pressed, nothing to lay out.
    s.fitWidth = false;
    assert.equal(s.zoomTo(MIN_SCALE, true), false);
    assert.equal(s.fitWidth, true);
  });

  it('goes to a page within the document and follows the scroll', () => {
    const s = new ViewerState();
    s.load(10, 1);
    assert.equal(s.goTo(0), 1);
    assert.equal(s.toolbar().prevDisabled, true);
    assert.equal(s.goTo(2.6), 3);
    assert.equal(s.goTo(99), 10);
    assert.equal(s.scrolledTo(10), false, 'already there: the toolbar stays');
    assert.equal(s.scrolledTo(4), true);
    assert.equal(s.toolbar().page, '4');
    s.unload();
    assert.equal(s.toolbar().noDocument, true);
  });

  it('marks the passage once its page is drawn, and scrolls to it the first time only', () => {
    const s = new ViewerState();
    s.load(10, 4);
    const h = found(5);
    s.highlight = h;
    assert.equal(s.awaitsHighlight(4), false);
    assert.equal(s.awaitsHighlight(5), true);
    assert.equal(s.highlightApplied(h, true), true, 'first marks: scroll there');
    assert.equal(s.awaitsHighlight(5), false);
    assert.equal(s.highlightApplied(h, true), false, 'a redraw after a zoom: stay where the user is');
    const nothing = found(5);
    assert.equal(s.highlightApplied(nothing, false), false, 'no span marked: nothing to scroll to');
    assert.deepEqual([nothing.applied, nothing.scrolled], [true, false]);
    s.unload();
    assert.equal(s.highlight, undefined);
  });

  it('says where the passage was highlighted, or that it was not found, and for how long', () => {
    const s = new ViewerState();
    const h = { ...found(6), applied: true };
    assert.deepEqual(highlightStatus(s, h, 5), { text: 'Passage highlighted on page 6.', kind: 'ok', clearAfterMs: 4000 });
    assert.deepEqual(highlightStatus(s, undefined, 5), { text: 'The passage was not found on page 5; showing the page.', kind: 'info', clearAfterMs: 8000 });
    assert.equal(highlightStatus(s, found(6), 5).kind, 'info', 'found but never drawn: not highlighted');
  });

  it('draws the current page first, then the nearest in or near the view, each once per zoom', () => {
    const pages = [1, 2, 3, 4, 5, 6].map((num) => ({ num, visible: false, renderedScale: 0 }));
    const next = () => nextToRender(pages, 3, 1.5)?.num;
    assert.equal(next(), 3);
    pages[2]!.renderedScale = 1.5;
    assert.equal(next(), 2, 'the earlier of two neighbours');
    pages[1]!.renderedScale = 1.5;
    assert.equal(next(), 4);
    pages[3]!.renderedScale = 1.5;
    assert.equal(next(), undefined, 'the others are out of view');
    pages[5]!.visible = true;
    assert.equal(next(), 6);
    pages[5]!.renderedScale = 1.5;
    assert.equal(next(), undefined);
    assert.equal(nextToRender(pages, 3, 2)?.num, 3, 'a new zoom draws them again');
  });

  it('maps keys to commands, and leaves other shortcuts alone', () => {
    const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {}) =>
      keyCommand({ key: k, ctrlKey: false, metaKey: false, altKey: false, ...mods });
    assert.equal(key('=', { ctrlKey: true }), 'zoomIn');
    assert.equal(key('+', { metaKey: true }), 'zoomIn');
    assert.equal(key('-', { ctrlKey: true }), 'zoomOut');
    assert.equal(key('-'), undefined);
    assert.equal(key('n'), 'nextPage');
    assert.equal(key('j'), 'nextPage');
    assert.equal(key('k'), 'previousPage');
    assert.equal(key('p'), 'previousPage');
    assert.equal(key('p', { ctrlKey: true }), undefined, 'Ctrl+P is the Quick Open');
    assert.equal(key('n', { altKey: true }), undefined);
  });

  it('describes an error of opening in words', () => {
    assert.equal(describeOpenError({ name: 'PasswordException', message: 'No password given' }), 'the PDF is password-protected');
    assert.equal(describeOpenError({ name: 'InvalidPDFException', message: '' }), 'invalid or corrupted PDF');
    assert.equal(describeOpenError({ name: 'InvalidPDFException', message: 'Invalid PDF structure.' }), 'Invalid PDF structure.');
    assert.equal(describeOpenError(new Error('HTTP 404 Not Found')), 'HTTP 404 Not Found');
    assert.equal(describeOpenError('boom'), 'boom');
  });
});
