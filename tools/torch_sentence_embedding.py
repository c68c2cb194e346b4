#!/usr/bin/python3
"""Sentence-embedding and reranker training in plain PyTorch eager, the peer that
bench/sentence_vs_pytorch.sh measures shmtrain's `--task_name sentence-embedding` and `--task_name
reranking` against, and the inputs both sides train on.

  /usr/bin/python3 tools/torch_sentence_embedding.py --write-inputs DIR --model bert|modernbert
      DIR/triplets.jsonl: (anchor, positive, negative) triplets of the demo's English sentences
      (demo/paraphrase/train.tsv: a paraphrase pair's two sentences as anchor and positive, the second
      sentence of the next non-paraphrase pair as the negative); DIR/model: the model folder (config.json
      of BERT-base or ModernBERT-base, BertModel / ModernBertModel, random weights; the demo's vocab.txt).
  /usr/bin/python3 tools/torch_sentence_embedding.py --bench-one DIR --threads 2 --batch 64 --steps 3 --warmup 1

--bench-one trains as sentence-transformers' SentenceTransformerTrainer does with
MultipleNegativesRankingLoss (losses/MultipleNegativesRankingLoss.py): each column tokenized and
padded to its own longest text (SentenceTransformer.tokenize: padding=True), run through the
encoder separately, mean-pooled over the attention mask (models/Pooling.py), cos_sim x 20,
cross-entropy with labels arange; then clip to norm 1.0 and AdamW with the Trainer's defaults (lr 5e-5,
weight decay 0), zero_grad. Steps take rows batch*k.. of the
file in order. The encoders are tools/make_head_references.py's BertModelNoPooler (transformers'
modeling_bert.py; dropout 0.1 as BERT-base has it) and tools/make_modernbert_references.py's
ModernBertModel (eager attention on padded batches; ModernBERT-base's dropouts are 0), imported.
Tokens: the demo vocabulary holds every word and punctuation mark whole, so BertTokenizer's basic
splitting (lower case, punctuation split off) maps each to one id, as shmtrain's WordPiece does.
The last line is `RESULT {json}`: samples_per_s (triplets) and tokens_per_s (real tokens of the three
columns) over the timed steps, step_seconds_median, peak_rss_gib, loss. Needs Debian's python3-torch.

With --reranker: --write-inputs writes DIR/pairs.jsonl, (query, document, label) rows of the demo's pairs
(#1 string, #2 string, Quality), and the model folder as <Family>ForSequenceClassification with one label;
--bench-one trains it as sentence-transformers' BinaryCrossEntropyLoss does (cross_encoder/losses/
BinaryCrossEntropyLoss.py: the pairs tokenized together, "[CLS] query [SEP] document [SEP]" with token types
0 then 1, padded to the batch's longest pair; logits.view(-1), BCEWithLogitsLoss). Transformers' heads:
BertForSequenceClassification (pooler dense + tanh on [CLS], dropout, classifier) and
ModernBertForSequenceClassification (tools/make_modernbert_references.py, mean pooling as ModernBERT-base's
config has it). samples_per_s counts pairs.
"""
import argparse
import csv
import json
import os
import statistics
import sys
import unicodedata

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_head_references as bert  # noqa: E402
import make_modernbert_references as mb  # noqa: E402
import torch_classifier_bench as bench  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PAD, UNK, CLS, SEP, MASK = 0, 1, 2, 3, 4  # the demo vocabulary's first five entries


def bert_base():
    return {"architectures": ["BertModel"], "model_type": "bert", "attention_probs_dropout_prob": 0.1,
            "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768, "initializer_range": 0.02,
            "intermediate_size": 3072, "layer_norm_eps": 1e-12, "max_position_embeddings": 512,
            "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": PAD,
            "position_embedding_type": "absolute", "torch_dtype": "float32", "type_vocab_size": 2,
            "vocab_size": 30522}


def modernbert_base():
    c = mb.legacy_config("ModernBertModel", "mean", None)
    c.update({"hidden_size": 768, "intermediate_size": 1152, "num_attention_heads": 12, "num_hidden_layers": 22,
              "vocab_size": 50368, "max_position_embeddings": 8192, "local_attention": 128,
              "global_attn_every_n_layers": 3, "global_rope_theta": 160000.0, "local_rope_theta": 10000.0,
              "pad_token_id": PAD, "cls_token_id": CLS, "sep_token_id": SEP, "bos_token_id": CLS,
              "eos_token_id": SEP, "mask_token_id": MASK, "attention_dropout": 0.0, "embedding_dropout": 0.0,
              "mlp_dropout": 0.0})
    return c


def write_inputs(out, model, reranker=False):
    os.makedirs(os.path.join(out, "model"), exist_ok=True)
    demo = os.path.join(ROOT, "demo", "paraphrase")
    with open(os.path.join(demo, "train.tsv")) as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
    positives = [r for r in rows if r[0] == "1"]
    negatives = [r[4] for r in rows if r[0] == "0"]
    with open(os.path.join(out, "triplets.jsonl"), "w") as f:
        for i, r in enumerate(positives):
            f.write(json.dumps({"anchor": r[3], "positive": r[4], "negative": negatives[i % len(negatives)]}) + "\n")
    config = bert_base() if model == "bert" else modernbert_base()
    if reranker:
        with open(os.path.join(out, "pairs.jsonl"), "w") as f:
            for r in rows:
                f.write(json.dumps({"query": r[3], "document": r[4], "label": float(r[0])}) + "\n")
        config["architectures"] = [config["architectures"][0].replace("Model", "ForSequenceClassification")]
        config.update({"id2label": {"0": "LABEL_0"}, "label2id": {"LABEL_0": 0}})
    with open(os.path.join(out, "model", "config.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
    with open(os.path.join(demo, "vocab.txt")) as src, open(os.path.join(out, "model", "vocab.txt"), "w") as dst:
        dst.write(src.read())
    with open(os.path.join(out, "model", "tokenizer_config.json"), "w") as f:
        json.dump({"do_lower_case": True, "tokenizer_class": "BertTokenizer"}, f)


def basic_tokens(text):
    """BertTokenizer's basic splitting: lower case, accents stripped, whitespace and punctuation split."""
    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    out, word = [], ""
    for c in text:
        if c.isspace() or unicodedata.category(c).startswith("P") or c in "$+<=>^`|~":
            if word:
                out.append(word)
            word = ""
            if not c.isspace():
                out.append(c)
        else:
            word += c
    if word:
        out.append(word)
    return out


def pad_column(texts, vocab, max_len):
    ids = [[CLS] + [vocab.get(w, UNK) for w in basic_tokens(t)][: max_len - 2] + [SEP] for t in texts]
    width = max(len(x) for x in ids)
    input_ids = torch.tensor([x + [PAD] * (width - len(x)) for x in ids])
    mask = torch.tensor([[1] * len(x) + [0] * (width - len(x)) for x in ids])
    return input_ids, mask, sum(len(x) for x in ids)


def mean_pool(hidden, mask):
    m = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * m).sum(1) / torch.clamp(m.sum(1), min=1e-9)


class BertReranker(torch.nn.Module):
    """transformers' BertForSequenceClassification with one label: BertModel, its pooler, dropout, classifier."""

    def __init__(self, c):
        super().__init__()
        self.bert = bert.BertModelNoPooler(c)
        self.pooler = torch.nn.Linear(c["hidden_size"], c["hidden_size"])
        self.dropout = torch.nn.Dropout(c["hidden_dropout_prob"])
        self.classifier = torch.nn.Linear(c["hidden_size"], 1)

    def forward(self, ids, types, mask):
        hidden = self.bert(ids, types, mask)
        return self.classifier(self.dropout(torch.tanh(self.pooler(hidden[:, 0]))))


def pad_pairs(pairs, vocab, max_len):
    rows = []
    for query, document in pairs:
        a = [vocab.get(w, UNK) for w in basic_tokens(query)]
        b = [vocab.get(w, UNK) for w in basic_tokens(document)]
        while len(a) + len(b) > max_len - 3:  # truncation longest_first
            (a if len(a) > len(b) else b).pop()
        rows.append(([CLS] + a + [SEP], b + [SEP]))
    width = max(len(x) + len(y) for x, y in rows)
    ids = torch.tensor([x + y + [PAD] * (width - len(x) - len(y)) for x, y in rows])
    types = torch.tensor([[0] * len(x) + [1] * len(y) + [0] * (width - len(x) - len(y)) for x, y in rows])
    mask = torch.tensor([[1] * (len(x) + len(y)) + [0] * (width - len(x) - len(y)) for x, y in rows])
    return ids, types, mask, sum(len(x) + len(y) for x, y in rows)


def bench_reranker(a, config, vocab):
    with open(os.path.join(a.bench_one, "pairs.jsonl")) as f:
        rows = [json.loads(line) for line in f]
    torch.manual_seed(0)
    if config["model_type"] == "bert":
        model = BertReranker(config)
        model.apply(bert.init_weights)
        score = lambda ids, types, mask: model(ids, types, mask)  # noqa: E731
    else:
        model = mb.ModernBertForSequenceClassification(config)
        mb.init_weights(model)
        score = lambda ids, types, mask: model.logits({"input_ids": ids, "attention_mask": mask})  # noqa: E731
    model.train()
    optimizer = bert.adamw(model, lr=5e-5, weight_decay=0.0)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    next_row = [0]

    def step():
        batch = [rows[(next_row[0] + i) % len(rows)] for i in range(a.batch)]
        next_row[0] += a.batch
        ids, types, mask, tokens = pad_pairs([(r["query"], r["document"]) for r in batch], vocab, a.max_seq_length)
        loss = loss_fn(score(ids, types, mask).view(-1), torch.tensor([r["label"] for r in batch]))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return float(loss), tokens

    return model, step


def bench_one(a):
    torch.set_num_threads(a.threads)
    with open(os.path.join(a.bench_one, "model", "config.json")) as f:
        config = json.load(f)
    with open(os.path.join(a.bench_one, "model", "vocab.txt")) as f:
        vocab = {w.rstrip("\n"): i for i, w in enumerate(f)}
    if a.reranker:
        model, step = bench_reranker(a, config, vocab)
        return report(a, config, model, step)
    with open(os.path.join(a.bench_one, "triplets.jsonl")) as f:
        rows = [json.loads(line) for line in f]
    torch.manual_seed(0)
    if config["model_type"] == "bert":
        model = bert.BertModelNoPooler(config)
        model.apply(bert.init_weights)
        encode = lambda ids, mask: model(ids, torch.zeros_like(ids), mask)  # noqa: E731
    else:
        model = mb.ModernBertModel(mb.resolve_config(config))
        mb.init_weights(model)
        encode = lambda ids, mask: model(ids, mask)  # noqa: E731
    model.train()
    optimizer = bert.adamw(model, lr=5e-5, weight_decay=0.0)
    next_row = [0]

    def step():
        batch = [rows[(next_row[0] + i) % len(rows)] for i in range(a.batch)]
        next_row[0] += a.batch
        reps, tokens = [], 0
        for column in ("anchor", "positive", "negative"):
            ids, mask, real = pad_column([r[column] for r in batch], vocab, a.max_seq_length)
            reps.append(mean_pool(encode(ids, mask), mask))
            tokens += real
        scores = F.normalize(reps[0], dim=1) @ F.normalize(torch.cat(reps[1:]), dim=1).T * 20.0
        loss = F.cross_entropy(scores, torch.arange(len(batch)))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return float(loss), tokens

    return report(a, config, model, step)


def report(a, config, model, step):
    times, results = bench.timed_steps(step, a.warmup, a.steps)
    total = sum(times)
    print("RESULT " + json.dumps({
        "samples_per_s": a.batch * a.steps / total, "tokens_per_s": sum(t for _, t in results) / total,
        "step_seconds_median": statistics.median(times), "peak_rss_gib": round(bench.peak_rss_gib(), 3),
        "threads": a.threads, "model_type": config["model_type"], "reranker": a.reranker, "batch": a.batch,
        "steps": a.steps,
        "warmup": a.warmup, "loss": results[-1][0], "torch": torch.__version__}), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write-inputs", metavar="DIR")
    ap.add_argument("--model", choices=["bert", "modernbert"], default="bert")
    ap.add_argument("--bench-one", metavar="DIR")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--max-seq-length", type=int, default=128)
    ap.add_argument("--reranker", action="store_true", help="pairs and a one-score cross-encoder (BCE)")
    a = ap.parse_args()
    if a.write_inputs:
        write_inputs(a.write_inputs, a.model, a.reranker)
    elif a.bench_one:
        bench_one(a)
    else:
        ap.print_help()


if __name__ == "__main__":
    main()
