import assert from 'node:assert/strict';
import { adjacentLatexCite, citeAtOffset, parseCiteAt, scanLatexCites } from '../../src/shared/latexCite';
import { formatLatexCitation, latexCiteStyle, mergeLatexCitation } from '../../src/shared/latexCiteFormat';

/** The offset of the `|` in a text, and the text without it. */
function cursor(s: string): { text: string; at: number } {
  const at = s.indexOf('|');
  return { text: s.slice(0, at) + s.slice(at + 1), at };
}

describe('LaTeX citation commands (shared)', () => {
  it('reads notes, keys and their offsets', () => {
    const t = 'As shown \\autocite[see][p.~12]{braudel1949, lindqvist2016}.';
    const [c] = scanLatexCites(t);
    assert.equal(c.command, 'autocite');
    assert.equal(c.items[0].prenote, 'see');
    assert.equal(c.items[0].postnote, 'p.~12');
    assert.deepEqual(
      c.items[0].keys.map((k) => [k.key, t.slice(k.start, k.end)]),
      [
        ['braudel1949', 'braudel1949'],
        ['lindqvist2016', 'lindqvist2016'],
      ],
    );
    assert.equal(t.slice(c.start, c.end), '\\autocite[see][p.~12]{braudel1949, lindqvist2016}');
  });

  it('reads a multicite with global and per-key notes, starred and capitalised commands', () => {
    const t = '\\cites(compare)(and passim)[12]{a}[see][14--16]{b} then \\Textcite*{c} and \\citep*[p.~3]{d}';
    const cs = scanLatexCites(t);
    assert.deepEqual(
      cs.map((c) => [c.command, c.star, c.multi]),
      [
        ['cites', false, true],
        ['Textcite', true, false],
        ['citep', true, false],
      ],
    );
    assert.equal(cs[0].prenote, 'compare');
    assert.equal(cs[0].postnote, 'and passim');
    assert.deepEqual(
      cs[0].items.map((i) => [i.prenote, i.postnote, i.keys.map((k) => k.key)]),
      [
        [undefined, '12', ['a']],
        ['see', '14--16', ['b']],
      ],
    );
    assert.equal(cs[2].items[0].postnote, 'p.~3');
  });

  it('skips comments, escaped percent signs, verbatim and math', () => {
    const t = [
      '100\\% sure \\cite{real} % \\cite{commented}',
      '\\verb|\\cite{verb}| $x \\cite{math}$ \\[ \\cite{display} \\]',
      '\\begin{verbatim}\n\\cite{inverbatim}\n\\end{verbatim}',
      '\\begin{equation}\\cite{eq}\\end{equation} \\footcite[12]{last}',
    ].join('\n');
    assert.deepEqual(
      scanLatexCites(t).map((c) => c.items[0].keys[0].key),
      ['real', 'last'],
    );
  });

  it('is not fooled by other commands or a cite without keys', () => {
    assert.deepEqual(scanLatexCites('\\citation{x} \\excite{y} \\cite and text \\\\cite{z}'), []);
    assert.equal(parseCiteAt('\\textbf{x}', 0), undefined);
  });

  it('tells where a cursor is in a key list, while the list is typed', () => {
    let { text, at } = cursor('Text \\cite{Bra|');
    let c = citeAtOffset(text, at);
    assert.equal(c?.partial.text, 'Bra');
    assert.equal(c?.cite.closed, false);
    ({ text, at } = cursor('Text \\autocite[12]{braudel1949, |} more'));
    c = citeAtOffset(text, at);
    assert.deepEqual(c?.keys, ['braudel1949']);
    assert.deepEqual(c?.partial, { text: '', start: at, end: at });
    ({ text, at } = cursor('\\cites[3]{a}[4]{lin|dqvist}'));
    c = citeAtOffset(text, at);
    assert.deepEqual(c?.partial, { text: 'lin', start: text.indexOf('lindqvist'), end: text.indexOf('lindqvist') + 9 });
    assert.deepEqual(c?.keys, ['a', 'lindqvist']);
    for (const s of ['\\cite{|}', '\\parencite[see][]{a,|}', '\\citep*{|']) {
      const k = cursor(s);
      assert.equal(citeAtOffset(k.text, k.at)?.partial.text, '', s);
    }
    // Not in the notes, not after the command, not in a comment.
    for (const s of ['\\autocite[p.|~12]{a}', '\\cite{a}|', '% \\cite{Bra|', '\\textbf{Bra|}', '$\\cite{x|}$']) {
      const k = cursor(s);
      assert.equal(citeAtOffset(k.text, k.at), undefined, s);
    }
  });

  it('finds the command a new citation joins', () => {
    const { text, at } = cursor('Grain \\autocite[3]{a} | and more.');
    assert.equal(adjacentLatexCite(text, at)?.items[0].keys[0].key, 'a');
    // A quotation with its citation (`\textcquote`) is not joined.
    const q = cursor('Grain \\textcquote[3]{a}{the sea} |');
    assert.equal(adjacentLatexCite(q.text, q.at), undefined);
    assert.deepEqual(
      scanLatexCites(q.text).map((c) => c.items[0].keys[0].key),
      ['a'],
    );
    const k = cursor('Grain \\autocite[3]{a} and | more.');
    assert.equal(adjacentLatexCite(k.text, k.at), undefined);
  });

  it('detects the style from the preamble', () => {
    assert.equal(latexCiteStyle('\\documentclass{book}\n\\usepackage[style=authoryear]{biblatex}\n\\begin{document}x\\end{document}'), 'biblatex');
    assert.equal(latexCiteStyle('\\usepackage[round]{natbib}\n\\begin{document}'), 'natbib');
    assert.equal(latexCiteStyle('% \\usepackage{biblatex}\n\\begin{document}\\usepackage{natbib}'), 'plain');
  });

  it('formats a citation in each style, the page a tab stop', () => {
    assert.equal(formatLatexCitation('biblatex', 'braudel1949', '214'), '\\\\autocite[p.~${1:214}]{braudel1949\\}');
    assert.equal(formatLatexCitation('natbib', 'braudel1949', '214–216'), '\\\\citep[pp.~${1:214--216}]{braudel1949\\}');
    assert.equal(formatLatexCitation('plain', 'braudel1949', 'xii', { snippet: false }), '\\cite[p.~xii]{braudel1949}');
    assert.equal(formatLatexCitation('biblatex', 'a$b', undefined, { snippet: false, command: 'textcite' }), '\\textcite{a$b}');
  });

  it('merges into a biblatex command as a multicite, each key with its page', () => {
    const plain = { snippet: false };
    assert.deepEqual(mergeLatexCitation('\\autocite[3]{a}', 'b', '214', 'biblatex', plain), { text: '\\autocites[3]{a}[214]{b}', how: 'multicite' });
    assert.deepEqual(mergeLatexCitation('\\autocite[p.~3]{a}', 'b', '214', 'biblatex', plain), { text: '\\autocites[p.~3]{a}[p.~214]{b}', how: 'multicite' });
    assert.deepEqual(mergeLatexCitation('\\parencite[see][3]{a,c}', 'b', undefined, 'biblatex', plain), {
      text: '\\parencites[see][3]{a,c}{b}',
      how: 'multicite',
    });
    assert.deepEqual(mergeLatexCitation('\\autocites(cf.)()[3]{a}[4]{c}', 'b', '214–216', 'biblatex', plain), {
      text: '\\autocites(cf.)()[3]{a}[4]{c}[214--216]{b}',
      how: 'multicite',
    });
    assert.deepEqual(mergeLatexCitation('\\autocite{a}', 'b', undefined, 'biblatex', plain), { text: '\\autocite{a,b}', how: 'keys' });
    assert.deepEqual(mergeLatexCitation('\\autocite{a}', 'b', '214', 'biblatex'), { text: '\\\\autocites{a\\}[${1:214}]{b\\}', how: 'multicite' });
    // No multicite form: the new citation follows.
    assert.deepEqual(mergeLatexCitation('\\citeauthor{a}', 'b', '2', 'biblatex', plain), { text: '\\citeauthor{a}\\citeauthor[p.~2]{b}', how: 'alongside' });
  });

  it('merges natbib and plain citations as key lists, locators side by side', () => {
    const plain = { snippet: false };
    assert.deepEqual(mergeLatexCitation('\\citep{a}', 'b', undefined, 'natbib', plain), { text: '\\citep{a,b}', how: 'keys' });
    assert.deepEqual(mergeLatexCitation('\\cite{a, c}', 'b', undefined, 'plain', plain), { text: '\\cite{a, c,b}', how: 'keys' });
    assert.deepEqual(mergeLatexCitation('\\citep[p.~3]{a}', 'b', '214', 'natbib', plain), {
      text: '(\\citealp[p.~3]{a}; \\citealp[p.~214]{b})',
      how: 'alongside',
    });
    assert.deepEqual(mergeLatexCitation('\\citep{a}', 'b', '214', 'natbib', plain), { text: '(\\citealp{a}; \\citealp[p.~214]{b})', how: 'alongside' });
    assert.deepEqual(mergeLatexCitation('\\cite[p.~3]{a}', 'b', undefined, 'plain', plain), { text: '\\cite[p.~3]{a}\\cite{b}', how: 'alongside' });
    assert.equal(mergeLatexCitation('not a cite', 'b', '1', 'plain'), undefined);
    assert.equal(mergeLatexCitation('\\cite{a} and more', 'b', '1', 'plain'), undefined);
  });
});
