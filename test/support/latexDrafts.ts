/**
 * Random LaTeX drafts for the tests that read a draft in pieces and whole (issue 35): paragraphs of
 * words, commands with their arguments (citations, quotations, notes, emphasis, commands of no
 * signature and of CTAN's), math, comments, `\verb`, sections, lists, quotations, floats, math,
 * verbatim and tables, environments nested in environments, blank lines of every kind. `prose`
 * makes most of a paragraph words (long paragraphs a small piece size must cut between words);
 * `malformed` adds what LaTeX does not compile (a `{` or `}` alone, `\begin{quote}` never closed, a
 * stray `\end{itemize}`, `&` and `^` in text), where the pieces may be read otherwise than whole.
 * Deterministic: one draft per seed.
 */

export interface DraftOptions {
  prose?: boolean;
  malformed?: boolean;
}

/** A xorshift generator: a number below `n`. */
export function rng(seed: number): (n: number) => number {
  let x = seed >>> 0 || 1;
  return (n: number) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

const WORDS = [
  'grain',
  'licence',
  'price',
  'Market',
  'harvest',
  'port',
  'crown',
  'bread',
  'credit',
  'famine',
  'ship',
  'trade',
  'city',
  'é',
  'x',
  '1590',
  'e.g.',
  'p.',
];
const COMMANDS = ['\\%', '\\&', '\\$', '\\_', '\\#', '\\{', '\\}', '\\,', '\\ ', "\\'e", '\\"{o}', '\\LaTeX{}', '\\ldots', '~', '--', '---', "``q''"];
const OTHERS = [
  '\\textsuperscript{x}',
  '\\hyperref[x]{y}',
  '\\ie',
  '\\(x^2\\)',
  '\\[ {a} \\]',
  '\\textcolor{red}{w}',
  '\\footnotemark[2]',
  '\\url{http://x}',
  '\\mbox{m b}',
  '\\hbox{h}',
  '\\def\\x{y}',
  '\\noindent',
  '\\gls{t}',
];
const ODD = ['\\emph*{x}', '\\cite [p] {k}', '\\emph\n{é}', '\\section<2>{T}', '\\cite[a [b] c]{k}', '\\emph% c\n{x}', '\\\\[2pt]'];
const MALFORMED = ['{', '}', '[', ']', '\\begin{quote}', '\\end{itemize}', '&', '#', '^', '_'];
const ENVS = ['theorem', 'proof', 'center', 'abstract', 'remark', 'multicols', 'spacing'];

export function latexDraft(seed: number, opts: DraftOptions = {}): string {
  const r = rng(seed);
  const pick = <T>(a: readonly T[]) => a[r(a.length)];
  const word = () => pick(WORDS);
  const inline = (depth: number): string => {
    const k = opts.prose && r(5) ? 99 : r(opts.malformed ? 32 : 30);
    if (depth > 3 && k < 20) return word();
    switch (k) {
      case 0:
        return `\\emph{${phrase(depth + 1)}}`;
      case 1:
        return `\\textbf {${phrase(depth + 1)}}`;
      case 2:
        return `\\footnote{${phrase(depth + 1)}${r(4) ? '' : '\n\n' + phrase(depth + 1)}}`;
      case 3:
        return `\\cite[p.~${r(300)}]{k${r(9)}}`;
      case 4:
        return '\\autocite[see][12]{a,b}';
      case 5:
        return `\\textquote[{\\cite{a}}]{${phrase(depth + 1)}}${r(2) ? '[.]' : ''}`;
      case 6:
        return `\\enquote{${phrase(depth + 1)}}`;
      case 7:
        return `$x^${r(9)}$`;
      case 8:
        return pick(COMMANDS);
      case 9:
        return `\\label{l${r(9)}}`;
      case 10:
        return `\\ref{l${r(9)}}`;
      case 11:
        return `% comment ${word()}\n`;
      case 12:
        return `\\foo${r(2) ? '{' + phrase(depth + 1) + '}' : ''}`;
      case 13:
        return '\\verb|x{y|';
      case 14:
        return `{\\small ${phrase(depth + 1)}}`;
      case 15:
        return '\\\\';
      case 16:
        return `\\href{u}{${word()}}`;
      case 17:
        return '\\cites(see)()[12]{a}[14]{b}';
      case 18:
        return `\\footnote[3]{${phrase(depth + 1)}}`;
      case 19:
        return `\\textcquote[p.~3]{k}[.]{${phrase(depth + 1)}}`;
      case 20:
        return pick(OTHERS);
      case 21:
        return pick(ODD);
      case 30:
      case 31:
        return pick(MALFORMED);
      default:
        return word();
    }
  };
  const phrase = (depth: number) => Array.from({ length: 1 + r(opts.prose ? 20 : 6) }, () => inline(depth)).join(r(8) ? ' ' : r(2) ? '\n' : '');
  const para = () => Array.from({ length: 1 + r(5) }, () => phrase(0) + '.').join(r(3) ? ' ' : '\n');
  const block = (depth: number): string => {
    switch (r(24)) {
      case 0:
        return `\\section{${phrase(2)}}`;
      case 1:
        return `\\subsection*{${word()}}\\label{s}`;
      case 2:
        return `\\paragraph{${word()}.} ${para()}`;
      case 3:
        return `\\begin{itemize}\n${Array.from({ length: 1 + r(3) }, () => `  \\item${r(3) ? '' : '[b)]'} ${para()}`).join('\n')}\n\\end{itemize}`;
      case 4:
        return `\\begin{quote}\n${para()}${r(2) ? '\n\n' + para() : ''}\n\\end{quote}`;
      case 5:
        return `\\begin{figure}[ht]\n\\centering\n\\includegraphics[width=3cm]{f}\n\\caption{${phrase(1)}}\n\\end{figure}`;
      case 6:
        return '\\begin{equation}\n  p = \\alpha{} s^2 \\label{eq}\n\\end{equation}';
      case 7:
        return '\\begin{verbatim}\n\\section{no} {\n\n\\end{verbatim}';
      case 8:
        return '\\begin{tabular}{lr} a & b \\\\ \\end{tabular}';
      case 9:
        return depth < 2 ? `\\begin{minipage}{5cm}\n${block(depth + 1)}\n\n${block(depth + 1)}\n\\end{minipage}` : para();
      case 10:
        return depth < 2 ? `\\begin{otherlanguage}{french}\n${block(depth + 1)}\n\n${block(depth + 1)}\n\\end{otherlanguage}` : para();
      case 11:
        return '% a comment line\n% another \\cite{x}';
      case 12:
        return `\\[ x \\]\n${para()}`;
      case 13:
        return `\\begin{enumerate}\n\\item ${para()}\n\n\\item ${para()}\n\\end{enumerate}`;
      case 14:
        return `\\title{${word()} ${word()}}`;
      case 15: {
        const e = pick(ENVS);
        return `\\begin{${e}}${r(2) ? '{2}' : ''}\n${para()}\n\\end{${e}}`;
      }
      default:
        return para();
    }
  };
  const sep = () => pick(['\n\n', '\n\n', '\n  \n', '\n', '\n\n\n', ' %c\n\n', '\n\n% c\n']);
  const body = Array.from({ length: 2 + r(20) }, () => block(0))
    .map((b) => b + sep())
    .join('');
  const pre = r(4) ? `\\documentclass{article}\n${r(2) ? '\\title{The ' + word() + '}\n' : ''}\\begin{document}\n` : '';
  return pre + body + (pre ? '\\end{document}\n' : '');
}
