#!/usr/bin/python3
"""PyTorch reference fixtures for shmtrain's masked-LM and multiple-choice heads (BERT and RoBERTa).

Usage: /usr/bin/python3 tools/make_mlm_mc_references.py [OUT_DIR]   (default: tests/fixtures/reference_heads)

Needs Debian's python3-torch (/usr/bin/python3); CI does not run it: its output is committed.
Reuses tools/make_head_references.py (BERT encoder, init, AdamW, safetensors writer, training run,
export), tools/make_roberta_references.py (RoBERTa's embeddings, encoder and config) and
tools/make_token_classification_references.py (token loss, word ids, the 2-worker halves check).
The heads follow transformers' modeling_bert.py and modeling_roberta.py (the 4.3x to 4.5x code:
read at huggingface/transformers 8ec58104 (bert) and 87b236ba (roberta)):

  bert_mlm     BertForMaskedLM: BertModel without pooler; cls = BertOnlyMLMHead:
               cls.predictions.transform.dense (H -> H) -> GELU (erf) ->
               cls.predictions.transform.LayerNorm, then the decoder: logits = x @ W_word^T +
               cls.predictions.bias, W_word = bert.embeddings.word_embeddings.weight (tied: the
               decoder has no weight of its own, and decoder.bias is cls.predictions.bias)
  roberta_mlm  RobertaForMaskedLM: RobertaModel without pooler; lm_head = RobertaLMHead:
               lm_head.dense -> GELU -> lm_head.layer_norm, decoder tied to
               roberta.embeddings.word_embeddings.weight, bias lm_head.bias
  bert_mc      BertForMultipleChoice: input_ids etc. [examples, choices, T] viewed as
               [examples * choices, T] (row 4e + c is example e's choice c), BertModel WITH pooler
               (bert.pooler.dense + tanh on token 0), dropout(classifier_dropout if not None else
               hidden_dropout_prob), classifier (H -> 1), logits viewed as [examples, choices],
               cross-entropy over the choices with one label per example
  roberta_mc   RobertaForMultipleChoice: the same on RobertaModel WITH pooler (roberta.pooler.dense,
               tanh), dropout(hidden_dropout_prob: RoBERTa's MC head ignores classifier_dropout),
               classifier (H -> 1)

MLM loss: CrossEntropyLoss()(logits.view(-1, vocab), labels.view(-1)): the mean over the batch's
labelled tokens (ignore_index -100). MC loss: CrossEntropyLoss()(logits [examples, 4], labels
[examples]): the mean over the examples.

model.safetensors is what save_pretrained writes: for the MLM models the tied tensors
(_tied_weights_keys: cls.predictions.decoder.weight / .bias, lm_head.decoder.weight / .bias) are
left out, and the word-embedding matrix gets two gradients, the lookup's (none for the padding
row) and the decoder's (every row, the padding row included); reference.json's
"tied_word_embeddings" has the step-0 gradient norm of that matrix and of its two parts.

MLM batches: 20 of 4 x 24, single sequences "[CLS] words [SEP]" (RoBERTa "<s> words </s>"), the
first row unpadded, the others 8-24 tokens padded at the right; token types all 0. Pre-masked as
DataCollatorForLanguageModeling does (mlm_probability 0.15), the decisions drawn from the fixed
generator: each word token (never a special or the padding) is chosen with probability 0.15; a
chosen token's label is its original id, every other position's -100; a chosen token becomes
[MASK] (<mask>) with probability 0.8, a random word with 0.1 (drawn from the words, where the
collator draws from the whole vocabulary), else stays. Every row of a batch has a different number
(>= 1) of labelled tokens and rows 0-1 a different number than rows 2-3 (labelled_per_half, as the
*_tok fixtures).

MC batches: 20 of 2 examples x 4 choices x 24 tokens, laid out as examples/pytorch/multiple-choice/
run_swag.py does: each choice is the pair (context, ending): "[CLS] context [SEP] ending [SEP]"
(token types 0 up to the first [SEP], 1 for the ending and its [SEP], 0 on the padding), RoBERTa
"<s> context </s></s> ending </s>" (types all 0); the 4 choices of an example share the context and
have endings of 4 different lengths; padded at the right (example 0's choice 0 fills the 24
tokens). The correct ending (label) repeats words of the context, the others are random words.

Recipe as make_head_references.py: 20 AdamW steps (lr 1e-3, weight decay 0.01 except biases and
LayerNorm modules, constant LR, clip 1.0, dropout 0), fp32 and fp64 losses, grad norms before
clipping, step-0 gradient norms per parameter, parameter norms after 20 steps. One thread, fixed
seeds. Prints self-checks: fp32 against fp64 losses, the saved keys, the tied gradient's parts,
the MLM 2-worker halves (weights by labelled tokens) and the MC halves (1 example per worker).
"""
import contextlib
import json
import os
import struct
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_head_references as base  # noqa: E402
import make_roberta_references as rob  # noqa: E402
import make_token_classification_references as tokcls  # noqa: E402

MASK = 103  # BERT's [MASK]
ROBERTA_MASK = base.VOCAB - 1  # RoBERTa's <mask> is its last id
MLM_PROBABILITY = 0.15
EXAMPLES, CHOICES = 2, 4  # a multiple-choice batch: 2 examples x 4 choices = 8 rows of base.SEQ


# ------------------------------------------------------------------------------------- the heads
class BertPooler(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["hidden_size"])

    def forward(self, hidden):
        return torch.tanh(self.dense(hidden[:, 0]))


class BertModelWithPooler(base.BertModelNoPooler):  # BertModel(config): (sequence output, pooled output)
    def __init__(self, c):
        super().__init__(c)
        self.pooler = BertPooler(c)

    def forward(self, ids, types, mask):
        hidden = super().forward(ids, types, mask)
        return hidden, self.pooler(hidden)


class RobertaModelWithPooler(rob.RobertaModelNoPooler):  # RobertaModel(config)
    def __init__(self, c):
        super().__init__(c)
        self.pooler = BertPooler(c)

    def forward(self, ids, types, mask):
        hidden = super().forward(ids, types, mask)
        return hidden, self.pooler(hidden)


class BertPredictionHeadTransform(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["hidden_size"])
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])

    def forward(self, x):
        return self.LayerNorm(F.gelu(self.dense(x)))  # ACT2FN["gelu"]: the erf form


class BertLMPredictionHead(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.transform = BertPredictionHeadTransform(c)
        self.bias = nn.Parameter(torch.zeros(c["vocab_size"]))  # = decoder.bias (tied)

    def forward(self, hidden, decoder_weight):  # decoder.weight is the word-embedding matrix
        return F.linear(self.transform(hidden), decoder_weight, self.bias)


class BertOnlyMLMHead(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.predictions = BertLMPredictionHead(c)

    def forward(self, hidden, decoder_weight):
        return self.predictions(hidden, decoder_weight)


class BertForMaskedLM(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.bert = base.BertModelNoPooler(c)
        self.cls = BertOnlyMLMHead(c)

    def encoder(self):
        return self.bert

    def logits(self, b, decoder_weight=None):
        # decoder_weight: the tied matrix by default; the tied-gradient check passes a detached copy.
        hidden = self.bert(b["input_ids"], b["token_type_ids"], b["attention_mask"])
        weight = self.bert.embeddings.word_embeddings.weight if decoder_weight is None else decoder_weight
        return self.cls(hidden, weight)

    def forward(self, b):
        return tokcls.token_loss(self.logits(b), b["labels"])


class RobertaLMHead(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["hidden_size"])
        self.layer_norm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])
        self.bias = nn.Parameter(torch.zeros(c["vocab_size"]))  # = decoder.bias (tied)

    def forward(self, features, decoder_weight):
        x = self.layer_norm(F.gelu(self.dense(features)))
        return F.linear(x, decoder_weight, self.bias)


class RobertaForMaskedLM(BertForMaskedLM):
    def __init__(self, c):
        nn.Module.__init__(self)
        self.roberta = rob.RobertaModelNoPooler(c)
        self.lm_head = RobertaLMHead(c)

    def encoder(self):
        return self.roberta

    def logits(self, b, decoder_weight=None):
        hidden = self.roberta(b["input_ids"], b["token_type_ids"], b["attention_mask"])
        weight = self.roberta.embeddings.word_embeddings.weight if decoder_weight is None else decoder_weight
        return self.lm_head(hidden, weight)


def flat(t):  # [examples, choices, T] -> [examples * choices, T], as HF's input_ids.view(-1, input_ids.size(-1))
    return t.view(-1, t.size(-1))


class BertForMultipleChoice(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.bert = BertModelWithPooler(c)
        self.dropout = nn.Dropout(tokcls.classifier_dropout(c))
        self.classifier = nn.Linear(c["hidden_size"], 1)

    def pooled(self, b):
        return self.bert(flat(b["input_ids"]), flat(b["token_type_ids"]), flat(b["attention_mask"]))[1]

    def logits(self, b):
        num_choices = b["input_ids"].shape[1]
        return self.classifier(self.dropout(self.pooled(b))).view(-1, num_choices)

    def forward(self, b):
        return F.cross_entropy(self.logits(b), b["labels"])


class RobertaForMultipleChoice(BertForMultipleChoice):
    def __init__(self, c):
        nn.Module.__init__(self)
        self.roberta = RobertaModelWithPooler(c)
        self.dropout = nn.Dropout(c["hidden_dropout_prob"])  # not classifier_dropout, as HF
        self.classifier = nn.Linear(c["hidden_size"], 1)

    def pooled(self, b):
        return self.roberta(flat(b["input_ids"]), flat(b["token_type_ids"]), flat(b["attention_mask"]))[1]


def without_labels(config):
    """No id2label/label2id: an MLM or MC model's config never sets num_labels (save_pretrained omits the default)."""
    config = {k: v for k, v in config.items() if k not in ("id2label", "label2id")}
    config["num_labels"] = 2  # export drops it from config.json
    return config


# -------------------------------------------------------------------------------------- batches
def mlm_batch_maker(cls, sep, pad, mask, word_ids):
    """batch_maker for base.export: pre-masked rows, (batches, {"labelled_per_half": ...})."""

    def make(generator):
        randint = lambda lo, hi: int(torch.randint(lo, hi + 1, (1,), generator=generator))  # inclusive
        uniform = lambda: float(torch.rand((1,), generator=generator, dtype=torch.float64))
        kinds = {"mask": 0, "random": 0, "kept": 0}

        def row(length):
            ids = [cls] + [word_ids[randint(0, len(word_ids) - 1)] for _ in range(length - 2)] + [sep]
            labels = [tokcls.IGNORE] * length
            chosen = {"mask": 0, "random": 0, "kept": 0}
            for i in range(1, length - 1):  # the words only: never [CLS], [SEP] or the padding
                if uniform() >= MLM_PROBABILITY:
                    continue
                labels[i] = ids[i]
                r = uniform()
                if r < 0.8:
                    ids[i], kind = mask, "mask"
                elif r < 0.9:
                    ids[i], kind = word_ids[randint(0, len(word_ids) - 1)], "random"  # may draw the same id
                else:
                    kind = "kept"
                chosen[kind] += 1
            return (ids + [pad] * (base.SEQ - length), labels + [tokcls.IGNORE] * (base.SEQ - length), chosen)

        batches, halves = [], []
        for _ in range(base.STEPS):
            while True:
                rows = {"input_ids": [], "token_type_ids": [], "attention_mask": [], "labels": []}
                counts, batch_kinds = [], []
                for i in range(base.BATCH):
                    while True:  # every row of the batch a different number (>= 1) of labelled tokens
                        length = base.SEQ if i == 0 else randint(8, base.SEQ)
                        ids, labels, chosen = row(length)
                        count = sum(label != tokcls.IGNORE for label in labels)
                        if count >= 1 and count not in counts:
                            break
                    counts.append(count)
                    batch_kinds.append(chosen)
                    rows["input_ids"].append(ids)
                    rows["token_type_ids"].append([0] * base.SEQ)
                    rows["attention_mask"].append([1] * length + [0] * (base.SEQ - length))
                    rows["labels"].append(labels)
                half = base.BATCH // 2
                n01, n23 = sum(counts[:half]), sum(counts[half:])
                if n01 != n23:
                    break
            for chosen in batch_kinds:
                for k in kinds:
                    kinds[k] += chosen[k]
            batches.append(rows)
            halves.append([n01, n23])
        make.kinds = kinds
        return batches, {"labelled_per_half": halves}

    return make


def mc_batch_maker(cls, sep, pad, middle_seps, pair_types, word_ids):
    """batch_maker for base.export: [examples][choices][tokens] rows and one label per example."""

    def make(generator):
        randint = lambda lo, hi: int(torch.randint(lo, hi + 1, (1,), generator=generator))  # inclusive
        word = lambda: word_ids[randint(0, len(word_ids) - 1)]
        batches = []
        for step in range(base.STEPS):
            batch = {"input_ids": [], "token_type_ids": [], "attention_mask": [], "labels": []}
            for e in range(EXAMPLES):
                context = [word() for _ in range(randint(3, 9))]
                room = base.SEQ - len(context) - 2 - middle_seps  # ending tokens that fit
                while True:  # 4 different ending lengths
                    lengths = [randint(2, room) for _ in range(CHOICES)]
                    if len(set(lengths)) == CHOICES:
                        break
                if step == 0 and e == 0:
                    lengths[0] = room  # one unpadded row
                    while len(set(lengths)) < CHOICES:
                        lengths[1:] = [randint(2, room - 1) for _ in range(CHOICES - 1)]
                label = randint(0, CHOICES - 1)
                ids_e, types_e, mask_e = [], [], []
                for c, n in enumerate(lengths):
                    if c == label:  # the right ending repeats words of the context
                        ending = [context[randint(0, len(context) - 1)] for _ in range(n)]
                    else:
                        ending = [word() for _ in range(n)]
                    ids = [cls] + context + [sep] * middle_seps + ending + [sep]
                    first = 1 + len(context) + middle_seps
                    types = [0] * first + [1 if pair_types else 0] * (n + 1)
                    length = len(ids)
                    ids_e.append(ids + [pad] * (base.SEQ - length))
                    types_e.append(types + [0] * (base.SEQ - length))
                    mask_e.append([1] * length + [0] * (base.SEQ - length))
                batch["input_ids"].append(ids_e)
                batch["token_type_ids"].append(types_e)
                batch["attention_mask"].append(mask_e)
                batch["labels"].append(label)
            batches.append(batch)
        return batches, {}

    return make


@contextlib.contextmanager
def batch_size(n):
    """base.export writes B=base.BATCH into batches.json's note and reference.json's settings: MC batches hold 2."""
    saved, base.BATCH = base.BATCH, n
    try:
        yield
    finally:
        base.BATCH = saved


# --------------------------------------------------------------------------------------- checks
def load(folder):
    with open(os.path.join(folder, "batches.json")) as f:
        return json.load(f)


def safetensors_keys(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    return {k: v["shape"] for k, v in header.items() if k != "__metadata__"}


def update_reference(folder, extra, settings=None):
    path = os.path.join(folder, "reference.json")
    with open(path) as f:
        reference = json.load(f)
    reference.update(extra)
    reference["settings"].update(settings or {})
    with open(path, "w") as f:
        json.dump(reference, f, indent=1)
        f.write("\n")
    return reference


def tied_gradient(name, model_class, config, state, folder, word_key):
    """Step 0 (fp32, as the fp32 run): the tied matrix's gradient = the lookup's + the decoder's."""
    model = model_class(config)
    model.load_state_dict(state)
    batch = {k: torch.tensor(v) for k, v in load(folder)["batches"][0].items()}
    emb = model.encoder().embeddings.word_embeddings
    tokcls.token_loss(model.logits(batch), batch["labels"]).backward()
    total = emb.weight.grad.clone()
    model.zero_grad(set_to_none=True)
    copy = emb.weight.detach().clone().requires_grad_()
    tokcls.token_loss(model.logits(batch, decoder_weight=copy), batch["labels"]).backward()
    lookup, decoder = emb.weight.grad, copy.grad
    pad = config["pad_token_id"]
    assert float(lookup[pad].abs().max()) == 0.0 and float(decoder[pad].abs().max()) > 0.0
    worst = float((lookup + decoder - total).abs().max())
    assert worst < 1e-6 * float(total.abs().max())
    entry = {"parameter": word_key, "step0_grad_norm": float(total.double().norm()),
             "step0_grad_norm_embedding_lookup": float(lookup.double().norm()),
             "step0_grad_norm_decoder": float(decoder.double().norm()),
             "step0_grad_norm_padding_row": float(total[pad].double().norm()),
             "note": "fp32, batches[0], the initial weights: the gradient of the tied word-embedding matrix is the "
                     "sum of the embedding lookup's (zero on the padding row) and the decoder's (every row); "
                     "step0_grad_norm equals step0_grad_norms[parameter]"}
    reference = update_reference(folder, {"tied_word_embeddings": entry})
    recorded = reference["step0_grad_norms"][word_key]
    assert abs(recorded - entry["step0_grad_norm"]) <= 1e-6 * recorded, (recorded, entry["step0_grad_norm"])
    print(f"  {name}: {word_key} step-0 gradient norm {entry['step0_grad_norm']:.9f} = lookup "
          f"{entry['step0_grad_norm_embedding_lookup']:.9f} (+) decoder {entry['step0_grad_norm_decoder']:.9f} "
          f"(padding row {entry['step0_grad_norm_padding_row']:.3e}, from the decoder only); sum vs total {worst:.1e}")


def mc_half_check(name, model_class, config, state, folder):
    """fp64, step 0: one example per worker; the two halves' mean loss and gradients are the batch's."""
    batch = {k: torch.tensor(v) for k, v in load(folder)["batches"][0].items()}
    model = model_class(config).double()
    model.load_state_dict({k: t.double() for k, t in state.items()})

    def run(b):
        model.zero_grad(set_to_none=True)
        loss = model(b)
        loss.backward()
        return float(loss), {n: p.grad.clone() for n, p in model.named_parameters()}

    full, g_full = run(batch)
    halves = [run({k: t[e:e + 1] for k, t in batch.items()}) for e in range(EXAMPLES)]
    mean = sum(h[0] for h in halves) / EXAMPLES
    worst = max(float((sum(h[1][n] for h in halves) / EXAMPLES - g).abs().max()) for n, g in g_full.items())
    assert abs(mean - full) < 1e-12 * abs(full) and worst < 1e-12
    with torch.no_grad():
        logits = model.logits(batch)
    print(f"  {name} step 0 (fp64): loss {full:.10f}; examples {halves[0][0]:.6f}, {halves[1][0]:.6f}: mean "
          f"{mean:.10f}; gradients of the mean vs the batch's: {worst:.1e}; logits {logits.shape[0]}x"
          f"{logits.shape[1]} (flattened rows 4e+c), labels {batch['labels'].tolist()}")


def mc_batch_check(data, cls, sep, pad, middle_seps):
    for b in data["batches"]:
        assert [len(b["labels"])] + [len(x) for x in b["input_ids"]] == [EXAMPLES] + [CHOICES] * EXAMPLES
        for e in range(EXAMPLES):
            lengths = [sum(m) for m in b["attention_mask"][e]]
            assert len(set(lengths)) == CHOICES
            contexts = set()
            for ids, m in zip(b["input_ids"][e], b["attention_mask"][e]):
                n = sum(m)
                assert len(ids) == base.SEQ and ids[0] == cls and ids[n - 1] == sep and all(t == pad for t in ids[n:])
                contexts.add(tuple(ids[:ids.index(sep) + middle_seps]))
            assert len(contexts) == 1  # the 4 choices share the context
    assert max(sum(m) for b in data["batches"] for x in b["attention_mask"] for m in x) == base.SEQ


def report(names, out_dir):
    for name in names:
        folder = os.path.join(out_dir, name)
        with open(os.path.join(folder, "reference.json")) as f:
            r = json.load(f)
        keys = safetensors_keys(os.path.join(folder, "model.safetensors"))
        worst = max(abs(a - b) / abs(b) for a, b in zip(r["losses"], r["losses_fp64_run"]))
        assert worst < 1e-5, worst
        print(f"{name}: step 0 loss fp32 {r['losses'][0]:.9f} fp64 {r['losses_fp64_run'][0]:.12f}; step 19 fp32 "
              f"{r['losses'][-1]:.9f} fp64 {r['losses_fp64_run'][-1]:.12f}; fp32 vs fp64 {worst:.1e} relative; "
              f"{len(keys)} tensors, {sum(torch.Size(s).numel() for s in keys.values())} values")
        head = sorted(k for k in keys if not k.startswith(("bert.embeddings", "bert.encoder", "roberta.embeddings",
                                                          "roberta.encoder")))
        print(f"  keys besides the encoder's: {', '.join(f'{k} {keys[k]}' for k in head)}")


# ----------------------------------------------------------------------------------------- main
def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests",
                                                                 "fixtures", "reference_heads")
    torch.set_num_threads(1)
    bert_words = tokcls.bert_word_ids()  # 5..127 without [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103
    roberta_words = [t for t in tokcls.roberta_word_ids() if t != ROBERTA_MASK]  # 4..126
    mlm_tail = ("; token types all 0; pre-masked: labels per token = the original id where the token was chosen "
                "(15% of the words; 80% then replaced by the mask id, 10% by a random word, 10% kept), -100 "
                "elsewhere (specials, padding, words not chosen); labelled_per_half[i] = labelled tokens in rows "
                "0-1 and rows 2-3 of batches[i]")
    mc_tail = (f"; B counts examples: input_ids, token_type_ids and attention_mask are [B][{CHOICES} choices][T] "
               f"(the model views them as [B*{CHOICES}][T], row 4e+c), labels [B] (the right choice)")
    bert_mlm_config = without_labels(base.bert_config("BertForMaskedLM", 2))
    roberta_mlm_config = without_labels(rob.roberta_config("roberta", "RobertaForMaskedLM", 2, False))
    bert_mc_config = without_labels(base.bert_config("BertForMultipleChoice", 2))
    roberta_mc_config = without_labels(rob.roberta_config("roberta", "RobertaForMultipleChoice", 2, False))

    makers = {"bert_mlm": mlm_batch_maker(base.CLS, base.SEP, base.PAD, MASK, bert_words),
              "roberta_mlm": mlm_batch_maker(rob.BOS, rob.EOS, rob.PAD, ROBERTA_MASK, roberta_words)}
    states = {}
    states["bert_mlm"] = base.export(
        out_dir, "bert_mlm", BertForMaskedLM, bert_mlm_config, "mlm", 71,
        f"pad 0, [CLS] 101, [SEP] 102, [MASK] {MASK}; rows [CLS] words [SEP]" + mlm_tail,
        batch_maker=makers["bert_mlm"])
    states["roberta_mlm"] = base.export(
        out_dir, "roberta_mlm", RobertaForMaskedLM, roberta_mlm_config, "mlm", 72,
        f"pad 1, <s> 0, </s> 2, <mask> {ROBERTA_MASK}; rows <s> words </s>" + mlm_tail,
        batch_maker=makers["roberta_mlm"])
    with batch_size(EXAMPLES):
        states["bert_mc"] = base.export(
            out_dir, "bert_mc", BertForMultipleChoice, bert_mc_config, "mc", 73,
            "pad 0, [CLS] 101, [SEP] 102; choices [CLS] context [SEP] ending [SEP], token types 0/1" + mc_tail,
            batch_maker=mc_batch_maker(base.CLS, base.SEP, base.PAD, 1, True, bert_words))
        states["roberta_mc"] = base.export(
            out_dir, "roberta_mc", RobertaForMultipleChoice, roberta_mc_config, "mc", 74,
            "pad 1, <s> 0, </s> 2; choices <s> context </s></s> ending </s>, token types all 0" + mc_tail,
            batch_maker=mc_batch_maker(rob.BOS, rob.EOS, rob.PAD, 2, False, roberta_words))
    for name in ("bert_mc", "roberta_mc"):
        update_reference(os.path.join(out_dir, name), {}, {"choices": CHOICES, "rows": EXAMPLES * CHOICES})

    print("masking (all 20 batches):")
    for name in ("bert_mlm", "roberta_mlm"):
        k = makers[name].kinds
        print(f"  {name}: {sum(k.values())} labelled tokens: {k['mask']} masked, {k['random']} random, "
              f"{k['kept']} kept")
    print("saved keys:")
    for name, tied in (("bert_mlm", "cls.predictions.decoder."), ("roberta_mlm", "lm_head.decoder.")):
        keys = safetensors_keys(os.path.join(out_dir, name, "model.safetensors"))
        assert not any(k.startswith(tied) for k in keys) and not any("pooler" in k for k in keys)
        print(f"  {name}: no {tied}weight / {tied}bias (tied), no pooler")
    for name in ("bert_mc", "roberta_mc"):
        keys = safetensors_keys(os.path.join(out_dir, name, "model.safetensors"))
        prefix = name.split("_")[0]
        assert {f"{prefix}.pooler.dense.weight", f"{prefix}.pooler.dense.bias", "classifier.weight",
                "classifier.bias"} <= set(keys) and keys["classifier.weight"] == [1, base.HIDDEN]
        print(f"  {name}: {prefix}.pooler.dense.*, classifier.weight [1, {base.HIDDEN}], classifier.bias [1]")
    mc_batch_check(load(os.path.join(out_dir, "bert_mc")), base.CLS, base.SEP, base.PAD, 1)
    mc_batch_check(load(os.path.join(out_dir, "roberta_mc")), rob.BOS, rob.EOS, rob.PAD, 2)

    print("tied word embeddings:")
    tied_gradient("bert_mlm", BertForMaskedLM, bert_mlm_config, states["bert_mlm"],
                  os.path.join(out_dir, "bert_mlm"), "bert.embeddings.word_embeddings.weight")
    tied_gradient("roberta_mlm", RobertaForMaskedLM, roberta_mlm_config, states["roberta_mlm"],
                  os.path.join(out_dir, "roberta_mlm"), "roberta.embeddings.word_embeddings.weight")
    print("2-worker halves:")
    tokcls.half_check("bert_mlm", BertForMaskedLM, bert_mlm_config, states["bert_mlm"],
                      os.path.join(out_dir, "bert_mlm"))
    tokcls.half_check("roberta_mlm", RobertaForMaskedLM, roberta_mlm_config, states["roberta_mlm"],
                      os.path.join(out_dir, "roberta_mlm"))
    mc_half_check("bert_mc", BertForMultipleChoice, bert_mc_config, states["bert_mc"],
                  os.path.join(out_dir, "bert_mc"))
    mc_half_check("roberta_mc", RobertaForMultipleChoice, roberta_mc_config, states["roberta_mc"],
                  os.path.join(out_dir, "roberta_mc"))
    report(("bert_mlm", "roberta_mlm", "bert_mc", "roberta_mc"), out_dir)


if __name__ == "__main__":
    main()
