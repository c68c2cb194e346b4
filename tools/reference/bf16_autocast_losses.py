#!/usr/bin/env python3
"""PyTorch's losses for the reference fixture (tests/fixtures/reference_tiny) trained with
torch.autocast("cpu", dtype=torch.bfloat16), the semantics of `shmtrain train --bf16`.

Needs Debian's python3-torch (run it with /usr/bin/python3); CI does not: the JSON it writes,
tests/fixtures/reference_tiny/bf16_autocast_losses.json, is committed.

The model is Hugging Face's BertForSequenceClassification written out in plain torch (the
machine has no transformers), with the fixture's settings: 20 steps of AdamW (lr 1e-3, betas
0.9/0.999, eps 1e-8, weight decay 0.01 except biases and LayerNorm weights, foreach=False),
global-norm clipping to 1.0, dropout 0, loss = mean cross-entropy recorded before the step.
It also reruns the fp32 losses, which must match reference_losses.json (a check of this file).

    /usr/bin/python3 tools/reference/bf16_autocast_losses.py [--fixture DIR]
"""
import argparse
import json
import math
import os
import struct

import torch
import torch.nn.functional as F

DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    base = 8 + length
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        raw = bytearray(data[base + begin:base + end])
        tensors[name] = torch.frombuffer(raw, dtype=DTYPES[entry["dtype"]]).reshape(entry["shape"]).clone()
    return tensors


def forward(p, c, ids, tt, mask, labels):
    """BertForSequenceClassification's forward with HF's names; returns the mean CE loss."""
    B, T = ids.shape
    H, A = c["hidden_size"], c["num_attention_heads"]
    d = H // A
    eps = c["layer_norm_eps"]
    emb = "bert.embeddings."
    pos = torch.arange(T)
    x = p[emb + "word_embeddings.weight"][ids] + p[emb + "position_embeddings.weight"][pos] \
        + p[emb + "token_type_embeddings.weight"][tt]
    x = F.layer_norm(x, (H,), p[emb + "LayerNorm.weight"], p[emb + "LayerNorm.bias"], eps)
    mask_add = (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
    for layer in range(c["num_hidden_layers"]):
        q_ = f"bert.encoder.layer.{layer}."
        lin = lambda t, n: F.linear(t, p[q_ + n + ".weight"], p[q_ + n + ".bias"])
        split = lambda t: t.view(B, T, A, d).permute(0, 2, 1, 3)
        q = split(lin(x, "attention.self.query"))
        k = split(lin(x, "attention.self.key"))
        v = split(lin(x, "attention.self.value"))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d) + mask_add
        probs = F.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).reshape(B, T, H)
        a = F.layer_norm(lin(ctx, "attention.output.dense") + x, (H,), p[q_ + "attention.output.LayerNorm.weight"],
                         p[q_ + "attention.output.LayerNorm.bias"], eps)
        g = F.gelu(lin(a, "intermediate.dense"))
        x = F.layer_norm(lin(g, "output.dense") + a, (H,), p[q_ + "output.LayerNorm.weight"],
                         p[q_ + "output.LayerNorm.bias"], eps)
    pooled = torch.tanh(F.linear(x[:, 0], p["bert.pooler.dense.weight"], p["bert.pooler.dense.bias"]))
    logits = F.linear(pooled, p["classifier.weight"], p["classifier.bias"])
    return F.cross_entropy(logits.float(), labels)


def train(fixture, bf16):
    c = json.load(open(os.path.join(fixture, "config.json")))
    weights = read_safetensors(os.path.join(fixture, "model.safetensors"))
    p = {n: t.float().requires_grad_(True) for n, t in weights.items()}
    no_decay = [t for n, t in p.items() if n.endswith("bias") or "LayerNorm" in n]
    decay = [t for n, t in p.items() if not (n.endswith("bias") or "LayerNorm" in n)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=1e-3, betas=(0.9, 0.999), eps=1e-8, foreach=False)
    batches = json.load(open(os.path.join(fixture, "batches.json")))["batches"]
    losses = []
    for b in batches:
        ids, tt, mask = (torch.tensor(b[k]) for k in ("input_ids", "token_type_ids", "attention_mask"))
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            loss = forward(p, c, ids, tt, mask, torch.tensor(b["labels"]))
        losses.append(loss.item())
        loss.backward()
        # The padding row of the word embeddings gets no gradient (nn.Embedding padding_idx).
        p["bert.embeddings.word_embeddings.weight"].grad[c.get("pad_token_id", 0)].zero_()
        torch.nn.utils.clip_grad_norm_(list(p.values()), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
    return losses


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixture", default=os.path.join(here, "..", "..", "tests", "fixtures", "reference_tiny"))
    a = ap.parse_args()
    torch.set_num_threads(1)
    fp32 = train(a.fixture, False)
    reference = json.load(open(os.path.join(a.fixture, "reference_losses.json")))["losses"]
    worst = max(abs(x - y) / abs(y) for x, y in zip(fp32, reference))
    if worst > 1e-5:
        raise SystemExit(f"this script's fp32 losses differ from reference_losses.json by {worst:.2e} relative")
    bf16 = train(a.fixture, True)
    out = {"losses": bf16, "fp32_losses_rerun": fp32,
           "settings": {"autocast": 'torch.autocast("cpu", dtype=torch.bfloat16) around forward and loss',
                        "torch": torch.__version__, "threads": 1,
                        "as": "reference_losses.json: AdamW lr 1e-3 wd 0.01 (not biases/LayerNorm), clip 1.0, "
                              "dropout 0, 20 steps"}}
    path = os.path.join(a.fixture, "bf16_autocast_losses.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
    print(f"wrote {path}; fp32 rerun within {worst:.1e} of the reference; "
          f"bf16 vs fp32 per step: max {max(abs(x - y) / y for x, y in zip(bf16, fp32)):.2%}")


if __name__ == "__main__":
    main()
