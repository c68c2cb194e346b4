#!/usr/bin/python3
"""Writes tests/fixtures/sentence_embedding/losses.json: losses and embedding gradients of
sentence-transformers' MultipleNegativesRankingLoss (hard negatives; the gathered layout with a
rank offset), CoSENTLoss, AnglELoss and MatryoshkaLoss(MNRL), on fixed embeddings.

Each loss is ported from its source in sentence-transformers v5.1 (losses/*.py and
util/similarity.py: cos_sim, pairwise_cos_sim, pairwise_angle_sim, normalize_embeddings, and
MatryoshkaLoss.shrink), in torch, with autograd's gradients. Debian's python3-torch.
"""
import json
import os

import torch
import torch.nn.functional as F


def cos_sim(a, b):
    return torch.mm(F.normalize(a, p=2, dim=1), F.normalize(b, p=2, dim=1).transpose(0, 1))


def pairwise_cos_sim(a, b):
    return (F.normalize(a, p=2, dim=1) * F.normalize(b, p=2, dim=1)).sum(dim=-1)


def pairwise_angle_sim(x, y):
    a, b = torch.chunk(x, 2, dim=1)
    c, d = torch.chunk(y, 2, dim=1)
    z = torch.sum(c**2 + d**2, dim=1, keepdim=True)
    re = (a * c + b * d) / z
    im = (b * c - a * d) / z
    dz = torch.sum(a**2 + b**2, dim=1, keepdim=True) ** 0.5
    dw = torch.sum(c**2 + d**2, dim=1, keepdim=True) ** 0.5
    re /= dz / dw
    im /= dz / dw
    norm_angle = torch.sum(torch.concat((re, im), dim=1), dim=1)
    return torch.abs(norm_angle)


def mnrl(anchors, candidates, offset, scale=20.0):
    scores = cos_sim(anchors, candidates) * scale
    labels = torch.arange(offset, offset + anchors.size(0))
    return F.cross_entropy(scores, labels)


def cosent(e1, e2, labels, similarity, scale=20.0):
    scores = similarity(e1, e2) * scale
    scores = scores[:, None] - scores[None, :]
    labels = (labels[:, None] < labels[None, :]).to(scores.dtype)
    scores = scores - (1 - labels) * 1e12
    scores = torch.cat((torch.zeros(1, dtype=scores.dtype), scores.view(-1)), dim=0)
    return torch.logsumexp(scores, dim=0)


def shrink(x, dim):
    return F.normalize(x[..., :dim], p=2, dim=-1)


def record(name, rows, loss_fn, **extra):
    rows = rows.clone().requires_grad_(True)
    loss = loss_fn(rows)
    loss.backward()
    return {"name": name, "width": rows.size(1), "embeddings": rows.detach().flatten().tolist(),
            "loss": loss.item(), "grad": rows.grad.flatten().tolist(), **extra}


def main():
    torch.manual_seed(45)
    cases = []
    # MNRL with two hard-negative columns: 4 anchors, candidates [positives, neg1, neg2].
    b, width = 4, 16
    rows = torch.randn(4 * b, width)
    cases.append(record("mnrl_hard_negatives", rows, lambda r: mnrl(r[:b], r[b:], 0),
                        anchors=b, candidates=3 * b, labels=list(range(b)), normalizer=b))
    # Worker 1 of 2 with gather_across_devices: its 3 anchors against every worker's candidates
    # (positives of ranks 0 and 1, then their negatives), labels offset by rank x batch.
    b, world, rank = 3, 2, 1
    rows = torch.randn(b + 2 * world * b, width)
    cases.append(record("mnrl_gathered_rank1", rows, lambda r: mnrl(r[:b], r[b:], rank * b),
                        anchors=b, candidates=2 * world * b, labels=[rank * b + i for i in range(b)], normalizer=b))
    # CoSENT and AnglE on 6 scored pairs with tied scores.
    labels = torch.tensor([0.2, 0.8, 0.2, 1.0, 0.0, 0.5])
    rows = torch.randn(12, width)
    cases.append(record("cosent", rows, lambda r: cosent(r[:6], r[6:], labels, pairwise_cos_sim),
                        pairs=6, scores=labels.tolist()))
    cases.append(record("angle", rows, lambda r: cosent(r[:6], r[6:], labels, pairwise_angle_sim),
                        pairs=6, scores=labels.tolist()))
    # Matryoshka(MNRL), dims given out of order with their weights.
    dims, weights = [8, 16, 4], [0.5, 1.0, 2.0]
    b = 4
    rows = torch.randn(3 * b, width)

    def matryoshka(r):
        order = sorted(zip(dims, weights), key=lambda x: x[0], reverse=True)
        return sum(w * mnrl(shrink(r[:b], d), shrink(r[b:], d), 0) for d, w in order)

    cases.append(record("matryoshka_mnrl", rows, matryoshka, anchors=b, candidates=2 * b, labels=list(range(b)),
                        normalizer=b, dims=dims, weights=weights))
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "sentence_embedding", "losses.json")
    with open(path, "w") as f:
        json.dump({"cases": cases}, f)
    print("wrote", os.path.normpath(path))


if __name__ == "__main__":
    main()
