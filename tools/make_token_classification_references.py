#!/usr/bin/python3
"""PyTorch reference fixtures for shmtrain's token classification heads, and a toy NER data set.

Usage: /usr/bin/python3 tools/make_token_classification_references.py [OUT_DIR [NER_DIR]]
       (defaults: tests/fixtures/reference_heads and tests/fixtures/ner_tiny)

Needs Debian's python3-torch (/usr/bin/python3); CI does not run it: its output is committed.
Reuses tools/make_head_references.py (BERT and DistilBERT encoders, init, AdamW, safetensors
writer, training run, export) and tools/make_roberta_references.py (RoBERTa's encoder and
config). The heads follow transformers 4.3x/4.4x modeling_bert.py, modeling_roberta.py and
modeling_distilbert.py:

  bert_tok        BertForTokenClassification: BertModel without pooler (add_pooling_layer=False),
                  dropout(classifier_dropout if not None else hidden_dropout_prob), classifier (H -> 5)
  roberta_tok     RobertaForTokenClassification: the same on RobertaModel without pooler
                  (roberta.*, classifier.*; positions from the ids, pad 1)
  distilbert_tok  DistilBertForTokenClassification: distilbert, dropout(config.dropout), classifier

Loss (all three): CrossEntropyLoss()(logits.view(-1, 5), labels.view(-1)): ignore_index -100,
reduction mean, i.e. the mean over the batch's labelled positions (not a mean of row means).
Labels O, B-PER, I-PER, B-LOC, I-LOC.

Batches: 20 of 4 x 24, single sequences "[CLS] words [SEP]" (RoBERTa "<s> words </s>"), the
first row unpadded, the others padded at the right; token types all 0. Words are 1-3 tokens
long: a word's first token is labelled (0..4, a fixed function of the token id, so the loss can
fall), its other tokens, the specials and the padding are -100. Within a batch every row has a
different number of labelled tokens and rows 0-1 hold a different number than rows 2-3; the
top level of batches.json has "labelled_per_half": [[labelled in rows 0-1, in rows 2-3], ...]
per batch, for a 2-worker run, whose halves' mean losses must be weighted by these counts.

Recipe as make_head_references.py: 20 AdamW steps (lr 1e-3, weight decay 0.01 except biases and
LayerNorm modules, constant LR, clip 1.0, dropout 0), fp32 and fp64 losses, grad norms before
clipping, step-0 gradient norms per parameter, parameter norms after 20 steps. One thread,
fixed seeds. Prints a step-0 check (fp64) that the full batch's loss equals the halves' losses
weighted by labelled_per_half, and how far the unweighted mean of the halves is from it, and
make_roberta_references.py's padding-invariance check for roberta_tok.

NER_DIR gets a made-up CoNLL-2003-format toy NER set (train/dev/test.txt, train.jsonl), see
its README.md; the sentences come from fixed templates, not from any corpus.
"""
import json
import os
import random
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_head_references as base  # noqa: E402
import make_roberta_references as rob  # noqa: E402

IGNORE = -100
LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
NUM_LABELS = len(LABELS)


# ------------------------------------------------------------------------------------- the heads
def token_loss(logits, labels):  # HF: CrossEntropyLoss()(logits.view(-1, num_labels), labels.view(-1))
    return F.cross_entropy(logits.view(-1, logits.shape[-1]), labels.view(-1), ignore_index=IGNORE)


def classifier_dropout(c):
    return c["classifier_dropout"] if c["classifier_dropout"] is not None else c["hidden_dropout_prob"]


class BertForTokenClassification(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.bert = base.BertModelNoPooler(c)
        self.dropout = nn.Dropout(classifier_dropout(c))
        self.classifier = nn.Linear(c["hidden_size"], c["num_labels"])

    def logits(self, b):
        return self.classifier(self.dropout(self.bert(b["input_ids"], b["token_type_ids"], b["attention_mask"])))

    def forward(self, b):
        return token_loss(self.logits(b), b["labels"])


class RobertaForTokenClassification(BertForTokenClassification):
    def __init__(self, c):
        nn.Module.__init__(self)
        self.roberta = rob.RobertaModelNoPooler(c)
        self.dropout = nn.Dropout(classifier_dropout(c))
        self.classifier = nn.Linear(c["hidden_size"], c["num_labels"])

    def logits(self, b):
        return self.classifier(self.dropout(self.roberta(b["input_ids"], b["token_type_ids"], b["attention_mask"])))


class DistilBertForTokenClassification(BertForTokenClassification):
    def __init__(self, c):
        nn.Module.__init__(self)
        self.distilbert = base.DistilBertModel(c)
        self.dropout = nn.Dropout(c["dropout"])
        self.classifier = nn.Linear(c["dim"], c["num_labels"])

    def logits(self, b):  # no token_type_ids
        return self.classifier(self.dropout(self.distilbert(b["input_ids"], b["attention_mask"])))


def with_ner_labels(config):
    config["id2label"] = {str(i): label for i, label in enumerate(LABELS)}
    config["label2id"] = {label: i for i, label in enumerate(LABELS)}
    return config


# -------------------------------------------------------------------------------------- batches
def token_batch_maker(cls, sep, pad, word_ids):
    """batch_maker for base.export: (batches, {"labelled_per_half": ...})."""

    def make(generator):
        randint = lambda lo, hi: int(torch.randint(lo, hi + 1, (1,), generator=generator))  # inclusive
        # A fixed label per token id (about half O), drawn first: a word's label is its first token's.
        tag_of = {t: (0 if randint(0, 1) == 0 else randint(1, NUM_LABELS - 1)) for t in word_ids}

        def row(length):
            ids, labels = [cls], [IGNORE]
            while len(ids) < length - 1:
                n = min(randint(1, 3), length - 1 - len(ids))  # tokens of this word
                word = [word_ids[randint(0, len(word_ids) - 1)] for _ in range(n)]
                ids += word
                labels += [tag_of[word[0]]] + [IGNORE] * (n - 1)
            ids.append(sep)
            labels.append(IGNORE)
            return ids + [pad] * (base.SEQ - length), labels + [IGNORE] * (base.SEQ - length)

        batches, halves = [], []
        for _ in range(base.STEPS):
            while True:
                rows = {"input_ids": [], "token_type_ids": [], "attention_mask": [], "labels": []}
                counts = []
                for i in range(base.BATCH):
                    while True:  # every row of the batch a different number of labelled tokens
                        length = base.SEQ if i == 0 else randint(8, base.SEQ)
                        ids, labels = row(length)
                        count = sum(label != IGNORE for label in labels)
                        if count not in counts:
                            break
                    counts.append(count)
                    rows["input_ids"].append(ids)
                    rows["token_type_ids"].append([0] * base.SEQ)
                    rows["attention_mask"].append([1] * length + [0] * (base.SEQ - length))
                    rows["labels"].append(labels)
                half = base.BATCH // 2
                n01, n23 = sum(counts[:half]), sum(counts[half:])
                if n01 != n23:
                    break
            batches.append(rows)
            halves.append([n01, n23])
        return batches, {"labelled_per_half": halves}

    return make


def bert_word_ids():  # [PAD] 0, 1-4 unused, [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103
    return [t for t in range(5, base.VOCAB) if t not in (100, 101, 102, 103)]


def roberta_word_ids():  # <s> 0, <pad> 1, </s> 2, <unk> 3
    return list(range(4, base.VOCAB))


def half_check(name, model_class, config, state, folder):
    """fp64, step 0: the batch's loss against its halves' (each the mean over its own labelled tokens)."""
    with open(os.path.join(folder, "batches.json")) as f:
        data = json.load(f)
    batch = {k: torch.tensor(v) for k, v in data["batches"][0].items()}
    n01, n23 = data["labelled_per_half"][0]
    model = model_class(config).double()
    model.load_state_dict({k: t.double() for k, t in state.items()})
    with torch.no_grad():
        logits = model.logits(batch)
        full = float(token_loss(logits, batch["labels"]))
        h = base.BATCH // 2
        l01 = float(token_loss(logits[:h], batch["labels"][:h]))
        l23 = float(token_loss(logits[h:], batch["labels"][h:]))
        rows = [float(token_loss(logits[r:r + 1], batch["labels"][r:r + 1])) for r in range(base.BATCH)]
    weighted = (n01 * l01 + n23 * l23) / (n01 + n23)
    assert abs(weighted - full) < 1e-12 * abs(full)
    for step, (a, b) in enumerate(data["labelled_per_half"]):
        per_row = [sum(t != IGNORE for t in r) for r in data["batches"][step]["labels"]]
        assert [a, b] == [sum(per_row[:h]), sum(per_row[h:])] and a != b and len(set(per_row)) == base.BATCH
    print(f"  {name} step 0 (fp64): loss {full:.10f}; halves {l01:.6f} ({n01} labelled), {l23:.6f} ({n23}): "
          f"weighted {weighted:.10f}, unweighted mean {(l01 + l23) / 2:.6f}; mean of row means "
          f"{sum(rows) / len(rows):.6f}")


# ------------------------------------------------------------------------------------ ner_tiny
FIRST = ["Edith", "Marcus", "Lena", "Owen", "Priya", "Tobias", "Clara", "Rupert", "Nadia", "Felix", "Irene",
         "Simon", "Greta", "Hugo", "Maya", "Victor"]
LAST = ["Harlow", "Moreland", "Quill", "Ashby", "Penrose", "Drayton", "Kessler", "Whitcombe", "Fairley", "Osgood",
        "Tremaine", "Bexley", "Calloway", "Ruskin", "Hartwell", "Lindqvist"]
PLACES = ["Brantwick", "Lowmere", "Castleford Bay", "Eastholm", "Port Avery", "Redmarsh", "Norvale", "Saltmere",
          "West Linden", "Farrowdale"]
COMPANIES = ["Northgate Bank", "Tallis Group", "Harbour Mutual", "Ferris Motors", "Bluewater Energy",
             "Kestrel Airways", "Amberline Foods", "Corran Steel", "Meridian Press", "Vale Union"]
CLUBS = ["Redmarsh Rovers", "Norvale City", "Eastholm Athletic", "Saltmere United", "Brantwick Wanderers"]
NATIONALITIES = ["Danish", "Canadian", "Portuguese", "Kenyan", "Scottish", "Chilean", "Austrian"]
CUPS = ["Harvest Cup", "Northern Shield", "Spring Regatta", "Coastal Marathon"]
FAIRS = ["Autumn Trade Fair", "Winter Science Week", "Lowmere Book Festival"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "March", "April", "June", "September", "October", "November"]
NUMBERS = ["2", "3", "4.5", "7", "12", "1.8", "20"]
SCORES = ["2-1", "3-0", "1-0", "4-2", "3-1"]

# slot: (choices, entity type or None, POS of every token)
SLOTS = {"PER": ([f"{a} {b}" for a in FIRST for b in LAST], "PER", "NNP"), "LAST": (LAST, "PER", "NNP"),
         "LOC": (PLACES, "LOC", "NNP"), "ORG": (COMPANIES, "ORG", "NNP"), "CLUB": (CLUBS, "ORG", "NNP"),
         "NAT": (NATIONALITIES, "MISC", "JJ"), "CUP": (CUPS, "MISC", "NNP"),
         "FAIR": (FAIRS, "MISC", "NNP"), "DAY": (DAYS, None, "NNP"),
         "MONTH": (MONTHS, None, "NNP"), "NUM": (NUMBERS, None, "CD"), "SCORE": (SCORES, None, "CD")}

# "word|POS|chunk" or "@SLOT|chunk of its first token" (its other tokens I-NP); chunks IOB2.
TEMPLATES = [
    "Mr.|NNP|B-NP @LAST|I-NP arrived|VBD|B-VP in|IN|B-PP @LOC|B-NP on|IN|B-PP @DAY|B-NP .|.|O",
    "@PER|B-NP ,|,|O a|DT|B-NP spokesman|NN|I-NP for|IN|B-PP @ORG|B-NP ,|,|O said|VBD|B-VP the|DT|B-NP "
    "talks|NNS|I-NP would|MD|B-VP resume|VB|I-VP .|.|O",
    "@ORG|B-NP shares|NNS|I-NP rose|VBD|B-VP @NUM|B-NP percent|NN|I-NP in|IN|B-PP @LOC|B-NP on|IN|B-PP "
    "@DAY|B-NP .|.|O",
    "The|DT|B-NP @NAT|I-NP team|NN|I-NP won|VBD|B-VP the|DT|B-NP @CUP|I-NP in|IN|B-PP @LOC|B-NP .|.|O",
    "Police|NNS|B-NP in|IN|B-PP @LOC|B-NP said|VBD|B-VP Mrs.|NNP|B-NP @LAST|I-NP was|VBD|B-VP not|RB|I-VP "
    "hurt|VBN|I-VP .|.|O",
    "@ORG|B-NP will|MD|B-VP open|VB|I-VP a|DT|B-NP new|JJ|I-NP office|NN|I-NP in|IN|B-PP @LOC|B-NP "
    "next|JJ|B-NP year|NN|I-NP .|.|O",
    "Mr.|NNP|B-NP @LAST|I-NP told|VBD|B-VP reporters|NNS|B-NP that|IN|B-SBAR @ORG|B-NP had|VBD|B-VP "
    "no|DT|B-NP plans|NNS|I-NP to|TO|B-VP leave|VB|I-VP @LOC|B-NP .|.|O",
    "@PER|B-NP scored|VBD|B-VP twice|RB|B-ADVP as|IN|B-SBAR @CLUB|B-NP beat|VBD|B-VP @CLUB|B-NP "
    "@SCORE|B-NP .|.|O",
    "The|DT|B-NP @NAT|I-NP government|NN|I-NP said|VBD|B-VP on|IN|B-PP @DAY|B-NP it|PRP|B-NP would|MD|B-VP "
    "cut|VB|I-VP fuel|NN|B-NP taxes|NNS|I-NP .|.|O",
    "@PER|B-NP joined|VBD|B-VP @ORG|B-NP as|IN|B-PP chief|JJ|B-NP executive|NN|I-NP in|IN|B-PP "
    "@MONTH|B-NP .|.|O",
    "Flights|NNS|B-NP from|IN|B-PP @LOC|B-NP to|TO|B-PP @LOC|B-NP were|VBD|B-VP cancelled|VBN|I-VP "
    "after|IN|B-PP heavy|JJ|B-NP snow|NN|I-NP .|.|O",
    "Dr.|NNP|B-NP @LAST|I-NP of|IN|B-PP @ORG|B-NP will|MD|B-VP speak|VB|I-VP at|IN|B-PP the|DT|B-NP "
    "@FAIR|I-NP in|IN|B-PP @MONTH|B-NP .|.|O",
    "Ms.|NNP|B-NP @LAST|I-NP ,|,|O who|WP|B-NP grew|VBD|B-VP up|RP|B-PRT in|IN|B-PP @LOC|B-NP ,|,|O "
    "won|VBD|B-VP a|DT|B-NP @NAT|I-NP award|NN|I-NP .|.|O",
    "Prices|NNS|B-NP fell|VBD|B-VP in|IN|B-PP @LOC|B-NP for|IN|B-PP the|DT|B-NP third|JJ|I-NP "
    "month|NN|I-NP ,|,|O @ORG|B-NP said|VBD|B-VP .|.|O",
    "@NAT|B-NP fans|NNS|I-NP cheered|VBD|B-VP as|IN|B-SBAR @PER|B-NP crossed|VBD|B-VP the|DT|B-NP "
    "line|NN|I-NP in|IN|B-PP @LOC|B-NP .|.|O",
    "Shares|NNS|B-NP closed|VBD|B-VP @NUM|B-NP percent|NN|I-NP higher|JJR|B-ADJP on|IN|B-PP "
    "@DAY|B-NP .|.|O",
    "The|DT|B-NP meeting|NN|I-NP ended|VBD|B-VP in|IN|B-PP @MONTH|B-NP without|IN|B-PP an|DT|B-NP "
    "agreement|NN|I-NP .|.|O",
    "@CLUB|B-NP signed|VBD|B-VP the|DT|B-NP @NAT|I-NP striker|NN|I-NP @PER|I-NP on|IN|B-PP "
    "@DAY|B-NP .|.|O",
]


def fill(template, rng):
    """One sentence: [(word, POS, chunk, NER tag)]."""
    tokens, used = [], set()
    for item in template.split():
        if item.startswith("@"):
            slot, chunk = item[1:].split("|")
            choices, entity, pos = SLOTS[slot]
            value = rng.choice([c for c in choices if c not in used])
            used.add(value)
            for k, word in enumerate(value.split()):
                tag = "O" if entity is None else ("B-" if k == 0 else "I-") + entity
                tokens.append((word, pos, chunk if k == 0 else "I-NP", tag))
        else:
            word, pos, chunk = item.split("|")
            tokens.append((word, pos, chunk, "O"))
    return tokens


def write_ner_tiny(folder, counts=(("train", 60), ("dev", 20), ("test", 20)), seed=2003):
    os.makedirs(folder, exist_ok=True)
    rng = random.Random(seed)
    sentences, seen = [], set()
    total = sum(n for _, n in counts)
    while len(sentences) < total:
        order = list(range(len(TEMPLATES)))
        rng.shuffle(order)  # every template about equally often in each split
        for t in order:
            sentence = fill(TEMPLATES[t], rng)
            key = " ".join(w for w, _, _, _ in sentence)
            if key not in seen and len(sentences) < total:
                seen.add(key)
                sentences.append(sentence)
    start = 0
    for split, n in counts:
        part = sentences[start:start + n]
        start += n
        with open(os.path.join(folder, f"{split}.txt"), "w") as f:
            f.write("-DOCSTART- -X- -X- O\n\n")
            for sentence in part:
                f.write("".join(" ".join(token) + "\n" for token in sentence) + "\n")
        if split == "train":
            with open(os.path.join(folder, "train.jsonl"), "w") as f:
                for sentence in part:
                    f.write(json.dumps({"tokens": [t[0] for t in sentence], "ner_tags": [t[3] for t in sentence]})
                            + "\n")
        tags = [t[3] for s in part for t in s]
        print(f"ner_tiny/{split}.txt: {len(part)} sentences, {len(tags)} tokens, "
              + ", ".join(f"{e} {sum(t == 'B-' + e for t in tags)}" for e in ("PER", "LOC", "ORG", "MISC")))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "tests", "fixtures", "reference_heads")
    ner_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "..", "tests", "fixtures", "ner_tiny")
    torch.set_num_threads(1)
    bert_note = "pad 0, [CLS] 101, [SEP] 102; rows [CLS] words [SEP]"
    roberta_note = "pad 1, <s> 0, </s> 2; rows <s> words </s>"
    tail = ("; token types all 0; labels per token, -100 on specials, padding and a word's non-first tokens; "
            "labelled_per_half[i] = labelled tokens in rows 0-1 and rows 2-3 of batches[i]")
    runs = [("bert_tok", BertForTokenClassification,
             with_ner_labels(base.bert_config("BertForTokenClassification", NUM_LABELS)), 31, bert_note + tail,
             token_batch_maker(base.CLS, base.SEP, base.PAD, bert_word_ids())),
            ("roberta_tok", RobertaForTokenClassification,
             with_ner_labels(rob.roberta_config("roberta", "RobertaForTokenClassification", NUM_LABELS, True)), 32,
             roberta_note + tail, token_batch_maker(rob.BOS, rob.EOS, rob.PAD, roberta_word_ids())),
            ("distilbert_tok", DistilBertForTokenClassification,
             with_ner_labels(base.distilbert_config("DistilBertForTokenClassification", NUM_LABELS)), 33,
             bert_note + tail, token_batch_maker(base.CLS, base.SEP, base.PAD, bert_word_ids()))]
    states = {}
    for name, model_class, config, seed, note, maker in runs:
        states[name] = base.export(out_dir, name, model_class, config, "tok", seed, note, batch_maker=maker)
    print("2-worker halves:")
    for name, model_class, config, seed, note, maker in runs:
        half_check(name, model_class, config, states[name], os.path.join(out_dir, name))
    print("padding invariance (roberta_tok, position ids from input ids):")
    with open(os.path.join(out_dir, "roberta_tok", "batches.json")) as f:
        rob.padding_invariance_check(runs[1][1], runs[1][2], states["roberta_tok"], json.load(f)["batches"])
    write_ner_tiny(ner_dir)


if __name__ == "__main__":
    main()
