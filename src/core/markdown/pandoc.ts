/**
 * Quarto and R Markdown (Pandoc Markdown) read as the Markdown parser reads
 * prose: what Pandoc adds to CommonMark that is not prose is blanked before
 * parsing, space for character, so every offset, line and column stays where
 * the author sees it. Fenced div marks (`::: {.callout-note}`, `:::`) — the
 * div's prose is segmented like any other; shortcodes (`{{< pagebreak >}}`);
 * inline executable code (`` `r nrow(df)` ``, `` `{python} x` ``) and raw
 * inline content (`` `<b>`{=html} ``); attributes (`{#fig-map width=50%}`,
 * `[text]{.smallcaps}`, `## Title {#sec-intro}`); a caption's `: ` mark; bookdown references
 * (`\@ref(fig:map)`). Executable chunks (```` ```{r} ````, with their `#|`
 * options) and raw blocks (```` ```{=html} ````) are fenced code for the
 * parser already, and are left alone, as is the front matter.
 *
 * Every Markdown draft goes through this: the same syntax in a `.md` written
 * for Pandoc (or Hugo's shortcodes, Docusaurus's `:::note`) is no prose either.
 * Each pass is linear in the line (no expression that can backtrack over it).
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const DIV_MARK = /^ {0,3}:{3,}/;
const INLINE_CHUNK = /`(?:r|\{[A-Za-z][\w-]*\}) [^`\n]*`/g;
const RAW_INLINE = /`[^`\n]*`\{=[\w-]+\}/g;
const ATTRIBUTES = /([\])])\{([^{}\n]*)\}/g;
/** Attributes closing a line: a heading's (`## Title {#sec-intro}`), a caption's (`: Prices {#tbl-prices}`). */
const LINE_ATTRIBUTES = /^(.*?)[ \t]\{([#.][^{}\n]*|-)\}[ \t]*$/;
/** A table caption's `Table: `, or its `: ` when the caption ends with attributes (a definition's `: ` is left alone). */
const CAPTION_MARK = /^Table:(?=[ \t]+\S)/;
const SHORT_CAPTION_MARK = /^:(?=[ \t]+\S)/;
const BOOKDOWN_REF = /\\@ref\([\w:.-]*\)|\(\\#[\w:.-]+\)/g;

const blank = (s: string) => s.replace(/[^\r\n]/g, ' ');

/** The draft with Pandoc's non-prose constructs blanked (same length, same line breaks). */
export function pandocAsMarkdown(source: string): string {
  if (!mayHavePandoc(source)) return source;
  const lines = source.split(/(?<=\n)/);
  let i = frontMatterLines(lines);
  let fence: string | undefined;
  for (; i < lines.length; i++) {
    const line = lines[i];
    const f = FENCE.exec(line);
    if (fence) {
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length && line.trim() === f[1]) fence = undefined;
      continue;
    }
    if (f) {
      fence = f[1];
      continue;
    }
    lines[i] = DIV_MARK.test(line) ? blank(line) : blankInline(line);
  }
  return lines.join('');
}

/** A cheap test that spares a draft with none of Pandoc's marks every pass. */
function mayHavePandoc(s: string): boolean {
  return (
    s.includes(':::') ||
    s.includes('{{') ||
    s.includes('`') ||
    s.includes(']{') ||
    s.includes('){') ||
    s.includes('{#') ||
    s.includes('{.') ||
    s.includes('\\@') ||
    s.includes('(\\#')
  );
}

function blankInline(line: string): string {
  const eol = /\r?\n$/.exec(line)?.[0] ?? '';
  let out = blankShortcodes(line.slice(0, line.length - eol.length));
  out = out.replace(INLINE_CHUNK, blank).replace(RAW_INLINE, blank).replace(BOOKDOWN_REF, blank);
  // `{…}` right after `]` or `)`: attributes when they name an id, a class or a key=value.
  out = out.replace(ATTRIBUTES, (m: string, close: string, inner: string) => (/^\s*[#.]|=/.test(inner) ? close + blank(m.slice(1)) : m));
  const h = LINE_ATTRIBUTES.exec(out);
  if (h) out = h[1] + blank(out.slice(h[1].length));
  out = out.replace(CAPTION_MARK, blank);
  if (h) out = out.replace(SHORT_CAPTION_MARK, blank);
  return out + eol;
}

/** `{{< … >}}` and `{{% … %}}` blanked; scanning stops at the first one left open. */
function blankShortcodes(line: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const at = line.indexOf('{{', from);
    if (at < 0) break;
    const kind = line[at + 2];
    if (kind !== '<' && kind !== '%') {
      out += line.slice(from, at + 2);
      from = at + 2;
      continue;
    }
    const close = line.indexOf(`${kind === '<' ? '>' : '%'}}}`, at + 3);
    if (close < 0) break;
    out += line.slice(from, at) + blank(line.slice(at, close + 3));
    from = close + 3;
  }
  return out + line.slice(from);
}

/** How many lines the YAML front matter takes (0 when there is none). */
function frontMatterLines(lines: string[]): number {
  if (lines[0]?.trim() !== '---') return 0;
  for (let i = 1; i < lines.length; i++) if (/^(---|\.\.\.)\s*$/.test(lines[i])) return i + 1;
  return 0;
}

export interface DraftFrontMatter {
  title?: string;
  /** The files of `bibliography:` (one, or a list), as written (relative to the draft). */
  bibliography: string[];
  csl?: string;
}

/**
 * `title`, `bibliography` and `csl` from the draft's YAML front matter: top-level keys only, a value
 * plain or quoted, a list in brackets or as `- ` lines below the key. Nothing else is read.
 */
export function draftFrontMatter(source: string): DraftFrontMatter {
  const lines = source.replace(/^\ufeff/, '').split(/\r?\n/);
  const n = frontMatterLines(lines);
  const out: DraftFrontMatter = { bibliography: [] };
  for (let i = 1; i < n - 1; i++) {
    const m = /^(title|bibliography|csl):[ \t]*(.*)$/.exec(lines[i]);
    if (!m) continue;
    const value = m[2].replace(/^(\[[^\]]*\])[ \t]+#.*$/, '$1').trim();
    let values: string[];
    if (value.startsWith('[') && value.endsWith(']')) values = value.slice(1, -1).split(',').map(unquote);
    else if (value) values = [unquote(value)];
    else {
      values = [];
      while (i + 1 < n - 1 && /^[ \t]+-[ \t]+/.test(lines[i + 1])) values.push(unquote(lines[++i].replace(/^[ \t]+-[ \t]+/, '')));
    }
    values = values.filter(Boolean);
    if (!values.length) continue;
    if (m[1] === 'bibliography') out.bibliography.push(...values);
    else out[m[1] as 'title' | 'csl'] = values[0];
  }
  return out;
}

function unquote(v: string): string {
  const s = v.trim();
  if (s.length >= 2 && s[0] === '"' && s.endsWith('"')) return s.slice(1, -1).replace(/\\(.)/g, '$1');
  if (s.length >= 2 && s[0] === "'" && s.endsWith("'")) return s.slice(1, -1).replace(/''/g, "'");
  // A comment after a plain value.
  return s.replace(/[ \t]+#.*$/, '');
}
