/**
 * Analysis results per document, kept in step with edits: segments move with
 * the lines above them, and a segment whose text changed is marked outdated
 * until the next analysis. Views (CodeLens, hover, panel) read from here.
 */
import * as vscode from 'vscode';
import { citationSpans } from '../shared/citation';
import { citedElsewhere, draftCitations, latexDraftCitations, sectionName } from '../shared/citedIn';
import type { DraftFormat } from '../shared/draftLanguages';
import { scanLatexCites } from '../shared/latexCite';
import { isLatexCitationText } from '../shared/latexEdits';
import { latexProjectParts } from './latexProject';
import type { SegmentView } from '../shared/protocol';
import type { Recommendation, SegmentStatus } from '../shared/results';

export interface TrackedSegment {
  id: string;
  type: string;
  title: string;
  /** 0-based, inclusive, in the current document. */
  start: number;
  end: number;
  status: SegmentStatus | 'outdated';
  cards: Recommendation[];
}

export interface DocumentResults {
  uri: string;
  documentTitle: string | null;
  fromCache: boolean;
  threshold: number;
  notice?: string;
  rerankNote?: string;
  rerankHint?: string;
  /** Results made while the model's vectors were being computed say so. */
  semanticNote?: string;
  segments: TrackedSegment[];
  /** How the draft is written (its citations are read accordingly); Markdown when absent. */
  format?: DraftFormat;
}

/** An inserted Pandoc citation or a citation link, alone, or a key joined to a citation ("; @b, p. 3"). */
const CITATION_ONLY = /^\s*(?:\^?\[[^\]\n]*@[^\]\n]*\]|\[[^\]\n]*\]\(<[^>\n]*>\)|;\s*-?@[^\]\n;]*)\s*$/;
/** Whether `text` is a citation and nothing else, in the draft's format. */
function isCitation(text: string, format: DraftFormat | undefined): boolean {
  return format === 'latex' ? isLatexCitationText(text) : CITATION_ONLY.test(text);
}

/** The citations of a line, as offsets of their start and end. */
function spansOf(line: string, format: DraftFormat | undefined): Array<{ start: number; end: number }> {
  return format === 'latex' ? scanLatexCites(line) : citationSpans(line);
}

/**
 * An edit that only adds or removes a citation (an insertion, or its undo), or
 * changes text inside one (a page adjusted at the snippet's tab stop).
 * `removed`: the text the edit replaced, when known.
 */
function citationOnly(
  document: vscode.TextDocument,
  c: vscode.TextDocumentContentChangeEvent,
  removed: string | undefined,
  format: DraftFormat | undefined,
): boolean {
  const added = c.text === '' || isCitation(c.text, format);
  const gone = c.rangeLength === 0 || (removed !== undefined && isCitation(removed, format));
  if (added && gone && (c.text !== '' || c.rangeLength > 0)) return true;
  if (c.range.start.line !== c.range.end.line || c.text.includes('\n') || c.range.start.line >= document.lineCount) return false;
  const start = c.range.start.character;
  const end = start + c.text.length;
  return spansOf(document.lineAt(c.range.start.line).text, format).some((s) => s.start < start && end < s.end);
}

export class ResultStore implements vscode.Disposable {
  private readonly docs = new Map<string, DocumentResults>();
  /** Each tracked document's text before the next edit: what an edit removed (an undone citation) is read from it. */
  private readonly texts = new Map<string, string>();
  private readonly emitter = new vscode.EventEmitter<string>();
  /** Fires with the document URI whose results changed. */
  readonly onDidChange = this.emitter.event;
  private readonly subscription: vscode.Disposable;

  constructor() {
    this.subscription = vscode.workspace.onDidChangeTextDocument((e) => this.applyEdits(e));
  }

  get(uri: vscode.Uri | string): DocumentResults | undefined {
    return this.docs.get(typeof uri === 'string' ? uri : uri.toString());
  }

  set(results: DocumentResults): void {
    this.docs.set(results.uri, results);
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === results.uri);
    if (open) {
      const text = open.getText();
      this.texts.set(results.uri, text);
      markCitations(results, text);
    } else this.texts.delete(results.uri);
    this.emitter.fire(results.uri);
  }

  /** Tells the views that results of `uri` changed in place. */
  touch(uri: string): void {
    this.emitter.fire(uri);
  }

  clear(): void {
    const uris = [...this.docs.keys()];
    this.docs.clear();
    this.texts.clear();
    for (const u of uris) this.emitter.fire(u);
  }

  segmentAt(uri: vscode.Uri | string, line: number): TrackedSegment | undefined {
    const doc = this.get(uri);
    if (!doc) return undefined;
    // The innermost (shortest) segment containing the line: a sentence rather than its section.
    let best: TrackedSegment | undefined;
    for (const s of doc.segments) {
      if (line >= s.start && line <= s.end && (!best || s.end - s.start < best.end - best.start)) best = s;
    }
    return best;
  }

  segment(uri: vscode.Uri | string, id: string): TrackedSegment | undefined {
    return this.get(uri)?.segments.find((s) => s.id === id);
  }

  private applyEdits(e: vscode.TextDocumentChangeEvent): void {
    const doc = this.docs.get(e.document.uri.toString());
    if (!doc || e.contentChanges.length === 0) return;
    // Changes are reported against the document before the event; apply bottom-up.
    const changes = [...e.contentChanges].sort((a, b) => b.range.start.line - a.range.start.line);
    const before = this.texts.get(doc.uri);
    let changed = false;
    for (const c of changes) {
      const first = c.range.start.line;
      const last = c.range.end.line;
      const delta = (c.text.match(/\n/g)?.length ?? 0) - (last - first);
      for (const s of doc.segments) {
        if (first > s.end) continue; // below the segment
        if (last < s.start) {
          s.start += delta;
          s.end += delta;
          changed ||= delta !== 0;
          continue;
        }
        // The edit touches the segment: its results no longer describe its text,
        // unless all it did was add a citation (ours, from "Insert citation").
        s.end = Math.max(s.start, s.end + delta);
        if (!citationOnly(e.document, c, before?.slice(c.rangeOffset, c.rangeOffset + c.rangeLength), doc.format)) s.status = 'outdated';
        changed = true;
      }
    }
    // A citation typed, inserted or deleted anywhere changes the "cited" marks of every segment.
    const text = e.document.getText();
    this.texts.set(doc.uri, text);
    if (markCitations(doc, text)) changed = true;
    if (changed) this.emitter.fire(doc.uri);
  }

  dispose(): void {
    this.subscription.dispose();
    this.emitter.dispose();
  }
}

/**
 * Marks each card from the draft's current text: `alreadyCited` when its
 * segment cites the source, `citedIn` with the other sections that do ("§ 2";
 * "" for the text before the first heading). True when a mark changed.
 */
export function markCitations(doc: DocumentResults, text: string): boolean {
  const citations =
    doc.format === 'latex'
      ? text.includes('\\')
        ? latexDraftCitations(latexProjectParts(doc.uri, text))
        : []
      : text.includes('@')
        ? draftCitations(text)
        : [];
  let changed = false;
  for (const s of doc.segments) {
    const elsewhere = citedElsewhere(citations, s.start, s.end);
    // The draft's own lines (a citation of an \input file has its file's name and lines).
    const here = new Set(citations.filter((c) => c.file === undefined && c.line >= s.start && c.line <= s.end).map((c) => c.key));
    for (const card of s.cards) {
      if (!card.citekey) continue;
      const cited = here.has(card.citekey);
      const where = (elsewhere.get(card.citekey) ?? []).map(sectionName);
      if (cited !== card.alreadyCited || where.join('\n') !== (card.citedIn ?? []).join('\n')) changed = true;
      card.alreadyCited = cited;
      if (where.length) card.citedIn = where;
      else delete card.citedIn;
    }
  }
  return changed;
}

export function toSegmentView(s: TrackedSegment): SegmentView {
  return { id: s.id, type: s.type, title: s.title, startLine: s.start + 1, endLine: s.end + 1, status: s.status, cards: s.cards };
}
