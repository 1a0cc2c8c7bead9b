/**
 * Page images for OCR, made by pdf.js. A scanned page is, in the file, one big
 * image drawn over the page: that image is taken as it is (no rendering, no
 * canvas, the scan's own resolution). Other pages (a scan with drawn overlays,
 * an old OCR layer over vector art) are rendered at 300 dpi when a canvas
 * (@napi-rs/canvas) can be loaded. Images go to Tesseract as 8-bit grey PGM:
 * Leptonica reads it without decoding (measured faster than PNG).
 */
import { ensurePdfRuntime } from './runtime';

export interface PageImage {
  page: number;
  /** PGM (P5) bytes, or undefined when the page has nothing to recognise. */
  image?: Uint8Array;
  width?: number;
  height?: number;
  how?: 'embedded' | 'rendered';
  /** Why there is no image ("no image on the page", "cannot render: …"). */
  note?: string;
}

export interface PageImageOptions {
  /** 'auto' (embedded image, else render), or force one way (benchmarks compare them). */
  mode?: 'auto' | 'embedded' | 'render';
  /** Render resolution (default 300 dpi). */
  dpi?: number;
}

/** An embedded image must cover this share of the page to stand for it. */
const MIN_COVER = 0.5;
/** Smallest side (pixels) of an image worth recognising. */
const MIN_SIDE = 300;

interface PdfJsImage {
  width: number;
  height: number;
  kind?: number;
  data?: Uint8Array | Uint8ClampedArray;
}
interface PdfJsObjs {
  has(id: string): boolean;
  get(id: string, cb: (o: PdfJsImage) => void): void;
}
interface PdfJsPage {
  view: number[];
  objs: PdfJsObjs;
  commonObjs: PdfJsObjs;
  getOperatorList(): Promise<{ fnArray: number[]; argsArray: unknown[][] }>;
  getViewport(o: { scale: number }): { width: number; height: number; transform: number[] };
  render(o: object): { promise: Promise<void> };
  cleanup(): void;
}
interface PdfJsDoc {
  numPages: number;
  getPage(n: number): Promise<PdfJsPage>;
  canvasFactory?: { create(w: number, h: number): { canvas: unknown; context: CanvasCtx } };
}
interface CanvasCtx {
  getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
  fillStyle: string;
  fillRect(x: number, y: number, w: number, h: number): void;
}

export async function pageImages(data: Uint8Array, pages: number[], opts: PageImageOptions = {}): Promise<PageImage[]> {
  const mod = await ensurePdfRuntime();
  const parser = new mod.PDFParse({ data: new Uint8Array(data) });
  const out: PageImage[] = [];
  try {
    const doc = (await (parser as unknown as { load(): Promise<PdfJsDoc> }).load()) as PdfJsDoc;
    for (const n of pages) {
      if (n < 1 || n > doc.numPages) {
        out.push({ page: n, note: 'no such page' });
        continue;
      }
      let page: PdfJsPage | undefined;
      try {
        page = await doc.getPage(n);
        let img: PageImage | undefined;
        if (opts.mode !== 'render') img = await embeddedImage(page, n);
        if (!img && opts.mode !== 'embedded') img = await renderPage(doc, page, n, opts.dpi ?? 300);
        out.push(img ?? { page: n, note: 'no image on the page' });
      } catch (err) {
        out.push({ page: n, note: `cannot read the page image (${(err as Error).message})` });
      } finally {
        page?.cleanup();
      }
    }
  } finally {
    await parser.destroy().catch(() => undefined);
  }
  return out;
}

interface Ops {
  paintImageXObject: number;
  paintInlineImageXObject: number;
  transform: number;
  save: number;
  restore: number;
  hasImage: Set<number>;
  hasText: Set<number>;
}

/**
 * pdf.js operator codes (pdfjs-dist 5.4, the copy inside pdf-parse, which does not export them;
 * loading pdfjs-dist beside it would load pdf.js twice). Stable across pdf.js releases;
 * the OCR tests fail if they move (scanned pages would find no image).
 */
/** pdf.js's operators that draw an image (paintImageMaskXObject, paintImageXObject, paintInlineImageXObject). */
export const IMAGE_OPS: ReadonlySet<number> = new Set([83, 85, 86]);

const OPS: Ops = {
  paintImageXObject: 85,
  paintInlineImageXObject: 86,
  transform: 12,
  save: 10,
  restore: 11,
  hasImage: IMAGE_OPS as Set<number>,
  // showText, showSpacedText, nextLineShowText, nextLineSetSpacingShowText
  hasText: new Set([44, 45, 46, 47]),
};

/**
 * The largest image a page draws (an image XObject) and the share of the page it covers: a scan
 * covers most of it. From the page's operator list, following the transformation matrix.
 */
export function largestImage(list: { fnArray: number[]; argsArray: unknown[][] }, view: number[]): { id: string; cover: number } | undefined {
  const [x0, y0, x1, y1] = view;
  const pageArea = Math.abs((x1 - x0) * (y1 - y0));
  let ctm = [1, 0, 0, 1, 0, 0];
  const stack: number[][] = [];
  let best: { id: string; area: number } | undefined;
  for (let i = 0; i < list.fnArray.length; i++) {
    const fn = list.fnArray[i];
    const args = list.argsArray[i];
    if (fn === OPS.save) stack.push(ctm);
    else if (fn === OPS.restore) ctm = stack.pop() ?? [1, 0, 0, 1, 0, 0];
    else if (fn === OPS.transform) ctm = multiply(ctm, args as number[]);
    else if (fn === OPS.paintImageXObject) {
      // The image fills the unit square mapped by the CTM: its area on the page is |det|.
      const area = Math.abs(ctm[0] * ctm[3] - ctm[1] * ctm[2]);
      if (!best || area > best.area) best = { id: String(args[0]), area };
    }
  }
  return best && pageArea > 0 ? { id: best.id, cover: best.area / pageArea } : undefined;
}

/** Whether a page is a scan: an image over most of it. */
export function isScanPage(list: { fnArray: number[]; argsArray: unknown[][] }, view: number[]): boolean {
  return (largestImage(list, view)?.cover ?? 0) >= MIN_COVER;
}

/** The page's largest image, when it covers most of the page (a scan). */
async function embeddedImage(page: PdfJsPage, n: number): Promise<PageImage | undefined> {
  const list = await page.getOperatorList();
  const best = largestImage(list, page.view);
  if (!best || best.cover < MIN_COVER) return undefined;
  const objs = page.commonObjs.has(best.id) ? page.commonObjs : page.objs;
  const img = await new Promise<PdfJsImage | undefined>((resolve) => {
    try {
      objs.get(best!.id, (o) => resolve(o));
    } catch {
      resolve(undefined);
    }
  });
  if (!img?.data || Math.min(img.width, img.height) < MIN_SIDE) return undefined;
  const grey = toGrey(img.data, img.width, img.height, img.kind);
  if (!grey) return undefined;
  return { page: n, image: pgm(grey, img.width, img.height), width: img.width, height: img.height, how: 'embedded' };
}

function multiply(a: number[], b: number[]): number[] {
  return [
    b[0] * a[0] + b[1] * a[2],
    b[0] * a[1] + b[1] * a[3],
    b[2] * a[0] + b[3] * a[2],
    b[2] * a[1] + b[3] * a[3],
    b[4] * a[0] + b[5] * a[2] + a[4],
    b[4] * a[1] + b[5] * a[3] + a[5],
  ];
}

/** pdf.js image kinds: 1 = 1 bit per pixel grey, 2 = RGB 24 bpp, 3 = RGBA 32 bpp. */
function toGrey(src: Uint8Array | Uint8ClampedArray, w: number, h: number, kind: number | undefined): Uint8Array | undefined {
  const n = w * h;
  const out = new Uint8Array(n);
  if (kind === 1) {
    const rowBytes = (w + 7) >> 3;
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) out[y * w + x] = (src[y * rowBytes + (x >> 3)] >> (7 - (x & 7))) & 1 ? 255 : 0;
    return out;
  }
  const bpp = kind === 2 ? 3 : kind === 3 ? 4 : Math.round(src.length / n);
  if (bpp !== 1 && bpp !== 3 && bpp !== 4) return undefined;
  if (bpp === 1) return new Uint8Array(src.subarray(0, n));
  for (let i = 0, j = 0; i < n; i++, j += bpp) out[i] = (src[j] * 77 + src[j + 1] * 150 + src[j + 2] * 29) >> 8;
  return out;
}

function pgm(grey: Uint8Array, w: number, h: number): Uint8Array {
  const head = new TextEncoder().encode(`P5\n${w} ${h}\n255\n`);
  const out = new Uint8Array(head.length + grey.length);
  out.set(head);
  out.set(grey, head.length);
  return out;
}

/** Renders the page at `dpi` on a @napi-rs/canvas canvas (pdf.js's own canvas factory in Node). */
async function renderPage(doc: PdfJsDoc, page: PdfJsPage, n: number, dpi: number): Promise<PageImage | undefined> {
  // Only pages with images (a scan cut in strips, a scan under drawn marks) or with a text layer
  // (a garbage one: why the page is here) are rendered; vector drawing alone holds no text to read.
  const list = await page.getOperatorList();
  if (!list.fnArray.some((f) => OPS.hasImage.has(f) || OPS.hasText.has(f))) return undefined;
  if (!doc.canvasFactory) return { page: n, note: 'cannot render the page: no canvas available' };
  const viewport = page.getViewport({ scale: dpi / 72 });
  const w = Math.ceil(viewport.width);
  const h = Math.ceil(viewport.height);
  let made;
  try {
    made = doc.canvasFactory.create(w, h);
  } catch (err) {
    return { page: n, note: `cannot render the page: no canvas available (${(err as Error).message})` };
  }
  made.context.fillStyle = '#ffffff';
  made.context.fillRect(0, 0, w, h);
  await page.render({ canvasContext: made.context, viewport, canvas: made.canvas }).promise;
  const rgba = made.context.getImageData(0, 0, w, h).data;
  const grey = toGrey(rgba, w, h, 3)!;
  return { page: n, image: pgm(grey, w, h), width: w, height: h, how: 'rendered' };
}
