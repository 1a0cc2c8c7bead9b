/**
 * Loads the engine bundle (dist/engine.js, the engine API of src/engine) on
 * first use. The extension bundle holds only the thin VS Code adapters, so
 * activation loads no remark, pdf.js or index code; the host sees the engine
 * through its API only (types here, values through this loader).
 */
import * as path from 'node:path';
import type * as EngineApi from '../engine';

export type Engine = typeof EngineApi;

let engine: Engine | undefined;

export function loadEngine(): Engine {
  if (!engine) {
    // A computed path keeps esbuild from inlining the engine into the extension bundle.
    const file = path.join(__dirname, 'engine.js');
    engine = require(file) as Engine;
  }
  return engine;
}
