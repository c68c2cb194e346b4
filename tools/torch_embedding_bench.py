#!/usr/bin/python3
"""Embedding inference in plain PyTorch eager, the peer bench/mine_negatives_vs_pytorch.sh measures
`shmtrain encode` (mine-negatives' embedding step) against, and the real English text both embed.

  /usr/bin/python3 tools/torch_embedding_bench.py --write-inputs DIR [--passages 100000] [--queries 10000]
      DIR/passages.txt: docstring paragraphs of this machine's Python 3 standard library and Debian
      Python packages (/usr/lib/python3.11, /usr/lib/python3/dist-packages: files in sorted order,
      paragraphs of 8 or more words, code examples left out, whitespace collapsed, duplicates
      removed), then paragraphs of /usr/share/doc/*/copyright and entries of its changelogs while they are
      fewer than asked (control characters dropped);
      DIR/pairs.jsonl: (query, answer) rows for mine-negatives, a passage's first sentence (at most
      16 words) as the query and the passage as the answer, spread evenly over the passages;
      DIR/model: BERT-base (BertModel) with random weights (torch.manual_seed(0), BERT's init) as
      model.safetensors, and a vocab.txt of the 30,517 most frequent words and marks of the passages
      after BertTokenizer's basic splitting (whole words: every other word is one [UNK], on both
      sides alike).
  /usr/bin/python3 tools/torch_embedding_bench.py --encode DIR --texts N --threads 2 [--batch 32]
      SentenceTransformer.encode's way on the first N passages: texts sorted by length (longest
      first, by characters as encode sorts them), batches of --batch padded to their longest text,
      BertModel under torch.no_grad(), mean pooling over the attention mask, L2 normalisation.
      The last line is `RESULT {json}`: texts_per_s, tokens (real, specials included), seconds.
Needs Debian's python3-torch.
"""
import argparse
import ast
import collections
import glob
import gzip
import json
import os
import re
import sys
import time
import unicodedata

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import make_head_references as bert  # noqa: E402
import torch_sentence_embedding as sentence  # noqa: E402

PAD, UNK, CLS, SEP, MASK = 0, 1, 2, 3, 4


def docstring_paragraphs():
    files = sorted(glob.glob("/usr/lib/python3.11/**/*.py", recursive=True)) + \
        sorted(glob.glob("/usr/lib/python3/dist-packages/**/*.py", recursive=True))
    for path in files:
        try:
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read())
        except (SyntaxError, UnicodeDecodeError, ValueError, OSError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
                doc = ast.get_docstring(node)
                for paragraph in re.split(r"\n\s*\n", doc or ""):
                    words = paragraph.split()
                    if len(words) >= 8 and not paragraph.lstrip().startswith((">>>", "..", ":")):
                        yield " ".join(words)


def copyright_paragraphs():
    for path in sorted(glob.glob("/usr/share/doc/*/copyright")):
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        for paragraph in re.split(r"\n\s*\n", text):
            words = paragraph.split()
            if len(words) >= 8:
                yield " ".join(words)


def changelog_entries():
    for path in sorted(glob.glob("/usr/share/doc/*/changelog*.gz")):
        try:
            with gzip.open(path, "rt", encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError, EOFError):
            continue
        for entry in re.split(r"\n\s*(?:\*|-)\s", text):
            words = entry.split()
            if 8 <= len(words) <= 200 and not entry.lstrip().startswith("--"):
                yield " ".join(words)


def clean(text):
    """Control and format characters dropped (BertTokenizer's _clean_text drops them too), spaces collapsed."""
    return " ".join("".join(c if unicodedata.category(c)[0] != "C" else " " for c in text).split())


def write_inputs(out, passages, queries):
    os.makedirs(os.path.join(out, "model"), exist_ok=True)
    texts = []
    for source in (docstring_paragraphs, copyright_paragraphs, changelog_entries):
        texts = list(dict.fromkeys(texts + [t for t in map(clean, source()) if len(t.split()) >= 8]))
        if len(texts) >= passages:
            break
    texts = texts[:passages]
    with open(os.path.join(out, "passages.txt"), "w") as f:
        f.write("\n".join(texts) + "\n")
    step = max(1, len(texts) // max(queries, 1))
    with open(os.path.join(out, "pairs.jsonl"), "w") as f:
        for text in texts[::step][:queries]:
            first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0].split()[:16]
            f.write(json.dumps({"query": " ".join(first), "answer": text}) + "\n")
    counts = collections.Counter(w for t in texts for w in sentence.basic_tokens(t))
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [w for w, _ in counts.most_common(30522 - 5)]
    with open(os.path.join(out, "model", "vocab.txt"), "w") as f:
        f.write("\n".join(vocab) + "\n")
    config = sentence.bert_base()
    config["vocab_size"] = len(vocab)
    with open(os.path.join(out, "model", "config.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
    with open(os.path.join(out, "model", "tokenizer_config.json"), "w") as f:
        json.dump({"do_lower_case": True, "tokenizer_class": "BertTokenizer"}, f)
    torch.manual_seed(0)
    model = bert.BertModelNoPooler(config)
    model.apply(bert.init_weights)
    bert.save_safetensors(os.path.join(out, "model", "model.safetensors"), model.state_dict())
    print(f"{len(texts)} passages, {min(queries, len(texts[::step]))} queries, {len(vocab)} vocabulary entries")


def encode(a):
    torch.set_num_threads(a.threads)
    model_dir = os.path.join(a.encode, "model")
    with open(os.path.join(model_dir, "config.json")) as f:
        config = json.load(f)
    with open(os.path.join(model_dir, "vocab.txt")) as f:
        vocab = {w.rstrip("\n"): i for i, w in enumerate(f)}
    with open(os.path.join(a.encode, "passages.txt")) as f:
        texts = [line.rstrip("\n") for line in f][: a.texts]
    model = bert.BertModelNoPooler(config)
    state = bert.load_safetensors(os.path.join(model_dir, "model.safetensors"))
    model.load_state_dict(state)
    model.eval()
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    start = time.perf_counter()
    tokens = 0
    out = torch.empty(len(texts), config["hidden_size"])
    with torch.no_grad():
        for first in range(0, len(order), a.batch):
            rows = order[first:first + a.batch]
            ids, mask, real = sentence.pad_column([texts[i] for i in rows], vocab, a.max_seq_length)
            hidden = model(ids, torch.zeros_like(ids), mask)
            out[rows] = F.normalize(sentence.mean_pool(hidden, mask), dim=1)
            tokens += real
    seconds = time.perf_counter() - start
    print("RESULT " + json.dumps({"texts": len(texts), "tokens": tokens, "seconds": seconds,
                                  "texts_per_s": len(texts) / seconds, "threads": a.threads, "batch": a.batch,
                                  "torch": torch.__version__}), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write-inputs", metavar="DIR")
    ap.add_argument("--passages", type=int, default=100000)
    ap.add_argument("--queries", type=int, default=10000)
    ap.add_argument("--encode", metavar="DIR")
    ap.add_argument("--texts", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--max-seq-length", type=int, default=512)
    a = ap.parse_args()
    if a.write_inputs:
        write_inputs(a.write_inputs, a.passages, a.queries)
    elif a.encode:
        encode(a)
    else:
        ap.print_help()


if __name__ == "__main__":
    main()
