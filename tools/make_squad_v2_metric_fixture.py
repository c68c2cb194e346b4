#!/usr/bin/env python3
"""Writes the expected SQuAD 2.0 scores of the hand-built cases in
tests/fixtures/squad_v2_metric/cases.json into expected.json, computed here with the formulas of
the official evaluate-v2.0.py (which Hugging Face evaluate's "squad_v2" metric wraps), written
again from their definitions:

  normalize: lower(); drop string.punctuation; the words a/an/the -> " "; " ".join(split())
  gold answers: those that normalise to something, else [""]; has_ans: the raw list not empty
  exact: normalize(gold) == normalize(pred); F1 on normalised words, 1/0 when either is empty
  no-answer threshold: na_prob > thresh scores float(not has_ans)
  exact/f1/total, HasAns_*, NoAns_* (when such questions exist), then best_exact(_thresh) and
  best_f1(_thresh) from the questions sorted by na_prob, starting at the no-answer count.

Usage: tools/make_squad_v2_metric_fixture.py [FIXTURE_DIR]   (standard library only)
Sums run left to right as Python 3.11's sum() does (3.12 compensates rounding).
"""
import collections
import json
import os
import re
import string
import sys

PUNCTUATION = set(string.punctuation)
ARTICLE = re.compile(r"\b(a|an|the)\b")


def normalize(text):
    text = "".join(c for c in text.lower() if c not in PUNCTUATION)
    return " ".join(ARTICLE.sub(" ", text).split())


def words(text):
    return normalize(text).split() if text else []


def exact(gold, pred):
    return int(normalize(gold) == normalize(pred))


def f1(gold, pred):
    g, p = words(gold), words(pred)
    if not g or not p:
        return int(g == p)
    same = sum((collections.Counter(g) & collections.Counter(p)).values())
    if same == 0:
        return 0
    precision, recall = 1.0 * same / len(p), 1.0 * same / len(g)
    return (2 * precision * recall) / (precision + recall)


def plain_sum(values):
    total = 0
    for v in values:
        total = total + v
    return total


def averages(exact_scores, f1_scores, ids):
    n = len(ids)
    return {"exact": 100.0 * plain_sum(exact_scores[i] for i in ids) / n,
            "f1": 100.0 * plain_sum(f1_scores[i] for i in ids) / n,
            "total": n}


def best(preds, raw, na_probs, has_ans):
    score = sum(1 for h in has_ans if not h)
    top, thresh = score, 0.0
    for i in sorted(range(len(raw)), key=lambda k: na_probs[k]):
        if has_ans[i]:
            score += raw[i]
        elif preds[i]:
            score += -1
        if score > top:
            top, thresh = score, na_probs[i]
    return 100.0 * top / len(raw), thresh


def score_case(case):
    preds = case["predictions"]
    golds = case["golds"]
    na_probs = case.get("na_probs") or [0.0] * len(preds)
    thresh = case.get("na_prob_thresh", 1.0)
    has_ans = [bool(g) for g in golds]
    exact_raw, f1_raw = [], []
    for pred, gold in zip(preds, golds):
        kept = [g for g in gold if normalize(g)] or [""]
        exact_raw.append(max(exact(g, pred) for g in kept))
        f1_raw.append(max(f1(g, pred) for g in kept))
    exact_t = [float(not h) if p > thresh else s for s, p, h in zip(exact_raw, na_probs, has_ans)]
    f1_t = [float(not h) if p > thresh else s for s, p, h in zip(f1_raw, na_probs, has_ans)]
    out = averages(exact_t, f1_t, list(range(len(preds))))
    for name, ids in (("HasAns", [i for i, h in enumerate(has_ans) if h]),
                      ("NoAns", [i for i, h in enumerate(has_ans) if not h])):
        if ids:
            for key, value in averages(exact_t, f1_t, ids).items():
                out[f"{name}_{key}"] = value
    out["best_exact"], out["best_exact_thresh"] = best(preds, exact_raw, na_probs, has_ans)
    out["best_f1"], out["best_f1_thresh"] = best(preds, f1_raw, na_probs, has_ans)
    return out


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "squad_v2_metric")
    with open(os.path.join(folder, "cases.json"), encoding="utf-8") as f:
        cases = json.load(f)
    expected = {name: score_case(case) for name, case in cases.items()}
    with open(os.path.join(folder, "expected.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(expected, indent=2) + "\n")


if __name__ == "__main__":
    main()
