#!/usr/bin/python3
"""A NumPy brute-force reference for `shmtrain mine-negatives` (sentence-transformers'
util.mine_hard_negatives, hard_negatives.py, as train/mine_negatives.hpp states its steps).

Usage: /usr/bin/python3 tools/make_mine_negatives_reference.py   (after tools/build.sh)
Needs NumPy and the built build/shmtrain; CI does not run it: its output is committed. Writes, in
tests/fixtures/mine_negatives/:
- dataset.jsonl: (query, answer) rows over tests/fixtures/sentence_embedding/bert_tiny's vocabulary,
  queries repeated with several positives (one positive given twice), some answers also in the corpus;
- corpus.txt: passages with exact duplicates and case variants (the model's tokenizer lowercases, so a
  case variant embeds exactly as its twin: tied scores);
- cache/: the unit-length embeddings of the deduplicated corpus and queries, as `shmtrain mine-negatives
  --cache_folder` writes them (one run of the built binary);
- reference.json: per case, its flags and the rows NumPy's brute force mines over those embeddings
  (every score in float64 from the float32 embeddings; equal scores in corpus order, as a stable sort
  keeps them).
"""
import json
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "tests", "fixtures", "mine_negatives")
MODEL = os.path.join(ROOT, "tests", "fixtures", "sentence_embedding", "bert_tiny")


def words():
    with open(os.path.join(MODEL, "vocab.txt")) as f:
        return [w for w in f.read().split("\n") if w and not w.startswith("[")]


def make_data(rng, vocabulary):
    text = lambda n: " ".join(rng.choice(vocabulary) for _ in range(n))  # noqa: E731
    corpus = [text(rng.randint(3, 9)) for _ in range(40)]
    corpus += corpus[3:6]  # exact duplicates
    corpus += [c.capitalize() for c in corpus[10:14]]  # case variants: the same tokens
    rows = []
    for q in range(18):
        query = text(rng.randint(2, 6))
        for p in range(1 + (q % 4 == 0) + (q % 6 == 0)):  # 1 to 3 positives
            answer = query.split()[0] + " " + text(rng.randint(2, 6)) if p or q % 3 else corpus[q]
            rows.append({"query": query, "answer": answer})
    rows.append(dict(rows[0]))  # a positive given twice
    rows.insert(5, {"query": rows[1]["query"], "answer": corpus[12].capitalize()})  # its twin ties a corpus text
    return rows, corpus


def unique(texts):
    return list(dict.fromkeys(texts))


def mine(rows, corpus_texts, q_emb, c_emb, range_min=0, range_max=None, max_score=None, min_score=None,
         absolute_margin=None, relative_margin=None, num_negatives=3, include_positives=False,
         output_format="triplet"):
    queries = unique([r["query"] for r in rows])
    corpus = unique(corpus_texts + [r["answer"] for r in rows])
    cidx = {t: i for i, t in enumerate(corpus)}
    positives = [[] for _ in queries]
    for r in rows:
        positives[queries.index(r["query"])].append(cidx[r["answer"]])
    max_pos = max(len(p) for p in positives)
    if range_max is None:
        filtered = absolute_margin is not None or relative_margin is not None or max_score is not None
        range_max = range_min + num_negatives * (10 if filtered else 1) + max_pos
    if include_positives:
        output_format = "n-tuple"
    q = q_emb.astype(np.float64)
    c = c_emb.astype(np.float64)
    scores_all = q @ c.T
    k = min(range_max + max_pos, len(corpus))
    out = []
    for qi, query in enumerate(queries):
        row_scores = scores_all[qi]
        order = np.argsort(-row_scores, kind="stable")[:k]
        cand = row_scores[order].copy()
        pos_scores = [float(row_scores[p]) for p in positives[qi]]
        if not include_positives:
            cand[np.isin(order, positives[qi])] = -np.inf
        smallest = min(pos_scores)
        if absolute_margin is not None:
            cand[cand + absolute_margin > smallest] = -np.inf
        if relative_margin is not None:
            cand[cand > smallest * (1 - relative_margin)] = -np.inf
        if max_score is not None:
            cand[cand > max_score] = -np.inf
        if min_score is not None:
            cand[cand < min_score] = -np.inf
        second = np.argsort(-cand, kind="stable")[:min(range_max, k)][range_min:][:num_negatives]
        width = len(second)
        negs = [(corpus[order[j]], float(cand[j])) for j in second]
        found = [(t, s) for t, s in negs if s != -np.inf]
        if output_format == "labeled-pair":
            for p in positives[qi]:
                out.append({"query": query, "answer": corpus[p], "label": 1})
            for t, _ in found:
                out.append({"query": query, "answer": t, "label": 0})
        for p, ps in zip(positives[qi], pos_scores):
            if output_format == "triplet":
                for t, _ in found:
                    out.append({"query": query, "answer": corpus[p], "negative": t})
            elif output_format in ("n-tuple", "n-tuple-scores") and len(found) == width:
                row = {"query": query, "answer": corpus[p]}
                for i, (t, _) in enumerate(found, start=1):
                    row[f"negative_{i}"] = t
                if output_format == "n-tuple-scores":
                    row["score"] = [ps] + [s for _, s in found]
                out.append(row)
            elif output_format == "labeled-list" and found:
                out.append({"query": query, "answer": [corpus[p]] + [t for t, _ in found],
                            "labels": [1] + [0] * len(found)})
    return out


CASES = [
    ("triplet_top", [], {}),
    ("ntuple_relative_margin", ["--output_format", "n-tuple", "--relative_margin", "0.005", "--num_negatives", "2"],
     {"output_format": "n-tuple", "relative_margin": 0.005, "num_negatives": 2}),
    ("ntuple_scores", ["--output_format", "n-tuple-scores", "--num_negatives", "4"],
     {"output_format": "n-tuple-scores", "num_negatives": 4}),
    ("labeled_list_range", ["--output_format", "labeled-list", "--range_min", "2", "--range_max", "12",
                            "--absolute_margin", "0.0", "--num_negatives", "5"],
     {"output_format": "labeled-list", "range_min": 2, "range_max": 12, "absolute_margin": 0.0, "num_negatives": 5}),
    ("labeled_pair_scores", ["--output_format", "labeled-pair", "--max_score", "0.95", "--min_score", "0.6"],
     {"output_format": "labeled-pair", "max_score": 0.95, "min_score": 0.6}),
    ("ntuple_include_positives", ["--output_format", "labeled-list", "--include_positives", "--num_negatives", "6"],
     {"output_format": "labeled-list", "include_positives": True, "num_negatives": 6}),
    ("triplet_wide", ["--num_negatives", "24"], {"num_negatives": 24}),
]


def main():
    rng = random.Random(70)
    rows, corpus = make_data(rng, words())
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "dataset.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    with open(os.path.join(OUT, "corpus.txt"), "w") as f:
        f.write("\n".join(corpus) + "\n")
    cache = os.path.join(OUT, "cache")
    if os.path.isdir(cache):
        for name in os.listdir(cache):
            os.remove(os.path.join(cache, name))
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([os.path.join(ROOT, "build", "shmtrain"), "mine-negatives", "--model_name_or_path", MODEL,
                        "--dataset", os.path.join(OUT, "dataset.jsonl"), "--corpus", os.path.join(OUT, "corpus.txt"),
                        "--output", os.path.join(tmp, "out.jsonl"), "--cache_folder", cache], check=True)
    names = sorted(os.listdir(cache))
    q_emb = np.load(os.path.join(cache, [n for n in names if n.startswith("query_")][0]))
    c_emb = np.load(os.path.join(cache, [n for n in names if n.startswith("corpus_")][0]))
    reference = {"cases": {}}
    for name, flags, kwargs in CASES:
        mined = mine(rows, corpus, q_emb, c_emb, **kwargs)
        reference["cases"][name] = {"flags": flags, "rows": mined}
        print(f"{name}: {len(mined)} rows")
    scores = q_emb.astype(np.float64) @ c_emb.astype(np.float64).T
    ties = sum(len(r) - len(set(np.round(r, 12))) for r in scores)
    print(f"{len(q_emb)} queries, {len(c_emb)} corpus texts, {ties} tied scores")
    with open(os.path.join(OUT, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
