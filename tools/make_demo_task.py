#!/usr/bin/env python3
"""Writes the built-in demo task: a small synthetic sentence-pair paraphrase set in GLUE MRPC's
TSV format, plus the vocab.txt, config.json and tokenizer_config.json of a small BERT to train
on it from scratch.

Usage: tools/make_demo_task.py [OUT_DIR]        (default: demo/paraphrase)

Standard library only and deterministic: running it twice writes byte-identical files.

Each pair describes one event drawn from three template families (a purchase, a market move,
a meeting). A paraphrase renders the same event twice in different words: synonyms, active vs
passive voice, the day or place moved to the front, the reporting clause ("officials said")
moved or rephrased. A non-paraphrase renders an edited event in different words too, so that
the surface form says nothing about the label: one, two or three facts changed (another name,
number, day, place, object, verb, direction or topic, or a negation), from subtle to obvious,
which lets a small BERT trained from scratch find the comparison within a couple of minutes;
15% are an unrelated sentence instead. Labels are balanced 50/50.

Every word and punctuation mark the templates can emit is a whole entry of vocab.txt, so BERT's
WordPiece (lower-cased) never produces ## pieces or [UNK].
"""

import json
import os
import random
import re
import sys

SEED = 20240603
N_TRAIN = 8000
N_DEV = 500
UNRELATED_FRACTION = 0.15

# ---------------------------------------------------------------------------------------------
# Word tables. Proper nouns are capitalised in the text; the vocab holds them lower-cased.

PEOPLE = [
    "John Smith", "Maria Lopez", "David Chen", "Sarah Miller", "James Brown", "Anna Novak",
    "Peter Wright", "Laura Garcia", "Michael Kim", "Emma Wilson", "Robert Jones", "Olivia Davis",
    "Thomas Young", "Sofia Rossi", "Daniel Martin", "Grace Taylor", "Henry Clark", "Julia Meyer",
]
COMPANIES = [
    "Acme", "Globex", "Initech", "Umbrella", "Stark", "Wayne", "Hooli", "Vandelay", "Cyberdyne",
    "Tyrell", "Soylent", "Wonka", "Oscorp", "Massive", "Dynamic", "Nakatomi",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
PLACES = [
    "Paris", "London", "Berlin", "Tokyo", "Boston", "Chicago", "Madrid", "Rome", "Seattle",
    "Toronto", "Sydney", "Dublin", "Vienna", "Denver", "Oslo", "Lisbon",
]
NUMBERS = [str(n) for n in range(2, 41)]

# Purchase verbs: (base form, past tense, past participle); the members of a group are synonyms.
VERB_GROUPS = [
    [("buy", "bought", "bought"), ("purchase", "purchased", "purchased"),
     ("acquire", "acquired", "acquired")],
    [("sell", "sold", "sold"), ("offload", "offloaded", "offloaded")],
    [("order", "ordered", "ordered"), ("request", "requested", "requested")],
    [("build", "built", "built"), ("make", "made", "made"), ("produce", "produced", "produced")],
    [("repair", "repaired", "repaired"), ("fix", "fixed", "fixed")],
    [("ship", "shipped", "shipped"), ("deliver", "delivered", "delivered")],
    [("lease", "leased", "leased"), ("rent", "rented", "rented")],
    [("return", "returned", "returned"), ("send back", "sent back", "sent back")],
]
# Plural objects; the members of a group are synonyms.
OBJECT_GROUPS = [
    ["cars", "vehicles", "automobiles"],
    ["computers", "laptops"],
    ["trucks", "lorries"],
    ["phones", "handsets"],
    ["boats", "ships"],
    ["houses", "homes"],
    ["tickets", "passes"],
    ["paintings", "artworks"],
    ["tractors"],
    ["bicycles", "bikes"],
    ["printers"],
    ["aircraft", "planes"],
]
REPORTERS = [
    ["officials"], ["police"], ["analysts"], ["the spokesman"], ["sources"],
    ["the company"], ["witnesses"],
]
SAID = ["said", "reported", "stated"]  # synonyms

# Market moves: direction groups (antonym groups are the non-paraphrase edit).
UP = ["rose", "climbed", "gained", "jumped"]
DOWN = ["fell", "dropped", "declined", "slid"]
SHARES = ["shares", "stock"]  # "Acme shares" / "Acme stock" / "shares of Acme"
MARKET_TAILS = [["in", "early", "trading"], ["in", "late", "trading"], []]

# Meetings.
TALKS = ["talks", "a meeting"]
TOPICS = [
    ["the budget"], ["trade"], ["the merger"], ["security"], ["taxes"], ["energy prices"],
    ["the new contract"], ["climate policy"], ["the strike"], ["housing"],
]
ABOUT = ["to discuss", "about"]


def pick(rng, seq):
    return seq[rng.randrange(len(seq))]


def other(rng, seq, current):
    """A member of seq different from current."""
    while True:
        x = pick(rng, seq)
        if x != current:
            return x


# ---------------------------------------------------------------------------------------------
# Events. An event is a dict of meaning-bearing slots; rendering picks the surface form.

def new_event(rng, family=None):
    family = family or pick(rng, ["purchase", "purchase", "market", "meeting"])
    if family == "purchase":
        return {
            "family": "purchase",
            "agent": pick(rng, PEOPLE + COMPANIES),
            "verb": rng.randrange(len(VERB_GROUPS)),
            "obj": rng.randrange(len(OBJECT_GROUPS)),
            "num": pick(rng, NUMBERS),
            "day": pick(rng, DAYS),
            "place": pick(rng, PLACES) if rng.random() < 0.6 else None,
            "reporter": rng.randrange(len(REPORTERS)) if rng.random() < 0.3 else None,
            "neg": rng.random() < 0.15,
        }
    if family == "market":
        return {
            "family": "market",
            "company": pick(rng, COMPANIES),
            "up": rng.random() < 0.5,
            "num": pick(rng, NUMBERS[:20]),
            "day": pick(rng, DAYS[:5]),
            "tail": rng.randrange(len(MARKET_TAILS)),
            "reporter": rng.randrange(len(REPORTERS)) if rng.random() < 0.3 else None,
        }
    a = pick(rng, PEOPLE)
    return {
        "family": "meeting",
        "a": a,
        "b": other(rng, PEOPLE, a),
        "place": pick(rng, PLACES),
        "day": pick(rng, DAYS),
        "topic": rng.randrange(len(TOPICS)),
        "neg": rng.random() < 0.15,
    }


EDITABLE = {
    "purchase": ["agent", "verb", "obj", "num", "day", "neg", "place"],
    "market": ["company", "up", "num", "day"],
    "meeting": ["a", "b", "place", "day", "topic", "neg"],
}


def edit_event(rng, ev, n):
    """ev with n of its meaning-bearing slots changed (n >= 1: the meaning differs)."""
    e = dict(ev)
    slots = [s for s in EDITABLE[e["family"]] if not (s == "place" and e[s] is None)]
    for slot in rng.sample(slots, min(n, len(slots))):
        if slot == "agent":
            e["agent"] = other(rng, PEOPLE + COMPANIES, e["agent"])
        elif slot == "company":
            e["company"] = other(rng, COMPANIES, e["company"])
        elif slot in ("a", "b"):
            e[slot] = pick(rng, [p for p in PEOPLE if p not in (e["a"], e["b"])])
        elif slot == "verb":
            e["verb"] = other(rng, range(len(VERB_GROUPS)), e["verb"])
        elif slot == "obj":
            e["obj"] = other(rng, range(len(OBJECT_GROUPS)), e["obj"])
        elif slot == "topic":
            e["topic"] = other(rng, range(len(TOPICS)), e["topic"])
        elif slot == "num":
            e["num"] = other(rng, NUMBERS[:20] if e["family"] == "market" else NUMBERS, e["num"])
        elif slot == "day":
            e["day"] = other(rng, DAYS[:5] if e["family"] == "market" else DAYS, e["day"])
        elif slot == "place":
            e["place"] = other(rng, PLACES, e["place"])
        elif slot == "up":
            e["up"] = not e["up"]
        else:
            e["neg"] = not e["neg"]
    return e


def with_report(rng, clause, reporter):
    """Wraps a clause (list of words) in a reporting frame, or leaves it bare."""
    if reporter is None:
        return clause + ["."]
    who = REPORTERS[reporter][0].split()
    said = pick(rng, SAID)
    style = rng.randrange(3)
    if style == 0:
        return clause + [",", *who, said, "."]
    if style == 1:
        return ["according", "to", *who, ","] + clause + ["."]
    return [*who, said, "that"] + clause + ["."]


def render_purchase(rng, e):
    base, past, pp = pick(rng, VERB_GROUPS[e["verb"]])
    obj = pick(rng, OBJECT_GROUPS[e["obj"]])
    agent = e["agent"].split()
    when = ["on", e["day"]]
    where = ["in", e["place"]] if e["place"] else []
    passive = rng.random() < 0.4
    if passive:
        core = [e["num"], obj, "were"] + (["not"] if e["neg"] else []) + pp.split() + ["by", *agent]
    elif e["neg"]:
        core = agent + ["did", "not"] + base.split() + [e["num"], obj]
    else:
        core = agent + past.split() + [e["num"], obj]
    order = rng.randrange(4)
    if order == 0:
        clause = core + where + when
    elif order == 1:
        clause = when + [","] + core + where
    elif order == 2 and where:
        clause = where + [","] + core + when
    else:
        clause = core + when + where
    return with_report(rng, clause, e["reporter"])


def render_market(rng, e):
    verb = pick(rng, UP if e["up"] else DOWN)
    shares = pick(rng, SHARES)
    subj = [e["company"], shares] if rng.random() < 0.5 else ["shares", "of", e["company"]]
    amount = [e["num"], "percent"] if rng.random() < 0.5 else ["by", e["num"], "percent"]
    tail = MARKET_TAILS[e["tail"]]
    when = ["on", e["day"]]
    if rng.random() < 0.5:
        clause = subj + [verb] + amount + when + tail
    else:
        clause = when + [","] + subj + [verb] + amount + tail
    return with_report(rng, clause, e["reporter"])


def render_meeting(rng, e):
    a, b = e["a"].split(), e["b"].split()
    first, second = (a, b) if rng.random() < 0.5 else (b, a)
    topic = TOPICS[e["topic"]][0].split()
    when = ["on", e["day"]]
    where = ["in", e["place"]]
    style = rng.randrange(3)
    if style == 0:
        verb = ["did", "not", "meet"] if e["neg"] else ["met"]
        core = first + verb + second
    elif style == 1:
        verb = ["did", "not", "meet"] if e["neg"] else ["met"]
        core = first + ["and"] + second + verb
    else:
        verb = ["did", "not", "hold"] if e["neg"] else ["held"]
        core = first + ["and"] + second + verb + pick(rng, TALKS).split()
    about = pick(rng, ABOUT).split() + topic
    order = rng.randrange(3)
    if order == 0:
        clause = core + where + when + about
    elif order == 1:
        clause = when + [","] + core + where + about
    else:
        clause = where + [","] + core + about + when
    return clause + ["."]


def render(rng, e):
    words = {"purchase": render_purchase, "market": render_market, "meeting": render_meeting}[
        e["family"]](rng, e)
    text = " ".join(words)
    text = re.sub(r" ([,.])", r"\1", text)
    return text[0].upper() + text[1:]


# ---------------------------------------------------------------------------------------------
# Vocabulary: every word any table or template can emit, lower-cased, whole.

TEMPLATE_WORDS = (
    "on in by were not did that according to , . and met meet held hold percent of early late "
    "trading"
)


def vocabulary():
    words = set(TEMPLATE_WORDS.split())
    tables = [PEOPLE, COMPANIES, DAYS, PLACES, NUMBERS, SAID, UP, DOWN, SHARES, TALKS, ABOUT]
    tables += [g for g in OBJECT_GROUPS] + [g for g in REPORTERS] + [g for g in TOPICS]
    tables += [[w for triple in g for w in triple] for g in VERB_GROUPS]
    tables += MARKET_TAILS
    for table in tables:
        for entry in table:
            words.update(entry.lower().split())
    return ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + sorted(words)


def tokens(text):
    """BERT's basic tokenizer for this text: lower-case, split on spaces and punctuation."""
    return re.findall(r"\w+|[^\w\s]", text.lower())


# ---------------------------------------------------------------------------------------------

def make_pair(rng, label):
    e = new_event(rng)
    a = render(rng, e)
    if label == 1:
        for _ in range(10):  # a paraphrase is never the same string
            b = render(rng, e)
            if b != a:
                break
    else:
        r = rng.random()
        if r < UNRELATED_FRACTION:
            b = render(rng, new_event(rng))
        else:  # one, two or three slots changed: from subtle to obvious
            n = 1 if r < 0.5 else 2 if r < 0.8 else 3
            b = render(rng, edit_event(rng, e, n))
    return a, b


def make_split(rng, n, seen):
    rows = []
    while len(rows) < n:
        label = len(rows) % 2  # balanced; shuffled below
        a, b = make_pair(rng, label)
        if a == b or (a, b) in seen or (b, a) in seen:
            continue
        seen.add((a, b))
        rows.append((label, a, b))
    rng.shuffle(rows)
    return rows


def write_tsv(path, rows, first_id):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n")
        for i, (label, a, b) in enumerate(rows):
            f.write(f"{label}\t{first_id + 2 * i}\t{first_id + 2 * i + 1}\t{a}\t{b}\n")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "demo/paraphrase"
    os.makedirs(out, exist_ok=True)
    rng = random.Random(SEED)
    seen = set()
    train = make_split(rng, N_TRAIN, seen)
    dev = make_split(rng, N_DEV, seen)  # seen holds train: no dev pair appears in train

    vocab = vocabulary()
    known = set(vocab)
    longest = 0
    for _, a, b in train + dev:
        ta, tb = tokens(a), tokens(b)
        missing = [t for t in ta + tb if t not in known]
        assert not missing, f"not in vocab: {missing}"
        assert "\t" not in a + b and "\n" not in a + b
        longest = max(longest, len(ta) + len(tb) + 3)
    assert longest <= 64, longest

    write_tsv(os.path.join(out, "train.tsv"), train, 100000)
    write_tsv(os.path.join(out, "dev.tsv"), dev, 900000)
    with open(os.path.join(out, "vocab.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(w + "\n" for w in vocab))

    config = {
        "architectures": ["BertForSequenceClassification"],
        "model_type": "bert",
        "vocab_size": len(vocab),
        "hidden_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 512,
        "max_position_embeddings": 64,
        "type_vocab_size": 2,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.0,
        "attention_probs_dropout_prob": 0.0,
        "classifier_dropout": None,
        "layer_norm_eps": 1e-12,
        "initializer_range": 0.02,
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
        "id2label": {"0": "LABEL_0", "1": "LABEL_1"},
        "label2id": {"LABEL_0": 0, "LABEL_1": 1},
        "torch_dtype": "float32",
    }
    with open(os.path.join(out, "config.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    with open(os.path.join(out, "tokenizer_config.json"), "w", encoding="utf-8",
              newline="\n") as f:
        json.dump({"do_lower_case": True, "tokenizer_class": "BertTokenizer"}, f, indent=2)
        f.write("\n")

    positives = sum(r[0] for r in train)
    print(f"{out}: train {len(train)} pairs ({positives} paraphrases), dev {len(dev)} pairs "
          f"({sum(r[0] for r in dev)} paraphrases), vocab {len(vocab)}, "
          f"longest pair {longest} tokens with [CLS]/[SEP]")


if __name__ == "__main__":
    main()
