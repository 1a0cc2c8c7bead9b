/**
 * The part of the WebAssembly JS API the SIMD kernel uses. Node has it as a
 * global, but @types/node 20 declares it only with the DOM library, which the
 * Node layers do not load (only the webviews see the DOM).
 */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: BufferSource);
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number; shared?: boolean });
    readonly buffer: ArrayBuffer;
    grow(delta: number): number;
  }
  class Instance {
    constructor(module: Module, imports?: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
  function validate(bytes: BufferSource): boolean;
}
