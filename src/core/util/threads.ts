/**
 * How many worker threads a CPU-bound pool starts by default (PDF extraction, a local model's
 * ONNX Runtime): cores − 1 (at most 4), leaving one to the editor, but both cores of a 2-core
 * machine. With cores − 1 there, one thread ran and one core sat idle: the model's (5,183
 * SciFact abstracts, issue 27), and the PDF pool's while the main thread waited for it half the
 * time (100 generated 20-page PDFs: 4.6 s with one worker, 3.9 s with two; issue 22). The
 * workers are threads of their own: the editor's thread still gets its share.
 */
import { availableParallelism } from 'node:os';

export function defaultThreads(cores = availableParallelism()): number {
  return Math.max(1, Math.min(4, cores <= 2 ? cores : cores - 1));
}
