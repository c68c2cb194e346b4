#!/usr/bin/python3
"""PyTorch reference for shmtrain's sentence-embedding training (--task_name sentence-embedding).

Usage: /usr/bin/python3 tools/make_sentence_embedding_references.py [OUT_DIR]
       (default: tests/fixtures/sentence_embedding/bert_tiny)

Needs Debian's python3-torch; CI does not run it: its output is committed. Writes a tiny BERT as
a model folder (BertModel: config.json, model.safetensors, vocab.txt, tokenizer_config.json), one
JSON Lines training file per case, and reference.json with PyTorch's loss at each of 20 steps.

The model is tools/make_head_references.py's BertModel without pooler (transformers'
modeling_bert.py). What follows it is sentence-transformers v5.1, ported from its source:
models/Pooling.py (mean: sum of the masked tokens / clamp(count, 1e-9); cls: token 0),
models/Normalize.py (F.normalize), losses/MultipleNegativesRankingLoss.py (cos_sim x scale 20,
cross-entropy, labels arange), losses/CoSENTLoss.py and AnglELoss.py (pairwise_cos_sim /
pairwise_angle_sim of util/similarity.py, logsumexp over the pairs with label_i < label_j and a
zero), losses/MatryoshkaLoss.py (shrink: truncate, F.normalize; weighted sum, dims largest
first) and losses/CachedMultipleNegativesRankingLoss.py (GradCache: train_cached). Each text is tokenized alone as BertTokenizer does for words of the vocabulary:
"[CLS] words [SEP]", token types 0, and a batch is padded to its longest text, as
SentenceTransformer's tokenizer pads (padding=True).

Recipe (as make_head_references.py): 20 AdamW steps of 8 examples (rows 8i..8i+7 of the file,
shuffle off), lr 1e-3, weight decay 0.01 except biases and LayerNorm, constant LR, clip 1.0,
dropout 0; the loss recorded before each step; a float64 run beside it as the noise floor. One
thread, fixed seeds.

A second folder, modernbert_tiny (OUT_DIR/../modernbert_tiny), holds a tiny ModernBERT (the port of
tools/make_modernbert_references.py: rotary, GeGLU, global and sliding layers, final_norm; the
ModernBertModel names) over the same vocabulary and data, with the losses of MNRL on the triplets,
CoSENT on the scored pairs and Matryoshka(MNRL).
"""
import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import make_head_references as base  # noqa: E402
import make_sentence_loss_references as losses  # noqa: E402
from make_sentence_loss_references import cos_sim, pairwise_angle_sim, pairwise_cos_sim  # noqa: E402

VOCAB, STEPS, BATCH = 128, 20, 8
PAD, UNK, CLS, SEP, MASK = 0, 1, 2, 3, 4


def words():
    consonants, vowels = "bdfgklmnprstvz", "aeiou"
    out = []
    for c1 in consonants:
        for v1 in vowels:
            for c2 in "lnr":
                out.append(c1 + v1 + c2)
    return out[: VOCAB - 5]


def write_folder_files(folder, config, vocabulary):
    """A model folder's config.json, vocab.txt (the five specials, then the words) and tokenizer_config.json."""
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
        f.write("\n")
    with open(os.path.join(folder, "vocab.txt"), "w") as f:
        f.write("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + vocabulary) + "\n")
    with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
        json.dump({"do_lower_case": True, "tokenizer_class": "BertTokenizer"}, f, indent=2)
        f.write("\n")


def config():
    c = base.bert_config("BertModel", 2)
    c["vocab_size"] = VOCAB
    del c["id2label"], c["label2id"], c["num_labels"]
    return c


def pool(hidden, mask, mode):
    if mode == "cls":
        return hidden[:, 0]
    expanded = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * expanded).sum(1) / torch.clamp(expanded.sum(1), min=1e-9)


def mnrl(reps, scale=20.0):
    anchors, candidates = reps[0], torch.cat(reps[1:])
    scores = cos_sim(anchors, candidates) * scale
    return F.cross_entropy(scores, torch.arange(len(scores)))


def cosent(reps, labels, similarity):
    return losses.cosent(reps[0], reps[1], labels, similarity)


def matryoshka(inner, dims, weights):
    def loss(reps, labels):
        order = sorted(zip(dims, weights), key=lambda x: x[0], reverse=True)
        return sum(w * inner([F.normalize(r[..., :d], p=2, dim=-1) for r in reps], labels) for d, w in order)
    return loss


CASES = {
    # name: (columns, scored, pooling, normalize, loss(reps, labels), extra flags)
    "mnrl_triplets": (["anchor", "positive", "negative"], False, "mean", False, lambda r, l: mnrl(r), ""),
    "mnrl_pairs_cls_normalize": (["anchor", "positive"], False, "cls", True, lambda r, l: mnrl(r),
                                 "--pooling cls --normalize"),
    "cosent": (["sentence1", "sentence2"], True, "mean", False, lambda r, l: cosent(r, l, pairwise_cos_sim),
               "--loss CoSENTLoss"),
    "angle": (["sentence1", "sentence2"], True, "mean", False, lambda r, l: cosent(r, l, pairwise_angle_sim),
              "--loss AnglELoss"),
    "matryoshka_mnrl": (["anchor", "positive", "negative"], False, "mean", False,
                        matryoshka(lambda r, l: mnrl(r), [16, 32, 8], [0.5, 1.0, 0.25]),
                        "--matryoshka_dims 16,32,8 --matryoshka_weights 0.5,1.0,0.25"),
}


def make_rows(generator, vocabulary, columns, scored):
    randint = lambda lo, hi: int(torch.randint(lo, hi + 1, (1,), generator=generator))
    rows = []
    for _ in range(STEPS * BATCH):
        anchor = [randint(0, len(vocabulary) - 1) for _ in range(randint(3, 12))]
        row = {columns[0]: anchor}
        # The positive shares half the anchor's words; negatives are random.
        positive = anchor[: len(anchor) // 2] + [randint(0, len(vocabulary) - 1) for _ in range(randint(1, 6))]
        row[columns[1]] = positive
        for column in columns[2:]:
            row[column] = [randint(0, len(vocabulary) - 1) for _ in range(randint(2, 12))]
        if scored:
            row["score"] = randint(0, 5) / 5.0  # ties on purpose
        rows.append(row)
    return rows


def text(ids, vocabulary):
    return " ".join(vocabulary[i] for i in ids)


def encode(batch_ids):
    longest = max(len(ids) for ids in batch_ids) + 2
    input_ids, mask = [], []
    for ids in batch_ids:
        tokens = [CLS] + [i + 5 for i in ids] + [SEP]
        input_ids.append(tokens + [PAD] * (longest - len(tokens)))
        mask.append([1] * len(tokens) + [0] * (longest - len(tokens)))
    return torch.tensor(input_ids), torch.tensor(mask)


def train_loop(model, hidden_of, rows, columns, scored, mode, normalize, loss_fn, dtype):
    """20 AdamW steps of `model` (hidden_of(ids, mask) its last hidden states): each column encoded
    alone, pooled (and normalised), the loss over the columns' embeddings."""
    model.train()
    optimizer = base.adamw(model)
    losses = []
    for step in range(STEPS):
        batch = rows[step * BATCH:(step + 1) * BATCH]
        reps = []
        for column in columns:
            ids, mask = encode([r[column] for r in batch])
            emb = pool(hidden_of(ids, mask), mask, mode)
            reps.append(F.normalize(emb, p=2, dim=1) if normalize else emb)
        labels = torch.tensor([r["score"] for r in batch], dtype=dtype) if scored else None
        loss = loss_fn(reps, labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(float(loss))
    return losses


def train(state, cfg, rows, columns, scored, mode, normalize, loss_fn, dtype):
    model = base.BertModelNoPooler(cfg).to(dtype)
    model.load_state_dict({k: v.to(dtype) for k, v in state.items()})
    return train_loop(model, lambda ids, mask: model(ids, torch.zeros_like(ids), mask), rows, columns, scored, mode,
                      normalize, loss_fn, dtype)


def train_cached(state, cfg, rows, columns, mini, dtype):
    """CachedMultipleNegativesRankingLoss's three stages, as its source runs them: each column
    embedded in chunks of `mini` texts without a graph; the loss over anchor chunks of `mini`
    (cross-entropy x len / batch), its gradient on the embeddings kept; each chunk embedded again
    with a graph and backpropagated through dot(embeddings, kept gradient)."""
    model = base.BertModelNoPooler(cfg).to(dtype)
    model.load_state_dict({k: v.to(dtype) for k, v in state.items()})
    model.train()
    optimizer = base.adamw(model)

    def embed(ids, mask):
        return pool(model(ids, torch.zeros_like(ids), mask), mask, "mean")

    losses = []
    for step in range(STEPS):
        batch = rows[step * BATCH:(step + 1) * BATCH]
        features = [encode([r[c] for r in batch]) for c in columns]
        reps = []
        with torch.no_grad():
            for ids, mask in features:
                reps.append([embed(ids[b:b + mini], mask[b:b + mini]).detach().requires_grad_()
                             for b in range(0, len(ids), mini)])
        anchors, candidates = torch.cat(reps[0]), torch.cat([torch.cat(r) for r in reps[1:]])
        loss = 0.0
        for b in range(0, len(anchors), mini):
            scores = cos_sim(anchors[b:b + mini], candidates) * 20.0
            part = F.cross_entropy(scores, torch.arange(b, b + len(scores))) * len(scores) / len(anchors)
            part.backward()
            loss += float(part)
        cache = [[r.grad for r in column] for column in reps]
        for (ids, mask), grads in zip(features, cache):
            for i, b in enumerate(range(0, len(ids), mini)):
                torch.dot(embed(ids[b:b + mini], mask[b:b + mini]).flatten(), grads[i].flatten()).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss)
    return losses


def modernbert(out, vocabulary, rows):
    import make_modernbert_references as mb
    folder = os.path.join(os.path.dirname(os.path.abspath(out)), "modernbert_tiny")
    os.makedirs(folder, exist_ok=True)
    c = mb.legacy_config("ModernBertModel", "mean", None)
    c.update({"vocab_size": VOCAB, "pad_token_id": PAD, "cls_token_id": CLS, "sep_token_id": SEP, "bos_token_id": CLS,
              "eos_token_id": SEP})
    r = mb.resolve_config(c)
    torch.manual_seed(48)
    model = mb.ModernBertModel(r)
    mb.init_weights(model)
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    base.save_safetensors(os.path.join(folder, "model.safetensors"), state)
    write_folder_files(folder, c, vocabulary)

    def run(dtype, columns, scored, loss_fn, case_rows):
        m = mb.build(mb.ModernBertModel, r, state, dtype)
        return train_loop(m, m, case_rows, columns, scored, "mean", False, loss_fn, dtype)

    cases = {}
    for name in ("mnrl_triplets", "cosent", "matryoshka_mnrl"):
        columns, scored, _, _, loss_fn, flags = CASES[name]
        losses = run(torch.float32, columns, scored, loss_fn, rows[name])
        losses64 = run(torch.float64, columns, scored, loss_fn, rows[name])
        worst = max(abs(a - b) / abs(b) for a, b in zip(losses, losses64))
        print(f"modernbert {name}: losses {losses[0]:.5f} -> {losses[-1]:.5f}, fp32 vs fp64 {worst:.2e}")
        cases[name] = {"train_file": f"../bert_tiny/{name}.jsonl", "flags": flags, "losses": losses,
                       "losses_fp64_run": losses64}
    with open(os.path.join(folder, "reference.json"), "w") as f:
        json.dump({"cases": cases}, f, indent=1)
        f.write("\n")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures",
                                                             "sentence_embedding", "bert_tiny")
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(1)
    torch.manual_seed(45)
    cfg = config()
    model = base.BertModelNoPooler(cfg)
    model.apply(base.init_weights)
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    base.save_safetensors(os.path.join(out, "model.safetensors"), state)
    vocabulary = words()
    write_folder_files(out, cfg, vocabulary)
    reference = {"settings": {"steps": STEPS, "batch": BATCH, "lr": 1e-3, "weight_decay": 0.01, "clip": 1.0,
                              "scheduler": "constant", "dropout": 0.0, "torch": torch.__version__}, "cases": {}}
    generator = torch.Generator().manual_seed(46)
    all_rows = {}
    for name, (columns, scored, mode, normalize, loss_fn, flags) in CASES.items():
        rows = make_rows(generator, vocabulary, columns, scored)
        all_rows[name] = rows
        with open(os.path.join(out, f"{name}.jsonl"), "w") as f:
            for r in rows:
                record = {c: text(r[c], vocabulary) for c in columns}
                if scored:
                    record["score"] = r["score"]
                f.write(json.dumps(record) + "\n")
        losses = train(state, cfg, rows, columns, scored, mode, normalize, loss_fn, torch.float32)
        losses64 = train(state, cfg, rows, columns, scored, mode, normalize, loss_fn, torch.float64)
        worst = max(abs(a - b) / max(abs(b), 1e-12) for a, b in zip(losses, losses64))
        reference["cases"][name] = {"train_file": f"{name}.jsonl", "flags": flags, "losses": losses,
                                    "losses_fp64_run": losses64}
        print(f"{name}: losses {losses[0]:.5f} -> {losses[-1]:.5f}, fp32 vs fp64 {worst:.2e}")
    # CachedMNRL on the triplets (its own file's rows), chunks of 3 texts: not a divisor of 8.
    columns = CASES["mnrl_triplets"][0]
    losses = train_cached(state, cfg, all_rows["mnrl_triplets"], columns, 3, torch.float32)
    losses64 = train_cached(state, cfg, all_rows["mnrl_triplets"], columns, 3, torch.float64)
    reference["cases"]["cached_mnrl_triplets"] = {
        "train_file": "mnrl_triplets.jsonl", "flags": "--loss CachedMultipleNegativesRankingLoss --mini_batch_size 3",
        "losses": losses, "losses_fp64_run": losses64}
    plain = reference["cases"]["mnrl_triplets"]["losses"]
    print(f"cached_mnrl_triplets: losses {losses[0]:.5f} -> {losses[-1]:.5f}, vs MNRL's "
          f"{max(abs(a - b) / abs(b) for a, b in zip(losses, plain)):.2e}")
    # Embeddings of the initial model (SentenceTransformer.encode: each text alone, padded batch),
    # mean-pooled and normalised, and cls-pooled without normalising, for `shmtrain encode`.
    texts_generator = torch.Generator().manual_seed(47)
    texts = [[int(torch.randint(0, len(vocabulary), (1,), generator=texts_generator))
              for _ in range(int(torch.randint(1, 20, (1,), generator=texts_generator)))] for _ in range(12)]
    model = base.BertModelNoPooler(cfg)
    model.load_state_dict(state)
    model.eval()
    with torch.no_grad():
        ids, mask = encode(texts)
        hidden = model(ids, torch.zeros_like(ids), mask)
        reference["encode"] = {
            "texts": [text(t, vocabulary) for t in texts],
            "mean_normalized": F.normalize(pool(hidden, mask, "mean"), p=2, dim=1).flatten().tolist(),
            "cls": pool(hidden, mask, "cls").flatten().tolist()}
    with open(os.path.join(out, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
        f.write("\n")
    modernbert(out, vocabulary, all_rows)


if __name__ == "__main__":
    main()
