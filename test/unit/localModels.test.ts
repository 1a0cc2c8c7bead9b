import * as assert from 'node:assert/strict';
import { KNOWN_MODELS, QUANTIZED_ONNX, knownModel, resolveModelSpec } from '../../src/core/embedding/local/models';

describe('known local models (the table that folders named like a repository get)', () => {
  it('knows Xenova/e5-small-v2: mean pooling, query:/passage: prefixes, 512 tokens, int8 by default', () => {
    const spec = knownModel('xenova/E5-small-v2');
    assert.ok(spec, 'listed');
    assert.deepEqual(
      {
        pooling: spec.pooling,
        normalize: spec.normalize,
        queryPrefix: spec.queryPrefix,
        passagePrefix: spec.passagePrefix,
        maxTokens: spec.maxTokens,
        dimension: spec.dimension,
        onnxFile: spec.onnxFile,
      },
      { pooling: 'mean', normalize: true, queryPrefix: 'query: ', passagePrefix: 'passage: ', maxTokens: 512, dimension: 384, onnxFile: QUANTIZED_ONNX },
    );
  });

  it('gives a folder named like a repository its entry (the provisioned real models’ folders)', () => {
    const home = '/home/u/.cache/similar-sources/real-models';
    assert.deepEqual(resolveModelSpec(`${home}/Xenova/e5-small-v2`), KNOWN_MODELS['Xenova/e5-small-v2']);
    assert.equal(resolveModelSpec(`${home}/e5-small-v2/`).queryPrefix, 'query: ');
    assert.deepEqual(resolveModelSpec(`${home}/Xenova/multilingual-e5-small`), KNOWN_MODELS['Xenova/multilingual-e5-small']);
    assert.equal(resolveModelSpec(`${home}/Xenova/all-MiniLM-L6-v2`).maxTokens, 256);
    assert.equal(resolveModelSpec(`${home}/Xenova/bge-small-en-v1.5`).pooling, 'cls');
    // Overrides still win (the fp32 variant of the same folder).
    assert.equal(resolveModelSpec(`${home}/Xenova/e5-small-v2`, { onnxFile: 'onnx/model.onnx' }).onnxFile, 'onnx/model.onnx');
  });
});
