/**
 * Loads the engine bundle on first use. The extension bundle itself holds only
 * the thin VS Code adapters, so activation loads no remark, vectra or pdf-parse.
 */
import * as path from 'node:path';

export type Engine = typeof import('../engine');

let engine: Engine | undefined;

export function loadEngine(): Engine {
  if (!engine) {
    // A computed path keeps esbuild from inlining the engine into the extension bundle.
    const file = path.join(__dirname, 'engine.js');
    engine = require(file) as Engine;
  }
  return engine;
}

export function engineLoaded(): boolean {
  return engine !== undefined;
}
