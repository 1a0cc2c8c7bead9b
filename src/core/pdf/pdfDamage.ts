/**
 * Structural checks on a PDF's bytes that say whether pdf.js will have to repair
 * it: pdf.js rebuilds a missing or wrong cross-reference table silently, so the
 * only way to tell the user a file was damaged is to look before it does.
 */

const latin1 = new TextDecoder('latin1');

/** A short description of the damage ("damaged cross-reference table"), or undefined when the file looks sound. */
export function structuralDamage(data: Uint8Array): string | undefined {
  const tailStart = Math.max(0, data.length - 2048);
  const tail = latin1.decode(data.subarray(tailStart));
  const truncated = !/%%EOF\s*$/.test(tail.slice(-64)) && !/%%EOF/.test(tail);
  const m = /startxref\s+(\d+)\s*(?:%%EOF)?\s*$/.exec(tail) ?? lastMatch(/startxref\s+(\d+)/g, tail);
  if (!m) return truncated ? 'truncated file (no cross-reference table at its end)' : 'damaged cross-reference table (no startxref)';
  const at = Number(m[1]);
  if (!Number.isSafeInteger(at) || at >= data.length) return 'damaged cross-reference table (it points past the end of the file)';
  const head = latin1.decode(data.subarray(at, Math.min(data.length, at + 64)));
  if (/^\s*xref\b/.test(head)) {
    const bad = badXrefEntries(data, at);
    if (bad > 0) return `damaged cross-reference table (${bad} object offset${bad > 1 ? 's' : ''} wrong)`;
  } else if (!/^\s*\d+\s+\d+\s+obj\b/.test(head)) {
    return 'damaged cross-reference table (startxref points at nothing)';
  }
  return truncated ? 'truncated file (no %%EOF marker)' : undefined;
}

function lastMatch(re: RegExp, s: string): RegExpExecArray | null {
  let last: RegExpExecArray | null = null;
  for (let m = re.exec(s); m; m = re.exec(s)) last = m;
  return last;
}

/**
 * Counts in-use entries of a classic xref table (the one startxref names) whose
 * offset does not start "N G obj". Bounded: a table of 100k objects reads 100k
 * short slices, a few milliseconds.
 */
function badXrefEntries(data: Uint8Array, at: number): number {
  // The table ends at "trailer"; read at most 20 bytes per entry for up to 1M entries.
  const end = Math.min(data.length, at + 20 * 1_000_000 + 64);
  const text = latin1.decode(data.subarray(at, end));
  const stop = text.indexOf('trailer');
  const lines = (stop >= 0 ? text.slice(0, stop) : text).split(/\r\n|\r|\n/);
  let bad = 0;
  let num = 0;
  for (const raw of lines.slice(1)) {
    const line = raw.trim();
    if (!line) continue;
    const sub = /^(\d+)\s+(\d+)$/.exec(line);
    if (sub) {
      num = Number(sub[1]);
      continue;
    }
    const e = /^(\d{10})\s+(\d{5})\s+([nf])$/.exec(line);
    if (!e) break;
    if (e[3] === 'n') {
      const off = Number(e[1]);
      const obj = latin1.decode(data.subarray(off, Math.min(data.length, off + 32)));
      const m = /^\s*(\d+)\s+\d+\s+obj\b/.exec(obj);
      if (!m || Number(m[1]) !== num) bad++;
    }
    num++;
  }
  return bad;
}

/**
 * A truncated download loses the trailer that names the document catalog, and
 * pdf.js cannot start without it. When the catalog object survives, a trailer
 * naming it is appended (no startxref: pdf.js then rebuilds the table by
 * scanning the objects), so the pages that did arrive can still be read.
 * Undefined when there is no catalog to name.
 */
export function withRecoveryTrailer(data: Uint8Array): Uint8Array | undefined {
  const text = latin1.decode(data);
  const m = /(\d+)\s+(\d+)\s+obj\s*<<(?:(?!endobj)[\s\S]){0,400}?\/Type\s*\/Catalog\b/.exec(text);
  if (!m) return undefined;
  let size = 0;
  for (const o of text.matchAll(/(\d+)\s+\d+\s+obj\b/g)) size = Math.max(size, Number(o[1]) + 1);
  // Close the object the cut fell in, so the scan does not read the trailer as its content.
  const lastObj = text.lastIndexOf(' obj');
  const open = lastObj > text.lastIndexOf('endobj');
  const close = open ? (text.lastIndexOf('stream') > lastObj && text.lastIndexOf('endstream') < lastObj ? '\nendstream\nendobj' : '\nendobj') : '';
  const trailer = new TextEncoder().encode(`${close}\ntrailer\n<< /Size ${size} /Root ${m[1]} ${m[2]} R >>\n%%EOF\n`);
  const out = new Uint8Array(data.length + trailer.length);
  out.set(data);
  out.set(trailer, data.length);
  return out;
}

/** The page count the file's page tree declares (the largest /Count of a /Type /Pages node), when it can be read. */
export function declaredPageCount(data: Uint8Array): number | undefined {
  const text = latin1.decode(data);
  let max: number | undefined;
  for (const m of text.matchAll(/\/Type\s*\/Pages\b[^]{0,2000}?\/Count\s+(\d+)|\/Count\s+(\d+)[^]{0,2000}?\/Type\s*\/Pages\b/g)) {
    const n = Number(m[1] ?? m[2]);
    if (Number.isSafeInteger(n) && n < 1_000_000) max = Math.max(max ?? 0, n);
  }
  return max;
}
