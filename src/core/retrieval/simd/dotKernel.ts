/// <reference path="./webassembly.d.ts" />
/**
 * The SIMD dot-product kernel (dotKernel.wat), compiled once and instantiated
 * per vector memory. Synchronous on purpose: the index loader and the scans are.
 */
import { DOT_KERNEL_WASM_BASE64 } from './dotKernelWasm';

/** Byte addresses into the instance's memory; see dotKernel.wat for the layout. */
export interface DotKernel {
  /** out[4r + i] = <row r, q_i> in float64, bit-identical to JS; row r at mat + r * stride. */
  exact4(mat: number, rows: number, dim: number, stride: number, q: number, out: number): void;
  /** out[r] ≈ <row r, q> in float32; norms[r] = sum of the row's squares (float32). Packed rows. */
  approx1(mat: number, rows: number, dim: number, q: number, out: number, norms: number): void;
  /** out[8r + i] ≈ <row r, q_i> in float32, eight float32 queries; norms as approx1. */
  approx8(mat: number, rows: number, dim: number, q: number, out: number, norms: number): void;
  /** out[r] = exact int32 dot product of int8 row r (packed at mat8) with the int16 query. */
  dot8(mat8: number, rows: number, dim: number, q16: number, out: number): void;
  /** out[8r + i] = dot8 of row r with query i, eight int16 queries interleaved by 16 components (dotKernel.wat). */
  dot8x8(mat8: number, rows: number, dim: number, q16: number, out: number): void;
  /** The int8 copy of packed float32 rows: codes, float32 inverse scale and int32 sum of |codes| per row. */
  quantize(mat: number, rows: number, dim: number, codes: number, invs: number, abs: number): void;
  /** acc[docs[p]] += w · impact[p] for p in [from, to), as JS adds into Float32Arrays (PostingsIndex). */
  accumulate(docs: number, imp: number, acc: number, from: number, to: number, w: number): void;
}

let bytes: Uint8Array<ArrayBuffer> | undefined;
let compiled: WebAssembly.Module | undefined;

/**
 * The compiled kernel, or undefined where WebAssembly or its SIMD extension is
 * missing. Validation runs on every call (microseconds, once per index load) so
 * a runtime without SIMD is detected even after another one compiled it.
 */
export function dotKernelModule(): WebAssembly.Module | undefined {
  if (typeof WebAssembly !== 'object' || typeof WebAssembly.validate !== 'function') return undefined;
  bytes ??= Uint8Array.from(Buffer.from(DOT_KERNEL_WASM_BASE64, 'base64'));
  if (!WebAssembly.validate(bytes)) return undefined;
  return (compiled ??= new WebAssembly.Module(bytes));
}

function instantiateDotKernel(module: WebAssembly.Module, memory: WebAssembly.Memory): DotKernel {
  const { exports } = new WebAssembly.Instance(module, { env: { memory } });
  return exports as unknown as DotKernel;
}

/** Beyond this a memory may not be allocatable on every platform: callers then use typed arrays and JS. */
export const MAX_KERNEL_BYTES = 2 ** 31;
export const KERNEL_PAGE = 65536;

/**
 * A memory of `pages` with the kernel instantiated on it, or undefined where the kernel cannot
 * run (no WebAssembly SIMD) or the address space is refused: the caller then uses typed arrays
 * and its JS loops. The memory is never grown, so views on its buffer stay valid for its life.
 */
export function kernelMemory(pages: number): { memory: WebAssembly.Memory; kernel: DotKernel } | undefined {
  const module = dotKernelModule();
  if (!module) return undefined;
  let memory: WebAssembly.Memory;
  try {
    memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
  } catch {
    return undefined;
  }
  return { memory, kernel: instantiateDotKernel(module, memory) };
}
