/** One figure of `npm run bench`: bench.ts prints them and reads those of its child benches (bench-local.ts). */
export interface Row {
  size: string;
  metric: string;
  value: number;
  unit: string;
  baselineName?: string;
  baseline?: number;
  /** value / baseline (times, memory) — or baseline / value for throughputs; above 1 = worse than the baseline. */
  ratio?: number;
  target?: string;
  /** ratio bound of the target, when it has one */
  limit?: number;
  met?: boolean;
  runs?: number;
  note?: string;
}
