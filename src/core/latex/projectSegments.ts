/**
 * A LaTeX draft's segments with those of the files it reads through `\input`, `\include` and
 * `\subfile` (issue 38, item 4), as "cited in" and the citation check read them: a thesis's main
 * file holding only `\input{chapters/…}` gets its chapters' paragraphs. Each file is segmented on
 * its own (segment.ts); its segments come in reading order, where the file is read, and carry the
 * file's workspace name (`file`, with an id of their own); the main file's carry none.
 */
import { lineOf, lineStarts } from '../../shared/lines';
import type { Granularity, Segment, SegmentedDocument, SegmentOptions } from '../markdown/segment';
import type { LatexProject } from './project';
import { segmentLatex } from './segment';

export async function segmentLatexProject(
  project: LatexProject,
  granularity: Granularity = 'paragraph',
  options: SegmentOptions = {},
): Promise<SegmentedDocument> {
  const [main] = project.files;
  const byName = new Map(project.files.map((f) => [f.name, f]));
  const segmented = new Map<string, Segment[]>();
  const warnings = [...project.warnings];
  let title: string | undefined;
  for (const f of project.files) {
    const d = await segmentLatex(f.text, granularity, options);
    segmented.set(f.name, d.segments);
    if (f === main) title = d.title;
    for (const w of d.warnings ?? []) warnings.push(f === main ? w : `${f.name}: ${w}`);
  }
  // Reading order: each stretch of a file up to the next \input, then the file it reads (project.parts).
  const out: Segment[] = [];
  const placed = new Set<Segment>();
  const starts = new Map<string, number[]>();
  const tag = (name: string, s: Segment): Segment => (name === main.name ? s : { ...s, id: `${name}#${s.id}`, file: name });
  for (const part of project.parts) {
    const name = part.file ?? main.name;
    const file = byName.get(name);
    if (!file) continue;
    let ls = starts.get(name);
    if (!ls) starts.set(name, (ls = lineStarts(file.text)));
    const first = lineOf(ls, part.from ?? 0);
    const last = lineOf(ls, Math.max(0, (part.to ?? file.text.length) - 1));
    for (const s of segmented.get(name) ?? [])
      if (!placed.has(s) && s.startLine >= first && s.startLine <= last) {
        placed.add(s);
        out.push(tag(name, s));
      }
  }
  // A segment no stretch holds (one opening on an \input's own line) keeps its file's order, at its file's end.
  for (const f of project.files) for (const s of segmented.get(f.name) ?? []) if (!placed.has(s)) out.push(tag(f.name, s));
  return { ...(title !== undefined ? { title } : {}), segments: out, ...(warnings.length ? { warnings } : {}) };
}
