#!/usr/bin/python3
"""Writes tests/fixtures/sentence_embedding/ir_metrics.json: score matrices with ties and the
metrics sentence-transformers' InformationRetrievalEvaluator computes from them.

The evaluator's own steps are ported here as they stand in evaluation/
InformationRetrievalEvaluator.py (sentence-transformers v5.1): the query filter (queries
without relevant documents dropped), the per-chunk top-k pushed through heapq as (score,
corpus_id) tuples, the stable sort by score, compute_metrics and compute_dcg_at_k. torch.topk
with sorted=False returns its picks in an order of its own; the port takes a chunk's best
(score first, corpus order among equal scores) in corpus order, as shmtrain does.
"""
import heapq
import json
import os

import numpy as np

ACCURACY_AT_K = [1, 3, 5, 10]
PRECISION_RECALL_AT_K = [1, 3, 5, 10]
MRR_AT_K = [10]
NDCG_AT_K = [10]
MAP_AT_K = [100]


def dcg_at_k(relevances, k):
    dcg = 0
    for i in range(min(len(relevances), k)):
        dcg += relevances[i] / np.log2(i + 2)
    return dcg


def ranked(scores, corpus_ids, max_k, chunk):
    heap = []
    for start in range(0, len(corpus_ids), chunk):
        end = min(start + chunk, len(corpus_ids))
        take = min(max_k, end - start)
        best = sorted(range(start, end), key=lambda d: -scores[d])[:take]
        for doc in sorted(best):
            if len(heap) < max_k:
                heapq.heappush(heap, (scores[doc], corpus_ids[doc]))
            else:
                heapq.heappushpop(heap, (scores[doc], corpus_ids[doc]))
    hits = [{"corpus_id": cid, "score": s} for s, cid in heap]
    return sorted(hits, key=lambda x: x["score"], reverse=True)


def compute_metrics(results, relevant):
    hits_at_k = {k: 0 for k in ACCURACY_AT_K}
    precisions = {k: [] for k in PRECISION_RECALL_AT_K}
    recalls = {k: [] for k in PRECISION_RECALL_AT_K}
    mrr = {k: 0 for k in MRR_AT_K}
    ndcg = {k: [] for k in NDCG_AT_K}
    average_precision = {k: [] for k in MAP_AT_K}
    for top_hits, rel in zip(results, relevant):
        for k in ACCURACY_AT_K:
            for hit in top_hits[0:k]:
                if hit["corpus_id"] in rel:
                    hits_at_k[k] += 1
                    break
        for k in PRECISION_RECALL_AT_K:
            correct = sum(1 for hit in top_hits[0:k] if hit["corpus_id"] in rel)
            precisions[k].append(correct / k)
            recalls[k].append(correct / len(rel))
        for k in MRR_AT_K:
            for rank, hit in enumerate(top_hits[0:k]):
                if hit["corpus_id"] in rel:
                    mrr[k] += 1.0 / (rank + 1)
                    break
        for k in NDCG_AT_K:
            predicted = [1 if hit["corpus_id"] in rel else 0 for hit in top_hits[0:k]]
            ndcg[k].append(dcg_at_k(predicted, k) / dcg_at_k([1] * len(rel), k))
        for k in MAP_AT_K:
            correct = 0
            total = 0
            for rank, hit in enumerate(top_hits[0:k]):
                if hit["corpus_id"] in rel:
                    correct += 1
                    total += correct / (rank + 1)
            average_precision[k].append(total / min(k, len(rel)))
    n = len(results)
    out = {}
    out.update({f"accuracy@{k}": v / n for k, v in hits_at_k.items()})
    out.update({f"precision@{k}": float(np.mean(v)) for k, v in precisions.items()})
    out.update({f"recall@{k}": float(np.mean(v)) for k, v in recalls.items()})
    out.update({f"mrr@{k}": v / n for k, v in mrr.items()})
    out.update({f"ndcg@{k}": float(np.mean(v)) for k, v in ndcg.items()})
    out.update({f"map@{k}": float(np.mean(v)) for k, v in average_precision.items()})
    return out


def case(name, rng, queries, corpus, levels, chunk, relevant_per_query):
    # Scores on a grid of `levels` values: many exact ties, exactly representable in float32.
    scores = (rng.integers(0, levels, size=(queries, corpus)) / 8.0).tolist()
    corpus_ids = [f"d{rng.integers(0, 10**6)}" for _ in range(corpus)]
    # Unique ids (the corpus is a dict), in an order unrelated to their string order.
    corpus_ids = [f"{cid}_{i}" for i, cid in enumerate(corpus_ids)]
    relevant = []
    for q in range(queries):
        count = relevant_per_query[q % len(relevant_per_query)]
        relevant.append(sorted(rng.choice(corpus, size=count, replace=False).tolist()) if count else [])
    kept = [q for q in range(queries) if relevant[q]]
    max_k = max(ACCURACY_AT_K + PRECISION_RECALL_AT_K + MRR_AT_K + NDCG_AT_K + MAP_AT_K)
    results = [ranked(scores[q], corpus_ids, max_k, chunk) for q in kept]
    relevant_ids = [{corpus_ids[d] for d in relevant[q]} for q in kept]
    order = [[corpus_ids.index(h["corpus_id"]) for h in r] for r in results]
    return {
        "name": name,
        "chunk": chunk,
        "corpus_ids": corpus_ids,
        "scores": scores,
        "relevant": relevant,
        "ranked": order,
        "metrics": compute_metrics(results, relevant_ids),
    }


def main():
    rng = np.random.default_rng(45)
    cases = [
        case("ties", rng, 9, 40, 5, 50000, [1, 2, 0, 3]),
        case("k_past_the_corpus", rng, 5, 7, 3, 50000, [1, 4, 7]),
        case("chunked", rng, 6, 150, 40, 32, [2, 1, 5]),
        case("many_relevant", rng, 4, 130, 9, 50000, [120, 11]),
    ]
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "sentence_embedding", "ir_metrics.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"cases": cases}, f)
    print("wrote", os.path.normpath(path))


if __name__ == "__main__":
    main()
