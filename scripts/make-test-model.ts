/**
 * Writes a BERT-shaped sentence encoder with random (seeded) weights in the transformers.js
 * folder layout, with the real bert-base-uncased tokenizer files. No real weights can be
 * downloaded here; this graph has the real shapes and operators, so loading, tokenising,
 * batching, pooling and speed can be tested on it (its vectors mean nothing).
 *
 *   npx tsx scripts/make-test-model.ts <outDir> [--layers 2] [--hidden 32] [--heads 2]
 *       [--intermediate 4×hidden] [--max-positions 512] [--quantized] [--fp32] [--classifier] [--seed 1]
 *
 * --quantized writes onnx/model_quantized.onnx with the int8 MatMuls of the published exports
 * (DynamicQuantizeLinear + MatMulInteger); --fp32 writes onnx/model.onnx; both may be given
 * (default: fp32 only). --classifier writes a cross-encoder (output `logits` [batch, 1]).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { rng } from './bench/corpus';
import { AttrType, DataType, onnxModelType } from './test-model/onnxProto';

export const DEFAULT_TOKENIZER_DIR = resolve(__dirname, '../test/fixtures/bert-base-uncased-tokenizer');
const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'vocab.txt'];

export interface TestModelOptions {
  layers?: number;
  hidden?: number;
  heads?: number;
  intermediate?: number;
  maxPositions?: number;
  /** Write onnx/model.onnx (float32 MatMuls). */
  fp32?: boolean;
  /** Write onnx/model_quantized.onnx (int8 MatMuls). */
  quantized?: boolean;
  seed?: number;
  /** Where tokenizer.json & co. are read from (default: the shared bert-base-uncased files). */
  tokenizerDir?: string;
  /**
   * A cross-encoder (a reranker's shape): [CLS]'s vector through BERT's pooler (dense + tanh) and
   * a one-logit classifier, output `logits` [batch, 1], as ms-marco-MiniLM's exports.
   */
  classifier?: boolean;
  /** The classifier's classes: 1 (a relevance logit, the default) or 2 (not relevant / relevant). */
  labels?: 1 | 2;
}

type Tensor = { name: string; dims: number[]; data_type: number; raw_data: Uint8Array };
type Node = { op_type: string; input: string[]; output: string[]; name: string; attribute?: object[] };

class GraphBuilder {
  readonly nodes: Node[] = [];
  readonly inits: Tensor[] = [];
  private n = 0;
  constructor(private readonly rand: () => number) {}

  private fresh(prefix: string): string {
    return `${prefix}_${this.n++}`;
  }

  init(name: string, dims: number[], data: Float32Array | Int8Array | BigInt64Array | Uint8Array, type: number): string {
    this.inits.push({ name, dims, data_type: type, raw_data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) });
    return name;
  }
  floats(name: string, dims: number[], std: number, mean = 0): string {
    const size = dims.reduce((a, b) => a * b, 1);
    const data = new Float32Array(size);
    for (let i = 0; i < size; i++) data[i] = mean + std * (this.rand() * 2 - 1) * Math.sqrt(3);
    return this.init(name, dims, data, DataType.FLOAT);
  }
  constFloat(name: string, dims: number[], values: number[]): string {
    return this.init(name, dims, Float32Array.from(values), DataType.FLOAT);
  }
  constInt64(name: string, values: number[]): string {
    return this.init(name, [values.length], BigInt64Array.from(values.map(BigInt)), DataType.INT64);
  }

  op(op_type: string, input: string[], attrs: Record<string, number | number[]> = {}, outputs = 1): string[] {
    const output = Array.from({ length: outputs }, () => this.fresh(op_type));
    const attribute = Object.entries(attrs).map(([name, v]) =>
      Array.isArray(v)
        ? { name, type: AttrType.INTS, ints: v }
        : Number.isInteger(v) && name !== 'epsilon' && name !== 'alpha'
          ? { name, type: AttrType.INT, i: v }
          : { name, type: AttrType.FLOAT, f: v },
    );
    this.nodes.push({ op_type, input, output, name: this.fresh(`${op_type}_node`), attribute });
    return output;
  }
  one(op_type: string, input: string[], attrs: Record<string, number | number[]> = {}): string {
    return this.op(op_type, input, attrs)[0];
  }
}

/** x·W + b, with W float32, or int8 as the published quantized exports do it. */
function dense(g: GraphBuilder, x: string, name: string, inDim: number, outDim: number, quantized: boolean, rand: () => number): string {
  const std = 1 / Math.sqrt(inDim);
  const bias = g.floats(`${name}.bias`, [outDim], 0.02);
  if (!quantized) return g.one('Add', [g.one('MatMul', [x, g.floats(`${name}.weight`, [inDim, outDim], std)]), bias]);
  // Symmetric int8 weights with one scale per matrix; activations quantised per call.
  const w = new Int8Array(inDim * outDim);
  for (let i = 0; i < w.length; i++) w[i] = Math.round((rand() * 2 - 1) * 127);
  const wScale = (std * Math.sqrt(3)) / 127;
  const wq = g.init(`${name}.weight_quantized`, [inDim, outDim], w, DataType.INT8);
  const wzp = g.init(`${name}.weight_zero_point`, [], new Int8Array([0]), DataType.INT8);
  const [xq, xScale, xZero] = g.op('DynamicQuantizeLinear', [x], {}, 3);
  const acc = g.one('MatMulInteger', [xq, wq, xZero, wzp]);
  const scale = g.one('Mul', [xScale, g.constFloat(`${name}.weight_scale`, [], [wScale])]);
  const y = g.one('Mul', [g.one('Cast', [acc], { to: DataType.FLOAT }), scale]);
  return g.one('Add', [y, bias]);
}

function layerNorm(g: GraphBuilder, x: string, name: string, hidden: number): string {
  const scale = g.floats(`${name}.weight`, [hidden], 0.05, 1);
  const bias = g.floats(`${name}.bias`, [hidden], 0.02);
  return g.one('LayerNormalization', [x, scale, bias], { axis: -1, epsilon: 1e-12 });
}

function dimParam(names: string[], elem: number) {
  return {
    tensor_type: { elem_type: elem, shape: { dim: names.map((n) => (/^\d+$/.test(n) ? { dim_value: Number(n) } : { dim_param: n })) } },
  };
}

/** The ONNX bytes of a BERT encoder (embeddings, L transformer layers) → last_hidden_state. */
export function buildBertOnnx(
  opts: Required<Omit<TestModelOptions, 'fp32' | 'quantized' | 'tokenizerDir' | 'classifier' | 'labels'>> & {
    vocabSize: number;
    quantized: boolean;
    classifier?: boolean;
    labels?: 1 | 2;
  },
): Uint8Array {
  const { layers, hidden: H, heads, intermediate, maxPositions, vocabSize, quantized, seed } = opts;
  if (H % heads !== 0) throw new Error(`hidden size ${H} is not a multiple of ${heads} heads`);
  const rand = rng(seed);
  const g = new GraphBuilder(rand);
  const headDim = H / heads;

  // Embeddings: word + position (sliced to the sequence length) + token type, then LayerNorm.
  const word = g.one('Gather', [g.floats('embeddings.word_embeddings.weight', [vocabSize, H], 0.5), 'input_ids'], { axis: 0 });
  const seqLen = g.one('Shape', ['input_ids'], { start: 1, end: 2 });
  const pos = g.one('Slice', [
    g.floats('embeddings.position_embeddings.weight', [maxPositions, H], 0.5),
    g.constInt64('zero_1d', [0]),
    seqLen,
    g.constInt64('axes_0', [0]),
  ]);
  const type = g.one('Gather', [g.floats('embeddings.token_type_embeddings.weight', [2, H], 0.5), 'token_type_ids'], { axis: 0 });
  let x = layerNorm(g, g.one('Add', [g.one('Add', [word, pos]), type]), 'embeddings.LayerNorm', H);

  // Additive attention mask: 0 where attended, -10000 on padding, shaped [batch, 1, 1, seq].
  const maskF = g.one('Cast', ['attention_mask'], { to: DataType.FLOAT });
  const inverted = g.one('Sub', [g.constFloat('one', [], [1]), maskF]);
  const additive = g.one('Mul', [inverted, g.constFloat('minus_big', [], [-10000])]);
  const mask4 = g.one('Unsqueeze', [additive, g.constInt64('axes_1_2', [1, 2])]);
  const headsShape = g.constInt64('heads_shape', [0, 0, heads, headDim]);
  const mergedShape = g.constInt64('merged_shape', [0, 0, H]);
  const scale = g.constFloat('attn_scale', [], [1 / Math.sqrt(headDim)]);
  const sqrt2 = g.constFloat('sqrt2', [], [Math.SQRT2]);
  const half = g.constFloat('half', [], [0.5]);
  const one = 'one';

  for (let l = 0; l < layers; l++) {
    const p = `encoder.layer.${l}`;
    const split = (t: string, perm: number[]) => g.one('Transpose', [g.one('Reshape', [t, headsShape])], { perm });
    const q = split(dense(g, x, `${p}.attention.self.query`, H, H, quantized, rand), [0, 2, 1, 3]);
    const k = split(dense(g, x, `${p}.attention.self.key`, H, H, quantized, rand), [0, 2, 3, 1]);
    const v = split(dense(g, x, `${p}.attention.self.value`, H, H, quantized, rand), [0, 2, 1, 3]);
    const scores = g.one('Add', [g.one('Mul', [g.one('MatMul', [q, k]), scale]), mask4]);
    const probs = g.one('Softmax', [scores], { axis: -1 });
    const ctx = g.one('Reshape', [g.one('Transpose', [g.one('MatMul', [probs, v])], { perm: [0, 2, 1, 3] }), mergedShape]);
    const attn = dense(g, ctx, `${p}.attention.output.dense`, H, H, quantized, rand);
    x = layerNorm(g, g.one('Add', [x, attn]), `${p}.attention.output.LayerNorm`, H);
    // GELU (erf form), as BERT's "gelu".
    const h = dense(g, x, `${p}.intermediate.dense`, H, intermediate, quantized, rand);
    const erf = g.one('Erf', [g.one('Div', [h, sqrt2])]);
    const gelu = g.one('Mul', [g.one('Mul', [h, half]), g.one('Add', [erf, one])]);
    const ff = dense(g, gelu, `${p}.output.dense`, intermediate, H, quantized, rand);
    x = layerNorm(g, g.one('Add', [x, ff]), `${p}.output.LayerNorm`, H);
  }
  let output = { name: 'last_hidden_state', type: dimParam(['batch_size', 'sequence_length', String(H)], DataType.FLOAT) };
  if (opts.classifier) {
    const cls = g.one('Gather', [x, g.init('cls_index', [], BigInt64Array.from([0n]), DataType.INT64)], { axis: 1 });
    const pooled = g.one('Tanh', [dense(g, cls, 'bert.pooler.dense', H, H, quantized, rand)]);
    // A larger spread than the layers' weights, so that scores differ visibly between pairs.
    const labels = opts.labels ?? 1;
    const logit = g.one('Add', [g.one('MatMul', [pooled, g.floats('classifier.weight', [H, labels], 2)]), g.floats('classifier.bias', [labels], 0.1)]);
    g.nodes.push({ op_type: 'Identity', input: [logit], output: ['logits'], name: 'output_identity' });
    output = { name: 'logits', type: dimParam(['batch_size', String(labels)], DataType.FLOAT) };
  } else g.nodes.push({ op_type: 'Identity', input: [x], output: ['last_hidden_state'], name: 'output_identity' });

  const model = {
    ir_version: 8,
    producer_name: 'similar-sources make-test-model',
    producer_version: '1',
    opset_import: [{ domain: '', version: 17 }],
    graph: {
      name: 'bert_random',
      node: g.nodes,
      initializer: g.inits,
      input: ['input_ids', 'attention_mask', 'token_type_ids'].map((name) => ({ name, type: dimParam(['batch_size', 'sequence_length'], DataType.INT64) })),
      output: [output],
    },
  };
  const T = onnxModelType();
  return T.encode(T.fromObject(model)).finish();
}

/** Writes the model folder; returns its path. */
export function makeTestModel(outDir: string, options: TestModelOptions = {}): string {
  const hidden = options.hidden ?? 32;
  const o = {
    layers: options.layers ?? 2,
    hidden,
    // Real small encoders use 32-wide heads (384 → 12 heads).
    heads: options.heads ?? (hidden >= 64 && hidden % 32 === 0 ? hidden / 32 : 2),
    intermediate: options.intermediate ?? hidden * 4,
    maxPositions: options.maxPositions ?? 512,
    seed: options.seed ?? 1,
  };
  if (hidden % o.heads !== 0) o.heads = 1;
  const tokDir = options.tokenizerDir ?? DEFAULT_TOKENIZER_DIR;
  const tokenizer = JSON.parse(readFileSync(join(tokDir, 'tokenizer.json'), 'utf8')) as { model?: { vocab?: Record<string, number> } };
  const vocabSize = Object.keys(tokenizer.model?.vocab ?? {}).length;
  if (!vocabSize) throw new Error(`${tokDir}/tokenizer.json has no vocabulary`);

  mkdirSync(join(outDir, 'onnx'), { recursive: true });
  // tokenizer.json is what the product reads; the others travel where the source folder has them (XLM-R's has no vocab.txt).
  for (const f of TOKENIZER_FILES) if (f === 'tokenizer.json' || existsSync(join(tokDir, f))) copyFileSync(join(tokDir, f), join(outDir, f));
  const config = {
    architectures: [options.classifier ? 'BertForSequenceClassification' : 'BertModel'],
    ...(options.classifier
      ? options.labels === 2
        ? { num_labels: 2, id2label: { 0: 'LABEL_0', 1: 'LABEL_1' }, label2id: { LABEL_0: 0, LABEL_1: 1 } }
        : { num_labels: 1, id2label: { 0: 'LABEL_0' }, label2id: { LABEL_0: 0 } }
      : {}),
    model_type: 'bert',
    hidden_size: o.hidden,
    num_hidden_layers: o.layers,
    num_attention_heads: o.heads,
    intermediate_size: o.intermediate,
    max_position_embeddings: o.maxPositions,
    vocab_size: vocabSize,
    type_vocab_size: 2,
    hidden_act: 'gelu',
    layer_norm_eps: 1e-12,
    pad_token_id: 0,
    _generated_by: 'scripts/make-test-model.ts (random weights, seed ' + o.seed + ')',
  };
  writeFileSync(join(outDir, 'config.json'), JSON.stringify(config, null, 2) + '\n');
  const wantQuantized = options.quantized ?? false;
  const wantFp32 = options.fp32 ?? !wantQuantized;
  const head = { classifier: options.classifier ?? false, labels: options.labels };
  if (wantFp32) writeFileSync(join(outDir, 'onnx', 'model.onnx'), buildBertOnnx({ ...o, vocabSize, quantized: false, ...head }));
  if (wantQuantized) writeFileSync(join(outDir, 'onnx', 'model_quantized.onnx'), buildBertOnnx({ ...o, vocabSize, quantized: true, ...head }));
  return outDir;
}

function main(argv: string[]): void {
  const out = argv.find(
    (a, i) => !a.startsWith('--') && !(i > 0 && argv[i - 1].startsWith('--') && !['--quantized', '--fp32', '--classifier'].includes(argv[i - 1])),
  );
  if (!out) {
    console.error(
      'usage: make-test-model <outDir> [--layers N] [--hidden N] [--heads N] [--intermediate N] [--max-positions N] [--quantized] [--fp32] [--classifier] [--seed N]',
    );
    process.exit(2);
  }
  const num = (flag: string) => {
    const i = argv.indexOf(flag);
    if (i < 0) return undefined;
    const v = Number(argv[i + 1]);
    if (!Number.isInteger(v) || v <= 0) throw new Error(`${flag} takes a positive whole number`);
    return v;
  };
  const dir = makeTestModel(resolve(out), {
    layers: num('--layers'),
    hidden: num('--hidden'),
    heads: num('--heads'),
    intermediate: num('--intermediate'),
    maxPositions: num('--max-positions'),
    seed: num('--seed'),
    quantized: argv.includes('--quantized'),
    fp32: argv.includes('--fp32') || !argv.includes('--quantized'),
    classifier: argv.includes('--classifier'),
  });
  console.log(`wrote ${dir}`);
}

if (require.main === module) main(process.argv.slice(2));
