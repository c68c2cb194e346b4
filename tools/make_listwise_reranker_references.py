#!/usr/bin/python3
"""PyTorch references for shmtrain's listwise and classifying rerankers (--task_name reranking with
--loss ListNetLoss, LambdaLoss or CrossEntropyLoss), ported from sentence-transformers 5.x's
cross_encoder/losses/ (ListNetLoss.py, LambdaLoss.py with its weighting schemes, CrossEntropyLoss.py).

Usage: /usr/bin/python3 tools/make_listwise_reranker_references.py
Needs Debian's python3-torch; CI does not run it: its output is committed. Run after
make_reranker_references.py (it reads that script's model folder, tests/fixtures/reranking/bert_tiny_cls).
Writes, in tests/fixtures/reranking/:
- bert_tiny_cls/lists.jsonl: sentence-transformers' labeled-list rows {"query", "docs": [...], "labels":
  [...]}, 1 to 6 documents a query, graded and tied labels;
- bert_tiny_cls/listwise.json: per case the loss at each of 20 steps, 4 lists a step in file order (the
  pairs of a step's lists tokenized together, padded to the longest), AdamW lr 1e-3, weight decay 0.01
  except biases and LayerNorm, constant LR, clip 1.0, dropout 0, with a float64 run beside it:
  ListNetLoss, LambdaLoss (NDCGLoss2PPScheme), LambdaLoss (NDCGLoss1Scheme: every pair, the diagonal
  included);
  MultipleNegativesRankingLoss on bert_tiny_cls/mnrl_pairs.jsonl and mnrl_triplets.jsonl (4 rows a step,
  every in-batch negative: --num_negatives 100);
- bert_tiny_cls3/: the same tiny BERT with a 3-class classifier, classes.jsonl (query, document, label
  0/1/2) and reference.json: CrossEntropyLoss (8 pairs a step) over 20 steps, and
  CrossEncoderClassificationEvaluator's f1_macro, f1_micro, f1_weighted of the trained model on
  classes_dev.jsonl (scikit-learn's f1_score; needs python3-sklearn);
- listwise_losses.json: for the unit test, lists of random scores and labels and, per weighting scheme
  (and ListNet), the loss and its gradient as torch's autograd gives them.
"""
import json
import os
import sys

import torch
import torch.nn as nn
from sklearn.metrics import f1_score

sys.path.insert(0, os.path.dirname(__file__))
import make_head_references as base  # noqa: E402
import make_reranker_references as rr  # noqa: E402
import make_sentence_embedding_references as sentence  # noqa: E402

STEPS, LISTS, PAIRS = 20, 4, 8
FIXTURES = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "reranking")


# ------------------------------------------------------------------ sentence-transformers' losses
def matrices(logits, docs_per_query, labels):
    """The padded (queries, max_docs) logits and labels ListNetLoss and LambdaLoss build."""
    batch_size, max_docs = len(docs_per_query), max(docs_per_query)
    logits_matrix = torch.full((batch_size, max_docs), -1e16, dtype=logits.dtype)
    doc_indices = torch.cat([torch.arange(n) for n in docs_per_query], dim=0)
    batch_indices = torch.repeat_interleave(torch.arange(batch_size), torch.tensor(docs_per_query))
    logits_matrix = logits_matrix.index_put((batch_indices, doc_indices), logits)
    labels_matrix = torch.full_like(logits_matrix, float("-inf"))
    labels_matrix[batch_indices, doc_indices] = torch.cat(labels, dim=0).to(logits.dtype)
    return logits_matrix, labels_matrix, max_docs


def listnet(logits, docs_per_query, labels):
    logits_matrix, labels_matrix, _ = matrices(logits, docs_per_query, labels)
    return nn.CrossEntropyLoss()(logits_matrix, labels_matrix.softmax(dim=1))


def weights_of(scheme, gain, discount, mu=10.0):
    def ndcg2():
        pos_idxs = torch.arange(1, gain.shape[1] + 1)
        delta_idxs = torch.abs(pos_idxs[:, None] - pos_idxs[None, :])
        deltas = torch.abs(torch.pow(torch.abs(discount[0, delta_idxs - 1]), -1.0) -
                           torch.pow(torch.abs(discount[0, delta_idxs]), -1.0))
        deltas.diagonal().zero_()
        return deltas[None, :, :] * torch.abs(gain[:, :, None] - gain[:, None, :])

    def lambda_rank():
        return torch.abs(torch.pow(discount[:, :, None], -1.0) - torch.pow(discount[:, None, :], -1.0)) * torch.abs(
            gain[:, :, None] - gain[:, None, :])

    if scheme == "none":
        return torch.tensor(1.0, dtype=gain.dtype)
    if scheme == "ndcg_loss1":
        return (gain / discount)[:, :, None]
    if scheme == "ndcg_loss2":
        return ndcg2()
    if scheme == "lambda_rank":
        return lambda_rank()
    return mu * ndcg2() + lambda_rank()


def lambda_loss(logits, docs_per_query, labels, scheme="ndcg_loss2pp", sigma=1.0, eps=1e-10):
    logits_matrix, labels_matrix, max_docs = matrices(logits, docs_per_query, labels)
    logits_matrix_sorted, indices_pred = logits_matrix.sort(descending=True, dim=-1, stable=True)
    labels_matrix_sorted, _ = labels_matrix.sort(descending=True, dim=-1)
    true_sorted_by_preds = torch.gather(labels_matrix, dim=1, index=indices_pred)
    true_diffs = true_sorted_by_preds[:, :, None] - true_sorted_by_preds[:, None, :]
    padded_pairs_mask = torch.isfinite(true_diffs)
    if scheme != "ndcg_loss1":
        padded_pairs_mask = padded_pairs_mask & (true_diffs > 0)
    k = max_docs
    ndcg_at_k_mask = torch.zeros((max_docs, max_docs), dtype=torch.bool)
    ndcg_at_k_mask[:k, :k] = 1
    true_sorted_by_preds.clamp_(min=0.0)
    labels_matrix_sorted.clamp_(min=0.0)
    pos_idxs = torch.arange(1, max_docs + 1)
    discount = torch.log2(1.0 + pos_idxs.to(logits.dtype))[None, :]
    max_dcgs = torch.sum(((torch.pow(2, labels_matrix_sorted) - 1) / discount)[:, :k], dim=-1).clamp(min=eps)
    gain = (torch.pow(2, true_sorted_by_preds) - 1) / max_dcgs[:, None]
    weights = weights_of(scheme, gain, discount)
    scores_diffs = (logits_matrix_sorted[:, :, None] - logits_matrix_sorted[:, None, :]).clamp(min=-1e8, max=1e8)
    scores_diffs.masked_fill_(torch.isnan(scores_diffs), 0.0)
    weighted_probas = (torch.sigmoid(sigma * scores_diffs).clamp(min=eps) ** weights).clamp(min=eps)
    losses = torch.log2(weighted_probas)
    return -torch.mean(losses[padded_pairs_mask & ndcg_at_k_mask])


# ----------------------------------------------------------------------------------- the data
def make_lists(generator, vocabulary, count):
    randint = lambda lo, hi: int(torch.randint(lo, hi + 1, (1,), generator=generator))  # noqa: E731
    words = lambda lo, hi: [randint(0, len(vocabulary) - 1) for _ in range(randint(lo, hi))]  # noqa: E731
    rows = []
    for i in range(count):
        query = words(2, 6)
        n = 1 if i % 9 == 4 else randint(2, 6)
        docs, labels = [], []
        for k in range(n):
            grade = randint(0, 3)
            docs.append(query[:grade] + words(1, 5) if grade else words(2, 7))
            labels.append(float(grade) if i % 4 else grade / 3.0)  # integer grades, and fractions
        if n > 1 and len(set(labels)) == 1:
            labels[0] = labels[0] + 1.0  # something to rank in every list of several
        rows.append((query, docs, labels))
    return rows


def train(state, cfg, dtype, step_loss):
    """20 steps of AdamW (clip 1.0) from `state` in `dtype`; step_loss(model, step) is a step's loss.
    Returns the losses and the trained model."""
    model = rr.BertForSequenceClassification(cfg).to(dtype)
    model.load_hf_state({k: v.to(dtype) for k, v in state.items()})
    model.train()
    optimizer = base.adamw(model)
    losses = []
    for step in range(STEPS):
        loss = step_loss(model, step)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(float(loss))
    return losses, model


def train_lists(state, cfg, rows, loss_name, dtype):
    def step_loss(model, step):
        batch = rows[step * LISTS:(step + 1) * LISTS]
        pairs = [(q, d) for q, docs, _ in batch for d in docs]
        logits = model(*rr.encode_pairs(pairs)).view(-1)
        docs_per_query = [len(docs) for _, docs, _ in batch]
        labels = [torch.tensor(y) for _, _, y in batch]
        if loss_name == "listnet":
            return listnet(logits, docs_per_query, labels)
        return lambda_loss(logits, docs_per_query, labels, scheme=loss_name[len("lambda_"):])

    return train(state, cfg, dtype, step_loss)[0]


def multiple_negatives(model, batch, scale=10.0):
    """The cross-encoder MultipleNegativesRankingLoss (cross_encoder/losses/MultipleNegativesRankingLoss.py)
    with every in-batch negative (num_negatives at least the batch's other documents): the anchors paired
    with their positives, then for each in-batch slot the other rows' documents (every column's, flattened
    column by column: the indices its `all_indices[mask]` branch means), then the hard negatives; sigmoid,
    x scale, cross-entropy against the first."""
    anchors = [r[0] for r in batch]
    columns = [[r[c] for r in batch] for c in range(1, len(batch[0]))]
    b = len(anchors)
    flattened = [doc for column in columns for doc in column]
    negatives = [[flattened[f] for f in range(b * len(columns)) if f % b != i] for i in range(b)]
    scores = [model(*rr.encode_pairs(list(zip(anchors, columns[0])))).view(-1)]
    for k in range(len(negatives[0])):
        scores.append(model(*rr.encode_pairs([(anchors[i], negatives[i][k]) for i in range(b)])).view(-1))
    for column in columns[1:]:
        scores.append(model(*rr.encode_pairs(list(zip(anchors, column)))).view(-1))
    logits = torch.sigmoid(torch.stack(scores, dim=1)) * scale
    return nn.CrossEntropyLoss()(logits, torch.zeros(b, dtype=torch.long))


def train_multiple_negatives(state, cfg, rows, dtype):
    return train(state, cfg, dtype, lambda model, step: multiple_negatives(model, rows[step * LISTS:(step + 1) * LISTS]))[0]


def train_classes(state, cfg, rows, dtype):
    def step_loss(model, step):
        batch = rows[step * PAIRS:(step + 1) * PAIRS]
        logits = model(*rr.encode_pairs([(q, d) for q, d, _ in batch]))
        return nn.CrossEntropyLoss()(logits, torch.tensor([y for _, _, y in batch]))

    return train(state, cfg, dtype, step_loss)


def loss_values(generator):
    """Random lists (ties in scores and labels, lists of one) and each loss with its gradient."""
    cases = []
    for c in range(6):
        docs_per_query = [int(torch.randint(1, 8, (1,), generator=generator)) for _ in range(3 + c % 3)]
        total = sum(docs_per_query)
        scores = (torch.randn(total, generator=generator, dtype=torch.float64) * (1 + 4 * (c % 2))).float()
        if c == 2:
            scores[1] = scores[0]  # a tie in the scores
        if c == 5:
            scores[0] = 40.0  # a sigmoid past eps
        labels = torch.randint(0, 4, (total,), generator=generator).float()
        if c == 3:
            labels = labels / 3.0
        if c == 4:
            labels = labels - 1.0  # negative labels: their gains clamp to 0
        split = list(torch.split(labels, docs_per_query))
        case = {"lengths": docs_per_query, "scores": scores.tolist(), "labels": labels.tolist(), "losses": {}}
        for name in ["listnet", "none", "ndcg_loss1", "ndcg_loss2", "lambda_rank", "ndcg_loss2pp"]:
            x = scores.clone().double().requires_grad_(True)
            if name == "listnet":
                loss = listnet(x, docs_per_query, [s.double() for s in split])
            else:
                loss = lambda_loss(x, docs_per_query, [s.double() for s in split], scheme=name)
            loss.backward()
            case["losses"][name] = {"loss": float(loss), "grad": x.grad.tolist()}
        cases.append(case)
    return cases


def main():
    torch.set_num_threads(1)
    folder = os.path.join(FIXTURES, "bert_tiny_cls")
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    state = base.load_safetensors(os.path.join(folder, "model.safetensors"))
    vocabulary = sentence.words()
    text = lambda ids: " ".join(vocabulary[i] for i in ids)  # noqa: E731

    rows = make_lists(torch.Generator().manual_seed(60), vocabulary, STEPS * LISTS)
    with open(os.path.join(folder, "lists.jsonl"), "w") as f:
        for q, docs, labels in rows:
            f.write(json.dumps({"query": text(q), "docs": [text(d) for d in docs], "labels": labels}) + "\n")
    reference = {"settings": {"steps": STEPS, "lists": LISTS, "lr": 1e-3, "weight_decay": 0.01, "clip": 1.0,
                              "dropout": 0.0, "torch": torch.__version__}, "cases": {}}
    for name, flags in [("listnet", "--loss ListNetLoss"), ("lambda_ndcg_loss2pp", "--loss LambdaLoss"),
                        ("lambda_ndcg_loss1", "--loss LambdaLoss --lambda_weighting_scheme ndcg_loss1")]:
        losses = train_lists(state, cfg, rows, name, torch.float32)
        losses64 = train_lists(state, cfg, rows, name, torch.float64)
        worst = max(abs(a - b) / abs(b) for a, b in zip(losses, losses64))
        reference["cases"][name] = {"train_file": "lists.jsonl", "flags": flags, "losses": losses,
                                    "losses_fp64_run": losses64}
        print(f"{name}: losses {losses[0]:.5f} -> {losses[-1]:.5f}, fp32 vs fp64 {worst:.2e}")
    # MultipleNegativesRankingLoss: (query, positive) pairs and (query, positive, negative) triplets.
    pairs = rr.make_pairs(torch.Generator().manual_seed(65), vocabulary)
    relevant = [(q, d) for q, d, y in pairs if y >= 0.5]
    others = [d for _, d, y in pairs if y < 0.5]
    for name, width in [("mnrl_pairs", 2), ("mnrl_triplets", 3)]:
        rows_ = [(q, d, others[i])[:width] for i, (q, d) in enumerate(relevant[:STEPS * LISTS])]
        with open(os.path.join(folder, name + ".jsonl"), "w") as f:
            for row in rows_:
                f.write(json.dumps(dict(zip(["query", "positive", "negative"], map(text, row)))) + "\n")
        losses = train_multiple_negatives(state, cfg, rows_, torch.float32)
        losses64 = train_multiple_negatives(state, cfg, rows_, torch.float64)
        worst = max(abs(a - b) / abs(b) for a, b in zip(losses, losses64))
        reference["cases"][name] = {"train_file": name + ".jsonl", "flags": "--loss MultipleNegativesRankingLoss "
                                    "--num_negatives 100", "losses": losses, "losses_fp64_run": losses64}
        print(f"{name}: losses {losses[0]:.5f} -> {losses[-1]:.5f}, fp32 vs fp64 {worst:.2e}")
    with open(os.path.join(folder, "listwise.json"), "w") as f:
        json.dump(reference, f, indent=1)
        f.write("\n")

    # A 3-class pair classifier: the same body, a classifier of its own.
    classes_dir = os.path.join(FIXTURES, "bert_tiny_cls3")
    os.makedirs(classes_dir, exist_ok=True)
    cfg3 = dict(cfg)
    cfg3["id2label"] = {str(k): f"LABEL_{k}" for k in range(3)}
    cfg3["label2id"] = {f"LABEL_{k}": k for k in range(3)}
    cfg3["num_labels"] = 3
    torch.manual_seed(61)
    classifier = nn.Linear(cfg["hidden_size"], 3)
    base.init_weights(classifier)
    state3 = dict(state)
    state3["classifier.weight"], state3["classifier.bias"] = classifier.weight.detach(), classifier.bias.detach()
    base.save_safetensors(os.path.join(classes_dir, "model.safetensors"), state3)
    sentence.write_folder_files(classes_dir, cfg3, vocabulary)
    pairs = rr.make_pairs(torch.Generator().manual_seed(62), vocabulary)
    generator = torch.Generator().manual_seed(63)
    class_rows = [(q, d, int(torch.randint(0, 3, (1,), generator=generator)) if y < 0.5 else 2) for q, d, y in pairs]
    with open(os.path.join(classes_dir, "classes.jsonl"), "w") as f:
        for q, d, y in class_rows:
            f.write(json.dumps({"sentence1": text(q), "sentence2": text(d), "label": y}) + "\n")
    losses, trained = train_classes(state3, cfg3, class_rows, torch.float32)
    losses64, _ = train_classes(state3, cfg3, class_rows, torch.float64)
    print(f"cross_entropy: losses {losses[0]:.5f} -> {losses[-1]:.5f}")
    # CrossEncoderClassificationEvaluator (cross_encoder/evaluation/classification.py, num_labels > 1) of
    # the trained model (its 20 steps) on classes_dev.jsonl: argmax of predict's logits, sklearn's f1_score.
    dev = [(q, d, int(torch.randint(0, 3, (1,), generator=generator))) for q, d, _ in
           rr.make_pairs(torch.Generator().manual_seed(66), vocabulary)[:40]]
    with open(os.path.join(classes_dir, "classes_dev.jsonl"), "w") as f:
        for q, d, y in dev:
            f.write(json.dumps({"sentence1": text(q), "sentence2": text(d), "label": y}) + "\n")
    trained.eval()
    with torch.no_grad():
        predicted = trained(*rr.encode_pairs([(q, d) for q, d, _ in dev])).argmax(dim=1).tolist()
    truth = [y for _, _, y in dev]
    evaluation = {f"f1_{a}": float(f1_score(truth, predicted, average=a)) for a in ("macro", "micro", "weighted")}
    print("classification evaluation of the trained model:", evaluation, "predicted classes", sorted(set(predicted)))
    with open(os.path.join(classes_dir, "reference.json"), "w") as f:
        json.dump({"settings": {"steps": STEPS, "batch": PAIRS, "torch": torch.__version__},
                   "cases": {"cross_entropy": {"train_file": "classes.jsonl", "flags": "--loss CrossEntropyLoss",
                                               "losses": losses, "losses_fp64_run": losses64}},
                   "evaluation": evaluation}, f, indent=1)
        f.write("\n")

    with open(os.path.join(FIXTURES, "listwise_losses.json"), "w") as f:
        json.dump({"torch": torch.__version__, "cases": loss_values(torch.Generator().manual_seed(64))}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
