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

export function instantiateDotKernel(module: WebAssembly.Module, memory: WebAssembly.Memory): DotKernel {
  const { exports } = new WebAssembly.Instance(module, { env: { memory } });
  return exports as unknown as DotKernel;
}
