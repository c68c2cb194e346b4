#!/usr/bin/env python3
"""Writes the tiny SQuAD 2.0 task of the end-to-end test (tests/fixtures/squad_v2_tiny):
train.json and dev.json in SQuAD 2.0's JSON format, over the contexts and vocabulary of
tools/make_squad_fixture.py (the model files stay in tests/fixtures/squad_tiny).

Usage: tools/make_squad_v2_fixture.py [OUT_DIR]     (default: tests/fixtures/squad_v2_tiny)

Standard library only and deterministic. Each paragraph is one of make_squad_fixture.py's (where
some animals live) with its answerable question, and about every third paragraph also asks about
an animal its context does not name: "is_impossible": true, no answers, and the place of another
paragraph as plausible_answers (which readers ignore).
"""
import json
import os
import random
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_squad_fixture as base  # noqa: E402

SEED = 20250612
N_TRAIN, N_DEV = 120, 30


def dataset(rng, n, offset):
    paragraphs = []
    for i in range(n):
        p = base.make_example(rng, offset + i)
        qa = p["qas"][0]
        qa["is_impossible"] = False
        if rng.random() < 0.35:
            absent = [a for a in base.ANIMALS if f"the {a} lives in" not in p["context"]]
            animal = rng.choice(absent)
            p["qas"].append({"id": f"{qa['id']}n", "question": f"where does the {animal} live?", "answers": [],
                             "is_impossible": True,
                             "plausible_answers": [{"text": qa["answers"][0]["text"],
                                                    "answer_start": qa["answers"][0]["answer_start"]}]})
        paragraphs.append(p)
    return {"version": "v2.0", "data": [{"title": "animals", "paragraphs": paragraphs}]}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures",
                                                             "squad_v2_tiny")
    os.makedirs(out, exist_ok=True)
    rng = random.Random(SEED)
    train = dataset(rng, N_TRAIN, 0)
    dev = dataset(rng, N_DEV, N_TRAIN)
    base.write_json(os.path.join(out, "train.json"), train)
    base.write_json(os.path.join(out, "dev.json"), dev)
    for name, data in (("train", train), ("dev", dev)):
        qas = [qa for p in data["data"][0]["paragraphs"] for qa in p["qas"]]
        impossible = sum(1 for qa in qas if qa["is_impossible"])
        print(f"{out}: {name} {len(qas)} questions, {impossible} unanswerable")


if __name__ == "__main__":
    main()
