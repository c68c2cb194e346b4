#!/usr/bin/python3
"""Reference for shmtrain's reranking metrics (task/reranking/reranking_metrics): sentence-transformers'
CrossEncoderRerankingEvaluator.compute_metrics (cross_encoder/evaluation/reranking.py), ported line for
line over scikit-learn's own ndcg_score and average_precision_score (Debian's python3-sklearn).

Usage: /usr/bin/python3 tools/make_reranking_metrics_reference.py [OUT]
       (default: tests/fixtures/reranking/metrics.json)

Writes 300 cases: 2-16 candidates (the short lists numpy sorts stably), relevances 0/1, scores rounded
to one decimal so that ties are common, some with no relevant candidate (the evaluator scores 0 for
those without calling compute_metrics), at_k 10, 3 or 1; each with the evaluator's mrr, ndcg and ap. And 40
f1_cases of class ids with CrossEncoderClassificationEvaluator's f1_score macro, micro and weighted.
"""
import json
import os
import sys

import numpy as np
from sklearn.metrics import average_precision_score, f1_score, ndcg_score


def compute_metrics(y_true, y_pred, at_k):
    ranking = np.argsort(y_pred)[::-1]
    mrr = 0
    for rank, index in enumerate(ranking[0:at_k]):
        if y_true[index]:
            mrr = 1 / (rank + 1)
            break
    ndcg = ndcg_score([y_true], [y_pred], k=at_k)
    ap = average_precision_score(y_true, y_pred)
    return mrr, ndcg, ap


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures",
                                                             "reranking", "metrics.json")
    rng = np.random.default_rng(46)
    cases = []
    for i in range(300):
        n = int(rng.integers(2, 17))
        relevant = [int(x) for x in (rng.random(n) < 0.3)]
        scores = [float(x) for x in np.round(rng.normal(size=n), 1)]
        at_k = [10, 3, 1][i % 3]
        if sum(relevant) == 0:
            mrr, ndcg, ap = 0.0, 0.0, 0.0
        else:
            mrr, ndcg, ap = compute_metrics(relevant, np.array(scores), at_k)
        cases.append({"relevant": relevant, "scores": scores, "at_k": at_k, "mrr": float(mrr), "ndcg": float(ndcg),
                      "ap": float(ap)})
    # CrossEncoderClassificationEvaluator's F1s (num_labels > 1): class ids, some classes only
    # predicted, some only true.
    f1_cases = []
    for i in range(40):
        n, k = int(rng.integers(1, 30)), int(rng.integers(2, 6))
        truth = [int(x) for x in rng.integers(0, k, n)]
        predicted = [int(x) for x in rng.integers(0, k + (i % 3 == 0), n)]
        f1_cases.append({"truth": truth, "predicted": predicted,
                         **{a: float(f1_score(truth, predicted, average=a)) for a in ("macro", "micro", "weighted")}})
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump({"cases": cases, "f1_cases": f1_cases}, f)
        f.write("\n")
    print(f"{len(cases)} cases, {sum(1 for c in cases if len(set(c['scores'])) < len(c['scores']))} with ties")


if __name__ == "__main__":
    main()
