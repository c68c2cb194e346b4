#!/usr/bin/python3
"""PyTorch reference for shmtrain's reranking task (--task_name reranking): a cross-encoder as
sentence-transformers' CrossEncoderTrainer trains one.

Usage: /usr/bin/python3 tools/make_reranker_references.py [OUT_DIR]
       (default: tests/fixtures/reranking/bert_tiny_cls)

Needs Debian's python3-torch and python3-sklearn; CI does not run it: its output is committed. Writes a
tiny BertForSequenceClassification with one label (transformers' modeling_bert.py: BertModel with its
pooler, dense + tanh on [CLS], dropout, classifier) as a model folder over the vocabulary of
tests/fixtures/sentence_embedding/bert_tiny, training files of (query, document, label) pairs, a
validation file of CrossEncoderRerankingEvaluator samples, and reference.json:
- per case, the loss at each of 20 steps of sentence-transformers' BinaryCrossEntropyLoss
  (cross_encoder/losses/BinaryCrossEntropyLoss.py: the pair tokenized as BertTokenizer pairs two texts,
  "[CLS] query [SEP] document [SEP]", token types 0 then 1, padded to the batch's longest pair;
  logits.view(-1), BCEWithLogitsLoss(pos_weight)), 8 pairs a step in file order, AdamW lr 1e-3, weight
  decay 0.01 except biases and LayerNorm, constant LR, clip 1.0, dropout 0; a float64 run beside it;
- the evaluator's map, mrr@10 and ndcg@10 (and the base ranking's, for the samples with documents) of the
  initial model over the validation samples (cross_encoder/evaluation/reranking.py ported: candidates
  positives first, CrossEncoder.predict's Sigmoid, compute_metrics over scikit-learn);
- "rank": CrossEncoder.predict's scores (Sigmoid) of the initial model for each sample's query with all its
  texts, for `shmtrain rerank`.
"""
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import make_head_references as base  # noqa: E402
import make_reranking_metrics_reference as metrics  # noqa: E402
import make_sentence_embedding_references as sentence  # noqa: E402

STEPS, BATCH = 20, 8
PAD, CLS, SEP = 0, 2, 3


class BertForSequenceClassification(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.bert = base.BertModelNoPooler(c)
        self.pooler = nn.Linear(c["hidden_size"], c["hidden_size"])
        self.dropout = nn.Dropout(c["hidden_dropout_prob"])
        self.classifier = nn.Linear(c["hidden_size"], c["num_labels"])

    def forward(self, ids, types, mask):
        hidden = self.bert(ids, types, mask)
        return self.classifier(self.dropout(torch.tanh(self.pooler(hidden[:, 0]))))

    def hf_state(self):
        state = {}
        for k, v in self.state_dict().items():
            if k.startswith("bert."):
                state[k] = v
            elif k.startswith("pooler."):
                state["bert.pooler.dense." + k[len("pooler."):]] = v
            else:
                state[k] = v
        return state

    def load_hf_state(self, state):
        own = {}
        for k, v in state.items():
            own[("pooler." + k[len("bert.pooler.dense."):]) if k.startswith("bert.pooler.dense.") else k] = v
        self.load_state_dict(own)


def config():
    c = sentence.config()
    c["architectures"] = ["BertForSequenceClassification"]
    c["id2label"], c["label2id"], c["num_labels"] = {"0": "LABEL_0"}, {"LABEL_0": 0}, 1
    return c


def encode_pairs(pairs):
    rows = [([CLS] + [i + 5 for i in q] + [SEP], [i + 5 for i in d] + [SEP]) for q, d in pairs]
    longest = max(len(a) + len(b) for a, b in rows)
    ids, types, mask = [], [], []
    for a, b in rows:
        n = len(a) + len(b)
        ids.append(a + b + [PAD] * (longest - n))
        types.append([0] * len(a) + [1] * len(b) + [0] * (longest - n))
        mask.append([1] * n + [0] * (longest - n))
    return torch.tensor(ids), torch.tensor(types), torch.tensor(mask)


def make_pairs(generator, vocabulary):
    randint = lambda lo, hi: int(torch.randint(lo, hi + 1, (1,), generator=generator))  # noqa: E731
    rows = []
    for i in range(STEPS * BATCH):
        query = [randint(0, len(vocabulary) - 1) for _ in range(randint(2, 7))]
        if i % 2 == 0:  # a relevant document shares half the query's words
            document = query[: max(1, len(query) // 2)] + [randint(0, len(vocabulary) - 1) for _ in range(randint(1, 6))]
            label = 1.0 if i % 6 else 0.75  # soft targets too
        else:
            document = [randint(0, len(vocabulary) - 1) for _ in range(randint(2, 8))]
            label = 0.0 if i % 5 else 0.25
        rows.append((query, document, label))
    return rows


def train(state, cfg, rows, pos_weight, dtype):
    model = BertForSequenceClassification(cfg).to(dtype)
    model.load_hf_state({k: v.to(dtype) for k, v in state.items()})
    model.train()
    optimizer = base.adamw(model)
    loss_fn = nn.BCEWithLogitsLoss(pos_weight=None if pos_weight is None else torch.tensor(pos_weight, dtype=dtype))
    losses = []
    for step in range(STEPS):
        batch = rows[step * BATCH:(step + 1) * BATCH]
        ids, types, mask = encode_pairs([(q, d) for q, d, _ in batch])
        logits = model(ids, types, mask).view(-1)
        loss = loss_fn(logits, torch.tensor([y for _, _, y in batch], dtype=dtype))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(float(loss))
    return losses


def evaluator(state, cfg, samples):
    """CrossEncoderRerankingEvaluator over `samples` (lists of word ids), always_rerank_positives."""
    model = BertForSequenceClassification(cfg)
    model.load_hf_state(state)
    model.eval()
    results = {"map": [], "mrr@10": [], "ndcg@10": [], "base_map": [], "base_mrr@10": [], "base_ndcg@10": []}
    any_documents = False
    for s in samples:
        positive = s["positive"]
        if "documents" in s:
            any_documents = True
            documents = s["documents"]
            base_is_relevant = [int(doc in positive) for doc in documents]
            if sum(base_is_relevant) == 0:
                base = (0, 0, 0)
            else:
                base_is_relevant += [1] * (len(positive) - sum(base_is_relevant))
                base = metrics.compute_metrics(base_is_relevant, np.array(range(len(base_is_relevant), 0, -1)), 10)
            for key, value in zip(["base_mrr@10", "base_ndcg@10", "base_map"], base):
                results[key].append(value)
            docs = positive + [doc for doc in documents if doc not in positive]
        else:
            docs = positive + s["negative"]
        is_relevant = [1] * len(positive) + [0] * (len(docs) - len(positive))
        with torch.no_grad():
            ids, types, mask = encode_pairs([(s["query"], d) for d in docs])
            scores = torch.sigmoid(model(ids, types, mask).view(-1)).numpy()
        mrr, ndcg, ap = metrics.compute_metrics(is_relevant, scores, 10)
        results["mrr@10"].append(mrr)
        results["ndcg@10"].append(ndcg)
        results["map"].append(ap)
    out = {k: float(np.mean(v)) for k, v in results.items() if v}
    if not any_documents:
        out = {k: v for k, v in out.items() if not k.startswith("base_")}
    return out


def make_samples(generator, vocabulary):
    randint = lambda lo, hi: int(torch.randint(lo, hi + 1, (1,), generator=generator))  # noqa: E731
    words = lambda lo, hi: [randint(0, len(vocabulary) - 1) for _ in range(randint(lo, hi))]  # noqa: E731
    samples = []
    for i in range(12):
        query = words(2, 6)
        positive = [query[:2] + words(1, 4) for _ in range(1 + i % 2)]
        others = [words(2, 7) for _ in range(3 + i % 4)]
        if i % 3 == 0:  # a first-stage ranking: one positive inside it, or (i = 6) none
            documents = others[:1] + ([positive[0]] if i != 6 else []) + others[1:]
            samples.append({"query": query, "positive": positive, "documents": documents})
        else:
            samples.append({"query": query, "positive": positive, "negative": others})
    return samples


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures",
                                                             "reranking", "bert_tiny_cls")
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(1)
    torch.manual_seed(50)
    cfg = config()
    model = BertForSequenceClassification(cfg)
    model.apply(base.init_weights)
    state = {k: v.detach().clone() for k, v in model.hf_state().items()}
    base.save_safetensors(os.path.join(out, "model.safetensors"), state)
    vocabulary = sentence.words()
    sentence.write_folder_files(out, cfg, vocabulary)
    text = lambda ids: " ".join(vocabulary[i] for i in ids)  # noqa: E731
    generator = torch.Generator().manual_seed(51)
    rows = make_pairs(generator, vocabulary)
    with open(os.path.join(out, "pairs.jsonl"), "w") as f:
        for q, d, y in rows:
            f.write(json.dumps({"query": text(q), "document": text(d), "label": y}) + "\n")
    reference = {"settings": {"steps": STEPS, "batch": BATCH, "lr": 1e-3, "weight_decay": 0.01, "clip": 1.0,
                              "dropout": 0.0, "torch": torch.__version__}, "cases": {}}
    for name, pos_weight, flags in [("bce", None, ""), ("bce_pos_weight", 2.0, "--pos_weight 2")]:
        losses = train(state, cfg, rows, pos_weight, torch.float32)
        losses64 = train(state, cfg, rows, pos_weight, torch.float64)
        worst = max(abs(a - b) / abs(b) for a, b in zip(losses, losses64))
        reference["cases"][name] = {"train_file": "pairs.jsonl", "flags": flags, "losses": losses,
                                    "losses_fp64_run": losses64}
        print(f"{name}: losses {losses[0]:.5f} -> {losses[-1]:.5f}, fp32 vs fp64 {worst:.2e}")
    samples = make_samples(torch.Generator().manual_seed(52), vocabulary)
    with open(os.path.join(out, "samples.jsonl"), "w") as f:
        for s in samples:
            record = {"query": text(s["query"]), "positive": [text(p) for p in s["positive"]]}
            for key in ("negative", "documents"):
                if key in s:
                    record[key] = [text(d) for d in s[key]]
            f.write(json.dumps(record) + "\n")
    reference["evaluation"] = evaluator(state, cfg, samples)
    # CrossEncoder.predict of the initial model (Sigmoid) for `shmtrain rerank`: each sample's query
    # with its positives and negatives (or documents).
    model = BertForSequenceClassification(cfg)
    model.load_hf_state(state)
    model.eval()
    reference["rank"] = []
    for s in samples:
        docs = s["positive"] + s.get("negative", s.get("documents", []))
        with torch.no_grad():
            ids, types, mask = encode_pairs([(s["query"], d) for d in docs])
            scores = torch.sigmoid(model(ids, types, mask).view(-1)).tolist()
        reference["rank"].append({"query": text(s["query"]), "documents": [text(d) for d in docs], "scores": scores})
    print("evaluation of the initial model:", reference["evaluation"])
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
