#!/usr/bin/env python3
"""Writes the tiny SQuAD v1.1 task the end-to-end tests train on (tests/fixtures/squad_tiny):
train.json and dev.json in SQuAD's format, and vocab.txt plus the config.json of a tiny BERT and
DistilBERT to train on it from random weights.

Usage: tools/make_squad_fixture.py [OUT_DIR]     (default: tests/fixtures/squad_tiny)

Standard library only and deterministic: running it twice writes byte-identical files.

Each context lists where some animals live ("the otter lives in Zürich ."), in random order,
between filler sentences; each question asks where one of them lives ("where does the otter
live?") and the answer is the place, one or two words, found after that animal's "lives in".
Place names carry accents and capitals (the offsets must point into the original text), and
some contexts are longer than the tests' max_seq_length, so they are cut into windows.
Every word of the text is a whole entry of vocab.txt (lower-cased, accents stripped).
"""
import json
import os
import random
import sys

SEED = 20241121
N_TRAIN, N_DEV = 240, 40

ANIMALS = ["otter", "heron", "badger", "lynx", "falcon", "beaver", "gecko", "walrus", "bison", "koala",
           "moose", "panda", "raven", "salmon", "tapir", "yak"]
PLACES = ["Zürich", "Paris", "São Paulo", "Kraków", "Lima", "New York", "Oslo", "Málaga", "Cairo",
          "Reykjavík", "Cape Town", "Quito", "Nairobi", "Montréal", "Hanoi", "Perth"]
FILLERS = ["it rained all day .", "the river was cold .", "nobody saw the moon .",
           "a storm came from the north .", "the market opened early ."]
QUESTION_WORDS = ["where", "does", "live", "?"]


def strip_accents(word):
    import unicodedata
    return "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")


def make_example(rng, index):
    count = rng.randint(2, 7)
    animals = rng.sample(ANIMALS, count)
    places = [rng.choice(PLACES) for _ in animals]
    sentences = [f"the {a} lives in {p} ." for a, p in zip(animals, places)]
    for _ in range(rng.randint(0, 3)):
        sentences.insert(rng.randint(0, len(sentences)), rng.choice(FILLERS))
    asked = rng.randrange(count)
    context = ""
    answer_start = None
    for sentence in sentences:
        if context:
            context += " "
        if sentence.startswith(f"the {animals[asked]} lives in "):
            answer_start = len(context) + len(f"the {animals[asked]} lives in ")
        context += sentence
    question = f"where does the {animals[asked]} live?"
    return {"context": context,
            "qas": [{"id": f"q{index:04d}", "question": question,
                     "answers": [{"text": places[asked], "answer_start": answer_start}]}]}


def dataset(rng, n, offset):
    paragraphs = [make_example(rng, offset + i) for i in range(n)]
    for p in paragraphs:
        a = p["qas"][0]["answers"][0]
        assert p["context"][a["answer_start"]:a["answer_start"] + len(a["text"])] == a["text"]
    return {"version": "1.1", "data": [{"title": "animals", "paragraphs": paragraphs}]}


def vocab():
    words = set(QUESTION_WORDS) | set(ANIMALS) | {"the", "lives", "in", ".", "?"}
    for text in PLACES + FILLERS:
        words |= {strip_accents(w).lower() for w in text.split()}
    return ["[PAD]"] + [f"[unused{i}]" for i in range(4)] + ["[UNK]", "[CLS]", "[SEP]", "[MASK]"] + sorted(words)


def bert_config(vocab_size):
    return {"architectures": ["BertForQuestionAnswering"], "model_type": "bert", "attention_probs_dropout_prob": 0.0,
            "hidden_act": "gelu", "hidden_dropout_prob": 0.0, "hidden_size": 64, "initializer_range": 0.02,
            "intermediate_size": 128, "layer_norm_eps": 1e-12, "max_position_embeddings": 64,
            "num_attention_heads": 2, "num_hidden_layers": 2, "pad_token_id": 0, "type_vocab_size": 2,
            "vocab_size": vocab_size}


def distilbert_config(vocab_size):
    return {"architectures": ["DistilBertForQuestionAnswering"], "model_type": "distilbert", "activation": "gelu",
            "attention_dropout": 0.0, "dim": 64, "dropout": 0.0, "hidden_dim": 128, "initializer_range": 0.02,
            "max_position_embeddings": 64, "n_heads": 2, "n_layers": 2, "pad_token_id": 0, "qa_dropout": 0.0,
            "seq_classif_dropout": 0.0, "sinusoidal_pos_embds": False, "vocab_size": vocab_size}


def write_json(path, value, indent=None):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False, indent=indent)
        f.write("\n")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures",
                                                             "squad_tiny")
    os.makedirs(out, exist_ok=True)
    rng = random.Random(SEED)
    write_json(os.path.join(out, "train.json"), dataset(rng, N_TRAIN, 0))
    write_json(os.path.join(out, "dev.json"), dataset(rng, N_DEV, N_TRAIN))
    tokens = vocab()
    with open(os.path.join(out, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(tokens) + "\n")
    write_json(os.path.join(out, "bert_config.json"), bert_config(len(tokens)), indent=2)
    write_json(os.path.join(out, "distilbert_config.json"), distilbert_config(len(tokens)), indent=2)
    print(f"{out}: {N_TRAIN} train and {N_DEV} dev questions, vocabulary of {len(tokens)}")


if __name__ == "__main__":
    main()
