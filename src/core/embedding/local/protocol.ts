/** Messages between LocalProvider (the calling thread) and localWorker.ts. */
import type { Pooling } from './models';
import type { WorkerControl } from './workerLoop';

export interface LocalWorkerData {
  modelDir: string;
  /** Path of the ONNX file, relative to modelDir. */
  onnxFile: string;
  /** ONNX Runtime intra-op threads. */
  threads: number;
}

export type ToWorker =
  /** `urgent`: a query, served before waiting passages (background embedding must not delay a search). */
  | {
      type: 'embed';
      id: number;
      texts: string[];
      maxTokens: number;
      pooling: Pooling;
      normalize: boolean;
      maxBatch: number;
      tokenBudget: number;
      urgent?: boolean;
    }
  | { type: 'cancel'; id: number };

export type FromWorker =
  | { type: 'ready'; dimension: number; loadMs: number }
  /** Vectors in the order of the request's texts, `dimension` floats each, in one buffer. */
  | { type: 'vectors'; id: number; data: Float32Array; dimension: number }
  | WorkerControl;
