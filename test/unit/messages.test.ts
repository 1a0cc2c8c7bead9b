import assert from 'node:assert/strict';
import { checkCitationArgs, checkOpenPdfArgs, checkPdfWebviewMessage, checkSegmentArgs, checkWebviewMessage } from '../../src/shared/messages';

const refused = (r: { ok: boolean; reason?: string }) => {
  assert.equal(r.ok, false);
  return r.reason ?? '';
};

describe('messages from webviews and command arguments are checked (shared/messages.ts)', () => {
  it('accepts every well-formed panel message as it is', () => {
    const good = [
      { type: 'ready' },
      { type: 'openPdf', path: '/lib/a.pdf', page: 3, highlight: 'the grain trade' },
      { type: 'insertCitation', segmentId: 's1', sourceId: 'x', page: 2 },
      { type: 'copyCitation', segmentId: 's1', sourceId: 'x', page: 2 },
      { type: 'revealSegment', segmentId: 's1' },
      { type: 'selectSegment', segmentId: null },
      { type: 'setOption', option: 'maxResults', value: 7 },
      { type: 'setOption', option: 'collectionFilter', value: ['Archives'] },
      { type: 'run', command: 'index' },
    ];
    for (const m of good) assert.deepEqual(checkWebviewMessage(m), { ok: true, value: m }, JSON.stringify(m));
  });

  it('refuses unknown types, missing or mistyped fields, oversized values and out-of-range options', () => {
    assert.match(refused(checkWebviewMessage(null)), /not an object/);
    assert.match(refused(checkWebviewMessage('openPdf')), /not an object/);
    assert.match(refused(checkWebviewMessage({ type: 'eval', code: 'x' })), /type is not one of/);
    assert.match(refused(checkWebviewMessage({ type: 'openPdf', path: '/etc/passwd', page: 1 })), /not a PDF/);
    assert.match(refused(checkWebviewMessage({ type: 'openPdf', path: '/lib/a.pdf', page: '1' })), /page is not a page number/);
    assert.match(refused(checkWebviewMessage({ type: 'openPdf', path: '/lib/a.pdf', page: 0 })), /page/);
    assert.match(refused(checkWebviewMessage({ type: 'openPdf', path: '/lib/a.pdf', page: 1, highlight: 'x'.repeat(5000) })), /longer than/);
    assert.match(refused(checkWebviewMessage({ type: 'insertCitation', segmentId: 's', sourceId: { toString: 1 }, page: 1 })), /sourceId is not a string/);
    assert.match(refused(checkWebviewMessage({ type: 'setOption', option: 'ollamaHost', value: 'http://evil' })), /option is not one of/);
    assert.match(refused(checkWebviewMessage({ type: 'setOption', option: 'maxResults', value: 500 })), /must be from 1 to 20/);
    assert.match(refused(checkWebviewMessage({ type: 'setOption', option: 'granularity', value: 'chapter' })), /must be one of/);
    assert.match(refused(checkWebviewMessage({ type: 'setOption', option: 'useReranking' })), /missing/);
    assert.match(refused(checkWebviewMessage({ type: 'run', command: 'workbench.action.terminal.new' })), /command is not one of/);
  });

  it("checks the PDF viewer's messages", () => {
    assert.deepEqual(checkPdfWebviewMessage({ type: 'loaded', pages: 3, page: 2, highlighted: true }), {
      ok: true,
      value: { type: 'loaded', pages: 3, page: 2, highlighted: true },
    });
    assert.match(refused(checkPdfWebviewMessage({ type: 'loaded', pages: 3, page: 2, highlighted: 'yes' })), /highlighted/);
    assert.match(refused(checkPdfWebviewMessage({ type: 'error', message: 'x'.repeat(10_000) })), /longer than/);
  });

  it('checks command arguments, which any command: link can send', () => {
    assert.deepEqual(checkOpenPdfArgs({ path: '/lib/a.PDF', page: 4 }), { ok: true, value: { path: '/lib/a.PDF', page: 4, highlight: '' } });
    assert.match(refused(checkOpenPdfArgs({ path: '/home/u/.ssh/id_rsa', page: 1 })), /not a PDF/);
    assert.match(refused(checkOpenPdfArgs(undefined)), /not an object/);
    assert.deepEqual(checkCitationArgs({ segmentId: 's', sourceId: 'x' }), {
      ok: true,
      value: { uri: undefined, segmentId: 's', sourceId: 'x', page: undefined },
    });
    assert.match(refused(checkCitationArgs({ segmentId: 's', sourceId: 'x', uri: 42 })), /uri is not a string/);
    assert.match(refused(checkSegmentArgs({ uri: 'file:///d.md' })), /segmentId/);
  });
});
