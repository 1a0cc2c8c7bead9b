/**
 * Analysis results per document, kept in step with edits: segments move with
 * the lines above them, and a segment whose text changed is marked outdated
 * until the next analysis. Views (CodeLens, hover, panel) read from here.
 */
import * as vscode from 'vscode';
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
  segments: TrackedSegment[];
}

/** An inserted Pandoc citation or a citation link, alone. */
const CITATION_ONLY = /^\s*(?:\^?\[[^\]\n]*@[^\]\n]*\]|\[[^\]\n]*\]\(<[^>\n]*>\))\s*$/;

export class ResultStore implements vscode.Disposable {
  private readonly docs = new Map<string, DocumentResults>();
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
    this.emitter.fire(results.uri);
  }

  /** Tells the views that results of `uri` changed in place. */
  touch(uri: string): void {
    this.emitter.fire(uri);
  }

  clear(): void {
    const uris = [...this.docs.keys()];
    this.docs.clear();
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
        if (!(c.range.isEmpty && CITATION_ONLY.test(c.text))) s.status = 'outdated';
        changed = true;
      }
    }
    if (changed) this.emitter.fire(doc.uri);
  }

  dispose(): void {
    this.subscription.dispose();
    this.emitter.dispose();
  }
}

export function toSegmentView(s: TrackedSegment): SegmentView {
  return { id: s.id, type: s.type, title: s.title, startLine: s.start + 1, endLine: s.end + 1, status: s.status, cards: s.cards };
}
