/** Messages between CrossEncoder (the calling thread) and crossEncoderWorker.ts. */
import type { WorkerControl } from '../embedding/local/workerLoop';

export interface CrossEncoderWorkerData {
  modelDir: string;
  /** Path of the ONNX file, relative to modelDir. */
  onnxFile: string;
  /** ONNX Runtime intra-op threads. */
  threads: number;
}

export type ToCrossEncoder =
  /** One query against its passages; scores come back in the passages' order. */
  { type: 'score'; id: number; query: string; passages: string[]; maxTokens: number; maxBatch: number; tokenBudget: number } | { type: 'cancel'; id: number };

export type FromCrossEncoder =
  | { type: 'ready'; loadMs: number }
  /** A relevance logit per passage (higher: more relevant). */
  | { type: 'scores'; id: number; scores: Float32Array }
  | WorkerControl;
