/// <reference path="./webassembly.d.ts" />
/**
 * Where the index's packed vectors live. When the SIMD kernel can scan them they
 * are allocated inside a WebAssembly.Memory, with the kernel's scratch space
 * (query slots, a block of scores and row norms) after them, and the caller gets a
 * plain Float32Array view: the rest of the code never knows. Vectors too big for
 * the kernel's memory (a 768-d model at a million passages: 3 GB) are an ordinary
 * Float32Array, and the memory holds only their int8 copy where that fits, which
 * the scans read, rescoring candidates from the array. Otherwise (no SIMD, a
 * dimension not a multiple of 4) the scans run in JS.
 */
import { runToEnd } from '../../util/timeSlices';
import { KERNEL_PAGE, kernelMemory, MAX_KERNEL_BYTES, type DotKernel } from './dotKernel';

/** Rows scored per kernel call. */
export const KERNEL_BLOCK_ROWS = 4096;

/** The kernel instance that owns a vector memory, and its scratch areas. */
export interface KernelMemory {
  readonly kernel: DotKernel;
  readonly dim: number;
  /** Bytes of the matrix at the start of the memory (rows * dim * 4). */
  readonly matrixBytes: number;
  /** Query slots: 4 float64 or 8 float32 vectors of dim (32 * dim bytes), two views. */
  readonly queryPtr: number;
  readonly queries64: Float64Array;
  readonly queries32: Float32Array;
  /** Scores of one block: up to 8 per row (float32) or 4 (float64), two views. */
  readonly outPtr: number;
  readonly out64: Float64Array;
  readonly out32: Float32Array;
  /** One float32 per row of a block: the row's sum of squares (approx kernels). */
  readonly normsPtr: number;
  readonly norms: Float32Array;
  /**
   * The int8 copy of the matrix for the scans (dot8, dot8x8), when dim is a
   * multiple of 16: rows * dim bytes, filled by quantizeVectors, then `quantRows`
   * says how many rows it covers, with each row's scale and sum of |codes|; and
   * room for eight int16 queries, `out` for eight int32 scores per row of a block.
   */
  readonly int8?: {
    ptr: number;
    codes: Int8Array;
    invPtr: number;
    inv: Float32Array;
    absPtr: number;
    absSum: Int32Array;
    queryPtr: number;
    query: Int16Array;
    out: Int32Array;
  };
  /** Rows the int8 copy covers (quantizeVectors). */
  quantRows?: number;
  /**
   * Where quantize reads rows of a matrix outside the memory (matrixBytes 0: only the
   * int8 copy is inside), QUANTIZE_STEP_ROWS at a time.
   */
  readonly staging?: { ptr: number; rows: Float32Array };
}

// Keyed by the memory's ArrayBuffer: the memory is never grown, so the buffer
// (and every view on it) stays valid for the memory's life, and entries go with it.
const owners = new WeakMap<ArrayBufferLike, KernelMemory>();

/** Rows quantised per step of `quantizing` (~10 ms at 512 dimensions). */
const QUANTIZE_STEP_ROWS = 8192;

/**
 * Byte layout of a kernel memory for rows x dim, or undefined when the kernel cannot take it.
 * `floatInside: false`: the layout for a matrix kept outside, its int8 copy inside (what
 * allocateVectors falls back to when the float32 rows do not fit; tests ask for it directly).
 */
export function kernelLayout(
  rows: number,
  dim: number,
  opts: { floatInside?: boolean } = {},
):
  | {
      matrixBytes: number;
      queryPtr: number;
      outPtr: number;
      normsPtr: number;
      stagingPtr?: number;
      int8Ptr?: number;
      invPtr?: number;
      absPtr?: number;
      query16Ptr?: number;
      pages: number;
    }
  | undefined {
  if (!Number.isInteger(rows) || !Number.isInteger(dim) || rows <= 0 || dim <= 0 || dim % 4 !== 0) return undefined;
  const inside = opts.floatInside !== false;
  const matrixBytes = inside ? rows * dim * 4 : 0; // a multiple of 16: what follows stays aligned
  const queryPtr = matrixBytes;
  const outPtr = queryPtr + 32 * dim;
  const normsPtr = outPtr + KERNEL_BLOCK_ROWS * 32;
  let total = normsPtr + KERNEL_BLOCK_ROWS * 4;
  // Rows kept outside reach quantize through a staging area, a step's worth at a time.
  const stagingPtr = inside ? undefined : total;
  if (!inside) total += Math.min(rows, QUANTIZE_STEP_ROWS) * dim * 4;
  if (total > MAX_KERNEL_BYTES) return inside && opts.floatInside === undefined ? kernelLayout(rows, dim, { floatInside: false }) : undefined;
  // The int8 copy (a quarter more memory) where dot8 can read it and it still fits.
  // Per row: dim int8 codes, a float32 inverse scale, an int32 sum of |codes|.
  if (dim % 16 === 0 && total + rows * (dim + 8) + dim * 16 <= MAX_KERNEL_BYTES) {
    const int8Ptr = total;
    const invPtr = int8Ptr + rows * dim;
    const absPtr = invPtr + rows * 4;
    const query16Ptr = absPtr + rows * 4;
    total = query16Ptr + dim * 16; // eight int16 queries
    return { matrixBytes, queryPtr, outPtr, normsPtr, stagingPtr, int8Ptr, invPtr, absPtr, query16Ptr, pages: Math.ceil(total / KERNEL_PAGE) };
  }
  // Rows kept outside with no int8 copy beside them: nothing for the kernel to scan.
  return inside ? { matrixBytes, queryPtr, outPtr, normsPtr, pages: Math.ceil(total / KERNEL_PAGE) } : undefined;
}

/**
 * A zeroed rows x dim matrix: inside kernel memory when the kernel can scan it, else an
 * ordinary array with, where it fits, a kernel memory for its int8 copy (`floatInside`:
 * tests choose the layout that the size would).
 */
export function allocateVectors(rows: number, dim: number, opts: { floatInside?: boolean } = {}): Float32Array {
  const layout = kernelLayout(rows, dim, opts);
  const km = layout && kernelMemory(layout.pages);
  if (!layout || !km) return new Float32Array(rows * dim); // no SIMD, or address space refused: JS scan
  const { buffer } = km.memory;
  const outside = layout.matrixBytes === 0 ? new Float32Array(rows * dim) : undefined;
  owners.set(outside?.buffer ?? buffer, {
    kernel: km.kernel,
    dim,
    matrixBytes: layout.matrixBytes,
    queryPtr: layout.queryPtr,
    queries64: new Float64Array(buffer, layout.queryPtr, 4 * dim),
    queries32: new Float32Array(buffer, layout.queryPtr, 8 * dim),
    outPtr: layout.outPtr,
    out64: new Float64Array(buffer, layout.outPtr, KERNEL_BLOCK_ROWS * 4),
    out32: new Float32Array(buffer, layout.outPtr, KERNEL_BLOCK_ROWS * 8),
    normsPtr: layout.normsPtr,
    norms: new Float32Array(buffer, layout.normsPtr, KERNEL_BLOCK_ROWS),
    int8:
      layout.int8Ptr !== undefined && layout.invPtr !== undefined && layout.absPtr !== undefined && layout.query16Ptr !== undefined
        ? {
            ptr: layout.int8Ptr,
            codes: new Int8Array(buffer, layout.int8Ptr, rows * dim),
            invPtr: layout.invPtr,
            inv: new Float32Array(buffer, layout.invPtr, rows),
            absPtr: layout.absPtr,
            absSum: new Int32Array(buffer, layout.absPtr, rows),
            queryPtr: layout.query16Ptr,
            query: new Int16Array(buffer, layout.query16Ptr, 8 * dim),
            out: new Int32Array(buffer, layout.outPtr, KERNEL_BLOCK_ROWS * 8),
          }
        : undefined,
    staging:
      outside && layout.stagingPtr !== undefined
        ? { ptr: layout.stagingPtr, rows: new Float32Array(buffer, layout.stagingPtr, Math.min(rows, QUANTIZE_STEP_ROWS) * dim) }
        : undefined,
  });
  return outside ?? new Float32Array(buffer, 0, rows * dim);
}

/**
 * Fills the int8 copy of the first `count` rows of a kernel-backed matrix, once
 * its vectors are in place (LibraryIndex.open), with the kernel's `quantize`:
 * each row scaled by its largest |component| to codes in −127…127. The
 * scans then read a quarter of the bytes. No-op for a matrix outside kernel
 * memory or without an int8 area.
 */
export function quantizeVectors(matrix: Float32Array, dim: number, count: number): void {
  runToEnd(quantizing(matrix, dim, count));
}

/** quantizeVectors a block of rows per step (rows are scaled one by one): a loader runs it in slices. */
export function* quantizing(matrix: Float32Array, dim: number, count: number): Generator<void, void> {
  const mem = owners.get(matrix.buffer);
  if (!mem?.int8 || mem.dim !== dim || matrix.byteOffset !== 0 || count <= 0 || count > mem.int8.inv.length) return;
  const { ptr, invPtr, absPtr } = mem.int8;
  const { staging } = mem;
  for (let r = 0; r < count; r += QUANTIZE_STEP_ROWS) {
    const n = Math.min(QUANTIZE_STEP_ROWS, count - r);
    // Rows outside the memory are copied in first, a step's worth at a time.
    if (staging) staging.rows.set(matrix.subarray(r * dim, (r + n) * dim));
    mem.kernel.quantize(staging ? staging.ptr : r * dim * 4, n, dim, ptr + r * dim, invPtr + r * 4, absPtr + r * 4);
    yield;
  }
  mem.quantRows = count;
}

/**
 * The kernel that can scan `count` float32 rows of `matrix` (a view returned by
 * allocateVectors, or a subarray of one), or undefined: then scan in JS (or int8For).
 */
export function kernelFor(matrix: Float32Array, dim: number, count: number): KernelMemory | undefined {
  const mem = owners.get(matrix.buffer);
  if (!mem || mem.dim !== dim) return undefined;
  if (matrix.byteOffset + count * dim * 4 > mem.matrixBytes) return undefined;
  return mem;
}

/** The kernel memory whose int8 copy covers the first `count` rows of `matrix` (as allocated), or undefined. */
export function int8For(matrix: Float32Array, dim: number, count: number): KernelMemory | undefined {
  const mem = owners.get(matrix.buffer);
  return mem?.int8 && mem.dim === dim && matrix.byteOffset === 0 && (mem.quantRows ?? 0) >= count ? mem : undefined;
}

/** Rows covered by the int8 copy of `matrix` (0 without one): tests, benchmarks. */
export function quantizedRows(matrix: Float32Array): number {
  return owners.get(matrix.buffer)?.quantRows ?? 0;
}

/** Whether `matrix` lives in kernel memory (tests, benchmarks). */
export function isKernelBacked(matrix: Float32Array): boolean {
  return (owners.get(matrix.buffer)?.matrixBytes ?? 0) > 0;
}
