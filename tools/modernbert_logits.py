#!/usr/bin/python3
"""Logits of a Hugging Face-format ModernBERT folder on one batch, as JSON on stdout.

Usage: /usr/bin/python3 tools/modernbert_logits.py [--repad-zeros] MODEL_DIR BATCHES_JSON [INDEX]   (INDEX: 0)

MODEL_DIR holds config.json (either spelling: legacy global_attn_every_n_layers / global_rope_theta /
local_rope_theta, or transformers 5's layer_types / rope_parameters) and model.safetensors (F32, F64,
F16 or BF16 tensors with HF's names). config.json's architectures[0] picks the model:
ModernBertForSequenceClassification, ModernBertForTokenClassification, ModernBertForQuestionAnswering
or ModernBertForMaskedLM (decoder.weight may be absent: tied to the embeddings). The model is
tools/make_modernbert_references.py's port of transformers' ModernBERT, run in float64, eval mode.
BATCHES_JSON is a batches.json of tests/fixtures/reference_heads (input_ids, attention_mask).

This is how a checkpoint written by shmtrain is checked against the references: e.g.
  tools/modernbert_logits.py OUT/checkpoint tests/fixtures/reference_heads/modernbert_cls/batches.json
against modernbert_cls/logits.json's "after" (or "after_fp32_run"). Output:
  {"architecture": ..., "batch_index": i, "dtype": "float64", "logits": [...]}
with logits [B][labels] (sequence classification), [B][T][labels] (token classification, masked LM),
or start_logits and end_logits [B][T] (question answering). Positions whose attention_mask is 0 are
padding; only the real tokens are comparable between implementations. By default the padded positions
follow transformers' eager/sdpa path (computed through the layers); --repad-zeros makes them follow its
unpadded FlashAttention path instead (final_norm output 0 there, as _pad_modernbert_output repads it),
as modernbert_qa's logits.json and shmtrain do. The real tokens' logits are the same either way.
"""
import json
import os
import struct
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_modernbert_references as mb  # noqa: E402

DTYPES = {"F32": np.float32, "F64": np.float64, "F16": np.float16}


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    body = data[8 + n:]
    tensors = {}
    for name, info in header.items():
        start, end = info["data_offsets"]
        raw = body[start:end]
        if info["dtype"] == "BF16":
            bits = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
            values = bits.view(np.float32)
        elif info["dtype"] in DTYPES:
            values = np.frombuffer(raw, dtype=np.dtype(DTYPES[info["dtype"]]).newbyteorder("<"))
        else:
            raise ValueError(f"{name}: dtype {info['dtype']}")
        tensors[name] = torch.from_numpy(values.astype(np.float64)).reshape(info["shape"])
    return tensors


def main():
    args = sys.argv[1:]
    repad_zeros = "--repad-zeros" in args
    args = [a for a in args if a != "--repad-zeros"]
    if len(args) not in (2, 3):
        sys.exit(__doc__.split("\n\n")[1])
    folder, batches_path = args[0], args[1]
    index = int(args[2]) if len(args) == 3 else 0
    torch.set_num_threads(1)
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    architecture = (config.get("architectures") or ["?"])[0]
    if architecture not in mb.ARCHITECTURES:
        sys.exit(f"{folder}: architecture {architecture} is not one of {sorted(mb.ARCHITECTURES)}")
    state = read_safetensors(os.path.join(folder, "model.safetensors"))
    try:
        model = mb.build(mb.ARCHITECTURES[architecture], config, state, torch.float64, repad_zeros)
    except KeyError as e:
        sys.exit(f"{folder}: the checkpoint does not match {architecture}: {e}")
    model.eval()
    with open(batches_path) as f:
        batch = json.load(f)["batches"][index]
    batch = {k: torch.tensor(batch[k]) for k in ("input_ids", "attention_mask")}
    with torch.no_grad():
        logits = model.logits(batch)
    out = {"architecture": architecture, "batch_index": index, "dtype": "float64"}
    if architecture == "ModernBertForQuestionAnswering":
        start, end = logits.split(1, dim=-1)
        out["start_logits"], out["end_logits"] = start.squeeze(-1).tolist(), end.squeeze(-1).tolist()
    else:
        out["logits"] = logits.tolist()
    json.dump(out, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
