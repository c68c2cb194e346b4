#!/usr/bin/python3
"""PyTorch reference fixtures for shmtrain's masked-LM and multiple-choice heads of DistilBERT, ModernBERT, DeBERTa
and ELECTRA.

Usage: /usr/bin/python3 tools/make_mlm_mc_family_references.py [--only NAME[,NAME...]] [OUT_DIR]
       (default OUT_DIR: tests/fixtures/reference_heads; --only writes and checks just those folders, e.g.
       --only electra_mc, and leaves the others as they are)

Needs Debian's python3-torch (/usr/bin/python3); CI does not run it: its output is committed.
The sibling of tools/make_mlm_mc_references.py (bert_mlm, roberta_mlm, bert_mc, roberta_mc), whose batch
makers, MC base class, tied-gradient, halves and batch checks this reuses, on the encoders of
tools/make_head_references.py (DistilBERT; also HF's init, AdamW, safetensors writer, training run,
export), tools/make_modernbert_references.py (ModernBERT: config, model, prediction head, init, padding
check), tools/make_deberta_references.py (DeBERTa-v2/v3: model, ContextPooler, v3 config, padding
check) and tools/make_electra_references.py (ELECTRA: ElectraModel, config), with
tools/make_token_classification_references.py's token loss, word ids and MLM halves check.
The heads follow transformers' modeling_distilbert.py, modeling_modernbert.py, modeling_deberta_v2.py and
modeling_electra.py (module trees and parameter names as there):

  distilbert_mlm  DistilBertForMaskedLM: DistilBertModel; vocab_transform (dim -> dim) -> GELU
                  (config.activation "gelu": erf) -> vocab_layer_norm (LayerNorm(dim, eps=1e-12)) ->
                  vocab_projector: logits = x @ W^T + vocab_projector.bias, W =
                  distilbert.embeddings.word_embeddings.weight (tied: _tied_weights_keys
                  ["vocab_projector.weight"], which save_pretrained leaves out; the bias is saved)
  modernbert_mlm  ModernBertForMaskedLM: ModernBertModel (final_norm included); head =
                  ModernBertPredictionHead: head.dense (H -> H, bias classifier_bias: none) ->
                  classifier_activation "gelu" -> head.norm (LayerNorm, eps norm_eps, bias norm_bias:
                  none); decoder: logits = x @ W^T + decoder.bias (decoder_bias true), W =
                  model.embeddings.tok_embeddings.weight (tied, not saved). sparse_prediction false:
                  every position is projected, the loss takes the labelled ones
  distilbert_mc   DistilBertForMultipleChoice: rows [examples * choices, T] (no token types);
                  hidden[:, 0] -> pre_classifier (dim -> dim) -> ReLU -> dropout(seq_classif_dropout)
                  -> classifier (dim -> 1); logits viewed [examples, choices]
  modernbert_mc   ModernBertForMultipleChoice (transformers PR #39232, July 2025): rows [examples *
                  choices, T]; classifier_pooling "cls": the final_norm output at the first real token
                  (HF: attention_mask.argmax(-1); token 0 with right padding) -> head (dense, GELU,
                  norm) -> drop(classifier_dropout) -> classifier (H -> 1, with a bias)
  deberta_mc      DebertaV2ForMultipleChoice: rows [examples * choices, T]; DebertaV2Model ->
                  ContextPooler (token 0 -> dropout(pooler_dropout) -> pooler.dense (H -> H) ->
                  ACT2FN[pooler_hidden_act] "gelu") -> dropout(cls_dropout, else hidden_dropout_prob)
                  -> classifier (ContextPooler.output_dim = hidden_size -> 1)
  electra_mc      ElectraForMultipleChoice: rows [examples * choices, T]; ElectraModel (embeddings_project
                  16 -> 32 as electra_cls) -> sequence_summary = SequenceSummary(config) (modeling_utils.py,
                  read at 040ba146; said to be ElectraSequenceSummary, the same module, in later versions:
                  not checked here) with ElectraConfig's default summary_* settings:
                  summary_type "first" (token 0) -> summary_use_proj: sequence_summary.summary (H -> H: no
                  summary_proj_to_labels) -> summary_activation "gelu" (get_activation: erf) ->
                  last_dropout (Dropout(summary_last_dropout) where > 0, else Identity; no
                  summary_first_dropout) -> classifier (H -> 1); no other dropout

Losses as make_mlm_mc_references.py's: MLM CrossEntropyLoss()(logits.view(-1, vocab), labels.view(-1))
(the mean over the batch's labelled tokens), MC CrossEntropyLoss()(logits [examples, 4], labels
[examples]). Sizes and ids: DistilBERT as distilbert_cls (vocab 128, dim 32, 2 layers, 2 heads,
hidden_dim 64, 40 positions; pad 0, [CLS] 101, [SEP] 102, [MASK] 103); ModernBERT as modernbert_cls
(legacy config spelling; words 0..122, [UNK] 123, [CLS] 124, [SEP] 125, [PAD] 126, [MASK] 127; right
padding and the attention mask, the eager path: these losses never read a padded position, so the
unpadded FlashAttention path gives the same numbers); DeBERTa as deberta_cls (v3 settings; [PAD] 0,
[CLS] 1, [SEP] 2, words 4..127, type_vocab_size 0); ELECTRA as electra_cls (BERT's ids, embedding_size 16,
hidden 32, 2 token types; config.json as ElectraConfig writes it, summary_* keys included, with
summary_last_dropout 0.0 as every other dropout probability here: SequenceSummary's last_dropout is then an
Identity).

MLM batches: make_mlm_mc_references.mlm_batch_maker with each family's ids (4 x 24, pre-masked,
labelled_per_half). MC batches: its mc_batch_maker (2 examples x 4 choices x 24, run_swag's layout
"[CLS] context [SEP] ending [SEP]", padded at the right; token types 0/1, which DistilBERT and DeBERTa
(type_vocab_size 0) ignore, ModernBERT's all 0), with a cue a bag of words learns: every word of the
right ending is one of CUES cue words (the family's first 8 word ids), which appear nowhere else.
electra_mc's choices are BERT's ([CLS] 101, [SEP] 102, pad 0, token types 0/1, which ELECTRA reads).

MC init: config.json's initializer_range is MC_INITIALIZER_RANGE (0.2; HF's default 0.02) and HF's
_init_weights uses it (BERT family, ELECTRA's included: every Linear and Embedding weight N(0, 0.2), so
sequence_summary.summary and embeddings_project too; ModernBERT: std 0.2 in,
0.2 / sqrt(2 * layers) out, truncated at 2 std), except classifier.weight, drawn with std CLASSIFIER_STD
(0.02). Why: with HF's 0.02 the 4 choices' pooled vectors differ by ~1e-3 relative, the MC gradient is
a sum that cancels to that level, and float32 rounding flips the sign of AdamW's steps on small
gradients: the loss stays at ln 4 (bert_mc, roberta_mc), or, where the cue makes it learn, the fp32 run
drifts from the fp64 run (5e-5 to 8e-3 relative in trials here). With 0.2 the choices differ at init and the
fp32 and fp64 runs agree to ~1e-6. The small classifier keeps small the rounding noise of the gradients
that are exactly 0 (classifier.bias; distilbert_mc's pre_classifier.bias of a unit that ReLU passes in
all 4 choices of both examples): near or below AdamW's eps. The MLM fixtures use HF's 0.02.

Recipe as make_head_references.py: 20 AdamW steps (lr 1e-3, weight decay 0.01 except biases and
LayerNorm modules, constant LR, clip 1.0, dropout 0), fp32 and fp64 losses, grad norms before
clipping, step-0 gradient norms per parameter (the tied matrix once, under the embedding's name),
parameter norms after 20 steps. One thread, fixed seeds (distilbert_mc's 99: of the seeds 93-112 the
one whose fp32 run is closest to its fp64 run, see the README; electra_mc's 96, the first one tried).
Prints self-checks: the saved keys (electra_mc's config.json summary_* keys too), the MC batches, the
tied gradient's parts, the MLM 2-worker halves (weights by labelled tokens) and MC halves (1 example per
worker), distilbert_mc's ReLU units, the fp32 run again as 2 workers and (MC) with the choices rotated
against reference.json, padding invariance (ModernBERT, DeBERTa, electra_mc; fp64), and a summary: fp32
against fp64 losses, files, head keys, how far the MC losses fall.
"""
import contextlib
import json
import math
import os
import sys
import types

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_head_references as base  # noqa: E402
import make_token_classification_references as tokcls  # noqa: E402
import make_mlm_mc_references as mlmmc  # noqa: E402
import make_modernbert_references as mb  # noqa: E402
import make_deberta_references as deb  # noqa: E402
import make_electra_references as electra  # noqa: E402

EXAMPLES, CHOICES = mlmmc.EXAMPLES, mlmmc.CHOICES
CUES = 8  # the right ending's words come from CUES fixed word ids
MC_INITIALIZER_RANGE = 0.2  # the MC fixtures' config.json initializer_range (HF's default 0.02)
CLASSIFIER_STD = 0.02  # the MC classifier.weight's init std
ELECTRA_MC_SEED = 96


# ------------------------------------------------------------------------------------- the heads
class TiedDecoder(nn.Module):
    """An nn.Linear(H, vocab) whose weight is the word-embedding matrix (tied, not a parameter of its own):
    only its bias is registered, under <name>.bias, as save_pretrained writes it."""

    def __init__(self, vocab):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(vocab))

    def forward(self, x, weight):
        return F.linear(x, weight, self.bias)


class DistilBertForMaskedLM(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.distilbert = base.DistilBertModel(c)
        self.vocab_transform = nn.Linear(c["dim"], c["dim"])
        self.vocab_layer_norm = nn.LayerNorm(c["dim"], eps=1e-12)
        self.vocab_projector = TiedDecoder(c["vocab_size"])

    def encoder(self):
        return self.distilbert

    def logits(self, b, decoder_weight=None):  # decoder_weight: as make_mlm_mc_references' tied_gradient passes it
        hidden = self.distilbert(b["input_ids"], b["attention_mask"])
        x = self.vocab_layer_norm(F.gelu(self.vocab_transform(hidden)))  # get_activation("gelu"): erf
        weight = self.distilbert.embeddings.word_embeddings.weight if decoder_weight is None else decoder_weight
        return self.vocab_projector(x, weight)

    def forward(self, b):
        return tokcls.token_loss(self.logits(b), b["labels"])


class ModernBertForMaskedLM(nn.Module):
    def __init__(self, config, repad_zeros=False):
        super().__init__()
        r = self.r = mb.resolve_config(config)
        assert r["decoder_bias"] and config.get("tie_word_embeddings", True) and not config["sparse_prediction"]
        self.model = mb.ModernBertModel(r, repad_zeros)
        self.head = mb.ModernBertPredictionHead(r)
        self.decoder = TiedDecoder(r["vocab"])

    def encoder(self):  # the names make_mlm_mc_references.tied_gradient reads
        embeddings = types.SimpleNamespace(word_embeddings=self.model.embeddings.tok_embeddings)
        return types.SimpleNamespace(embeddings=embeddings)

    def logits(self, b, decoder_weight=None):
        x = self.head(self.model(b["input_ids"], b["attention_mask"]))
        weight = self.model.embeddings.tok_embeddings.weight if decoder_weight is None else decoder_weight
        return self.decoder(x, weight)

    def forward(self, b):
        return tokcls.token_loss(self.logits(b), b["labels"])


flat = mlmmc.flat


class DistilBertForMultipleChoice(mlmmc.BertForMultipleChoice):  # logits: classifier(dropout(pooled)).view(-1, 4)
    def __init__(self, c):
        nn.Module.__init__(self)
        self.distilbert = base.DistilBertModel(c)
        self.pre_classifier = nn.Linear(c["dim"], c["dim"])
        self.classifier = nn.Linear(c["dim"], 1)
        self.dropout = nn.Dropout(c["seq_classif_dropout"])

    def pooled(self, b):  # no token types
        hidden = self.distilbert(flat(b["input_ids"]), flat(b["attention_mask"]))
        return F.relu(self.pre_classifier(hidden[:, 0]))


class DebertaV2ForMultipleChoice(mlmmc.BertForMultipleChoice):
    def __init__(self, c):
        nn.Module.__init__(self)
        self.deberta = deb.DebertaV2Model(c)
        self.pooler = deb.ContextPooler(c)
        self.classifier = nn.Linear(c["hidden_size"], 1)  # ContextPooler.output_dim is config.hidden_size
        drop = c.get("cls_dropout")
        self.dropout = nn.Dropout(c["hidden_dropout_prob"] if drop is None else drop)

    def pooled(self, b):
        return self.pooler(self.deberta(flat(b["input_ids"]), flat(b["token_type_ids"]), flat(b["attention_mask"])))


class ElectraSequenceSummary(nn.Module):
    """transformers' SequenceSummary (modeling_utils.py, read at 040ba146) as ElectraConfig's defaults configure it:
    token 0 -> summary (H -> H) -> GELU (erf) -> last_dropout. The other options (summary_type "last"/"mean"/
    "cls_index", summary_proj_to_labels, summary_first_dropout, no activation) are not ported."""

    def __init__(self, c):
        super().__init__()
        assert c["summary_type"] == "first" and c["summary_use_proj"] and c["summary_activation"] == "gelu"
        assert not c.get("summary_proj_to_labels") and not c.get("summary_first_dropout")  # ElectraConfig has neither
        self.summary = nn.Linear(c["hidden_size"], c["hidden_size"])
        p = c["summary_last_dropout"]
        self.last_dropout = nn.Dropout(p) if p > 0 else nn.Identity()  # HF: a Dropout only where > 0

    def forward(self, hidden):
        return self.last_dropout(F.gelu(self.summary(hidden[:, 0])))  # get_activation("gelu"): the erf form


class ElectraForMultipleChoice(mlmmc.BertForMultipleChoice):  # logits: classifier(sequence_summary(h)).view(-1, 4)
    def __init__(self, c):
        nn.Module.__init__(self)
        self.electra = electra.ElectraModel(c)
        self.sequence_summary = ElectraSequenceSummary(c)
        self.classifier = nn.Linear(c["hidden_size"], 1)

    def pooled(self, b):
        return self.sequence_summary(self.electra(flat(b["input_ids"]), flat(b["token_type_ids"]),
                                                  flat(b["attention_mask"])))

    def logits(self, b):  # no dropout between sequence_summary and classifier (the summary's last_dropout is it)
        return self.classifier(self.pooled(b)).view(-1, b["input_ids"].shape[1])


class ModernBertForMultipleChoice(mb.ModernBertForSequenceClassification):
    """model, head, drop, classifier (H -> 1): ModernBertForSequenceClassification's modules with one output
    (so make_modernbert_references.init_weights gives classifier HF's std hidden_size**-0.5), on the rows
    [examples * choices, T]; logits viewed [examples, choices]."""

    def __init__(self, config, repad_zeros=False):
        super().__init__(dict(config, num_labels=1), repad_zeros)

    def logits(self, b):
        rows = {"input_ids": flat(b["input_ids"]), "attention_mask": flat(b["attention_mask"])}
        if self.r["pooling"] == "cls":  # HF pools the first real token: attention_mask.argmax(-1); right padding
            assert int(rows["attention_mask"][:, 0].min()) == 1
        return super().logits(rows).view(-1, b["input_ids"].shape[1])

    def forward(self, b):
        return F.cross_entropy(self.logits(b), b["labels"])


# ------------------------------------------------------------------------------------ init hooks
HF_INIT = base.init_weights  # BERT's and DistilBERT's and DeBERTa's _init_weights


@contextlib.contextmanager
def init_with(fn):
    """base.export initialises with model.apply(base.init_weights) (children first, the task model last)."""
    saved, base.init_weights = base.init_weights, fn
    try:
        yield
    finally:
        base.init_weights = saved


def modernbert_init(module):  # ModernBERT's _init_weights (config.json's initializer_range), once, from the task model
    if isinstance(module, (ModernBertForMaskedLM, ModernBertForMultipleChoice)):
        mb.init_weights(module)
    if isinstance(module, ModernBertForMultipleChoice):
        std, cutoff = CLASSIFIER_STD, module.r["cutoff"]
        nn.init.trunc_normal_(module.classifier.weight.data, 0.0, std, -cutoff * std, cutoff * std)


def bert_family_mc_init(config):
    """HF's _init_weights with config.json's initializer_range, then classifier.weight from N(0, CLASSIFIER_STD).
    ElectraPreTrainedModel._init_weights is BERT's (copied from it)."""

    def init(module):
        HF_INIT(module, config["initializer_range"])
        if isinstance(module, mlmmc.BertForMultipleChoice):  # the task model, after its children
            module.classifier.weight.data.normal_(0.0, CLASSIFIER_STD)

    return init


# -------------------------------------------------------------------------------------- batches
def cue_mc_batch_maker(cls, sep, pad, middle_seps, pair_types, word_ids):
    """make_mlm_mc_references.mc_batch_maker's batches with a cue a bag of words learns: every word of the right
    ending becomes a random CUE word (the first CUES word ids), and a cue word drawn for a context (shared by
    the 4 choices) or a wrong ending becomes a random other word. Lengths, layout and labels stay as drawn."""
    cues, others = word_ids[:CUES], word_ids[CUES:]

    def make(generator):
        batches, extra = mlmmc.mc_batch_maker(cls, sep, pad, middle_seps, pair_types, word_ids)(generator)
        pick = lambda words: words[int(torch.randint(0, len(words), (1,), generator=generator))]
        for b in batches:
            for e, label in enumerate(b["labels"]):
                rows = b["input_ids"][e]
                first = rows[0].index(sep)
                context = [t if t not in cues else pick(others) for t in rows[0][1:first]]
                for c, ids in enumerate(rows):
                    ids[1:first] = context
                    start, end = first + middle_seps, sum(b["attention_mask"][e][c]) - 1  # the ending: [start, end)
                    if c == label:
                        ids[start:end] = [pick(cues) for _ in range(start, end)]
                    else:
                        ids[start:end] = [t if t not in cues else pick(others) for t in ids[start:end]]
        return batches, extra

    return make


def cue_check(name, folder, cues, sep, middle_seps):
    lengths = []
    for b in mlmmc.load(folder)["batches"]:
        for e, label in enumerate(b["labels"]):
            for c, (ids, mask) in enumerate(zip(b["input_ids"][e], b["attention_mask"][e])):
                start, end = ids.index(sep) + middle_seps, sum(mask) - 1
                assert not set(ids[:start]) & set(cues) and ids[end] == sep
                assert set(ids[start:end]) <= set(cues) if c == label else not set(ids[start:end]) & set(cues)
                lengths += [end - start] if c == label else []
    print(f"  {name}: words {cues[0]}..{cues[-1]} make the right endings ({min(lengths)}..{max(lengths)} words) "
          f"and appear nowhere else")


# --------------------------------------------------------------------------------------- checks
def report(name, out_dir, encoder_prefixes):
    folder = os.path.join(out_dir, name)
    with open(os.path.join(folder, "reference.json")) as f:
        r = json.load(f)
    keys = mlmmc.safetensors_keys(os.path.join(folder, "model.safetensors"))
    assert sorted(keys) == sorted(r["step0_grad_norms"]) == sorted(r["final_param_norms"])
    worst = max(abs(a - b) / abs(b) for a, b in zip(r["losses"], r["losses_fp64_run"]))
    assert worst < 1e-5, worst
    sizes = {n: os.path.getsize(os.path.join(folder, n)) for n in sorted(os.listdir(folder))}
    print(f"{name}: step 0 loss fp32 {r['losses'][0]:.9f} fp64 {r['losses_fp64_run'][0]:.12f}; step 19 fp32 "
          f"{r['losses'][-1]:.9f} fp64 {r['losses_fp64_run'][-1]:.12f}; fp32 vs fp64 {worst:.1e} relative; "
          f"{len(keys)} tensors, {sum(torch.Size(s).numel() for s in keys.values())} values; grad norms "
          f"{min(r['grad_norms_before_clip']):.2e}..{max(r['grad_norms_before_clip']):.2e} "
          f"({sum(g > 1.0 for g in r['grad_norms_before_clip'])} of 20 clipped)")
    print(f"  files: {', '.join(f'{n} {s}' for n, s in sizes.items())}")
    head = sorted(k for k in keys if not k.startswith(encoder_prefixes))
    print(f"  keys besides the encoder's: {', '.join(f'{k} {keys[k]}' for k in head)}")
    tiny = sorted(k for k, v in r["step0_grad_norms"].items() if v < 1e-7)
    print(f"  step-0 gradient norm below 1e-7 (exactly 0 but for rounding): {', '.join(tiny) or 'none'}")
    return r


def rerun_fp32(name, model_class, config, state, folder, how):
    """The fp32 run again in another summation order, as another fp32 implementation may compute it.
    how "2 workers": each step's loss and gradient are the weighted sum of the halves' (MLM: rows 0-1 and 2-3,
    weights labelled_per_half / labelled; MC: one example each, weights 1/2); "choices rotated" (MC): choice c
    becomes choice c - 1 (labels too), the batch as one. Prints the worst relative differences of the losses,
    the gradient norms and the final norms of the tensors whose step-0 gradient is >= 1e-7 to reference.json's."""
    data = mlmmc.load(folder)
    with open(os.path.join(folder, "reference.json")) as f:
        ref = json.load(f)
    model = model_class(config)
    model.load_state_dict(state)
    model.train()
    optimizer = base.adamw(model)
    losses, norms = [], []
    for step, batch in enumerate(data["batches"]):
        b = {k: torch.tensor(v) for k, v in batch.items()}
        if how == "choices rotated":
            order = torch.tensor([(c + 1) % CHOICES for c in range(CHOICES)])
            parts = [({k: t[:, order] if t.dim() == 3 else (t - 1) % CHOICES for k, t in b.items()}, 1)]
        elif "labelled_per_half" in data:
            counts = data["labelled_per_half"][step]
            parts = [({k: t[:2] for k, t in b.items()}, counts[0]), ({k: t[2:] for k, t in b.items()}, counts[1])]
        else:
            parts = [({k: t[e:e + 1] for k, t in b.items()}, 1) for e in range(EXAMPLES)]
        total = 0.0
        for part, n in parts:
            loss = model(part) * (n / sum(m for _, m in parts))
            loss.backward()
            total += float(loss)
        norms.append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)))
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(total)
    relative = lambda xs, ys: max(abs(x - y) / abs(y) for x, y in zip(xs, ys))
    final = {n: float(p.detach().double().norm()) for n, p in model.named_parameters()}
    checked = [n for n, g in ref["step0_grad_norms"].items() if g >= 1e-7]
    worst = sorted((abs(final[n] - ref["final_param_norms"][n]) / ref["final_param_norms"][n], n) for n in checked)
    print(f"  {name}, {how}: losses {relative(losses, ref['losses']):.1e}, gradient norms "
          f"{relative(norms, ref['grad_norms_before_clip']):.1e}; final norms of the {len(checked)} tensors with a "
          f"step-0 gradient >= 1e-7: {worst[-1][0]:.1e} ({worst[-1][1]}), then {worst[-2][0]:.1e} ({worst[-2][1]})")


def relu_check(config, state, folder):
    """distilbert_mc: a pre_classifier unit that ReLU passes in all 4 choices of an example adds w_u * b_u to the 4
    logits alike, so that example gives pre_classifier.bias[u] no gradient (as classifier.bias gets none)."""
    model = DistilBertForMultipleChoice(config).double()
    model.load_state_dict({k: t.double() for k, t in state.items()})
    batch = {k: torch.tensor(v) for k, v in mlmmc.load(folder)["batches"][0].items()}
    with torch.no_grad():
        z = model.pre_classifier(model.distilbert(flat(batch["input_ids"]), flat(batch["attention_mask"]))[:, 0])
    passed = (z > 0).view(EXAMPLES, CHOICES, -1)
    everywhere = int(passed.all(1).all(0).sum())
    mixed = int((passed.any(1) & ~passed.all(1)).any(0).sum())
    print(f"  distilbert_mc, batches[0] at init (fp64): of the {z.shape[1]} pre_classifier units, {everywhere} pass "
          f"ReLU in all 8 rows (their pre_classifier.bias gradient is 0 but for rounding), {mixed} in some but not all "
          f"choices of an example; |pre-activation| >= {float(z.abs().min()):.1e}")


def electra_padding_check(config, state, rows):
    """electra_mc: each of batches[0] example 0's padded choices, as a row, against the same row alone and unpadded
    (fp64): the encoder output at its real tokens and its logit (classifier(sequence_summary(h)))."""
    model = ElectraForMultipleChoice(config).double()
    model.load_state_dict({k: t.double() for k, t in state.items()})
    b = {k: torch.tensor(v) for k, v in rows.items() if k != "labels"}
    logit = lambda h: model.classifier(model.sequence_summary(h))[:, 0]
    worst_hidden = worst_logits = 0.0
    padded = 0
    with torch.no_grad():
        hidden = model.electra(b["input_ids"], b["token_type_ids"], b["attention_mask"])
        logits = logit(hidden)
        for r in range(CHOICES):
            length = int(b["attention_mask"][r].sum())
            if length == base.SEQ:
                continue
            padded += 1
            alone = model.electra(*(b[k][r:r + 1, :length] for k in ("input_ids", "token_type_ids", "attention_mask")))
            worst_hidden = max(worst_hidden, float((hidden[r, :length] - alone[0]).abs().max()))
            worst_logits = max(worst_logits, float((logits[r] - logit(alone)[0]).abs().max()))
    print(f"  electra_mc (batches[0] example 0's choices as rows): {padded} padded rows (lengths "
          f"{[int(x) for x in b['attention_mask'].sum(1)]}) vs the same rows unpadded, fp64: encoder output at the "
          f"real tokens differs by at most {worst_hidden:.1e}, logits by {worst_logits:.1e}")
    assert padded >= 2 and worst_hidden < 1e-12 and worst_logits < 1e-12


def first_example(batch):
    """The 4 choices of batches[0]'s example 0 as 4 rows (choice 0 unpadded), for the padding checks."""
    rows = {k: v[0] for k, v in batch.items() if k != "labels"}
    rows["labels"] = [0] * CHOICES
    return rows


# ----------------------------------------------------------------------------------------- main
def main():
    args = sys.argv[1:]
    only = None
    if args[:1] == ["--only"]:
        only, args = set(args[1].split(",")), args[2:]
    out_dir = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "reference_heads")
    torch.set_num_threads(1)
    bert_words = tokcls.bert_word_ids()  # 5..127 without [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103
    deberta_words = list(range(deb.FIRST_WORD, base.VOCAB))
    mlm_tail = ("; token types all 0; pre-masked: labels per token = the original id where the token was chosen "
                "(15% of the words; 80% then replaced by the mask id, 10% by a random word, 10% kept), -100 "
                "elsewhere (specials, padding, words not chosen); labelled_per_half[i] = labelled tokens in rows "
                "0-1 and rows 2-3 of batches[i]")

    def mc_tail(words):
        return (f"; B counts examples: input_ids, token_type_ids and attention_mask are [B][{CHOICES} choices][T] "
                f"(the model views them as [B*{CHOICES}][T], row 4e+c), labels [B] (the right choice); the right "
                f"ending's words are cue words {words[0]}..{words[CUES - 1]}, which appear nowhere else")

    distil_mlm_config = mlmmc.without_labels(base.distilbert_config("DistilBertForMaskedLM", 2))
    modern_mlm_config = mb.legacy_config("ModernBertForMaskedLM", "cls", None)
    distil_mc_config = mlmmc.without_labels(base.distilbert_config("DistilBertForMultipleChoice", 2))
    modern_mc_config = mb.legacy_config("ModernBertForMultipleChoice", "cls", None)
    deberta_mc_config = mlmmc.without_labels(deb.v3_config("DebertaV2ForMultipleChoice", 2))
    electra_mc_config = electra.electra_config("ElectraForMultipleChoice", 2, with_labels=False)
    electra_mc_config["summary_last_dropout"] = 0.0  # dropout 0 as everywhere here (ElectraConfig's default 0.1)
    for config in (distil_mc_config, modern_mc_config, deberta_mc_config, electra_mc_config):
        config["initializer_range"] = MC_INITIALIZER_RANGE
    modern_ids = f"[PAD] {mb.PAD}, [CLS]=bos {mb.CLS}, [SEP]=eos {mb.SEP}, [MASK] {mb.MASK}, words 0..{mb.UNK - 1}"

    # name: model class, config, seed, init hook (base.export's init_weights), batch maker, batches.json's note
    mlm = {"distilbert_mlm": (DistilBertForMaskedLM, distil_mlm_config, 91, HF_INIT,
                              mlmmc.mlm_batch_maker(base.CLS, base.SEP, base.PAD, mlmmc.MASK, bert_words),
                              f"pad 0, [CLS] 101, [SEP] 102, [MASK] {mlmmc.MASK}; rows [CLS] words [SEP]" + mlm_tail),
           "modernbert_mlm": (ModernBertForMaskedLM, modern_mlm_config, 92, modernbert_init,
                              mlmmc.mlm_batch_maker(mb.CLS, mb.SEP, mb.PAD, mb.MASK, mb.WORDS),
                              f"{modern_ids}; rows [CLS] words [SEP] padded at the right with {mb.PAD}; token types "
                              "ignored" + mlm_tail)}
    mc = {"distilbert_mc": (DistilBertForMultipleChoice, distil_mc_config, 99, bert_family_mc_init(distil_mc_config),
                            cue_mc_batch_maker(base.CLS, base.SEP, base.PAD, 1, True, bert_words),
                            "pad 0, [CLS] 101, [SEP] 102; choices [CLS] context [SEP] ending [SEP], token types 0/1 "
                            "(DistilBERT ignores them)" + mc_tail(bert_words)),
          "modernbert_mc": (ModernBertForMultipleChoice, modern_mc_config, 94, modernbert_init,
                            cue_mc_batch_maker(mb.CLS, mb.SEP, mb.PAD, 1, False, mb.WORDS),
                            f"{modern_ids}; choices [CLS] context [SEP] ending [SEP] padded at the right with "
                            f"{mb.PAD}, token types all 0 (ignored)" + mc_tail(mb.WORDS)),
          "deberta_mc": (DebertaV2ForMultipleChoice, deberta_mc_config, 95, bert_family_mc_init(deberta_mc_config),
                         cue_mc_batch_maker(deb.CLS, deb.SEP, deb.PAD, 1, True, deberta_words),
                         f"pad {deb.PAD}, [CLS] {deb.CLS}, [SEP] {deb.SEP}, words {deb.FIRST_WORD}..127; choices [CLS] "
                         "context [SEP] ending [SEP], token types 0/1 (ignored: type_vocab_size 0)"
                         + mc_tail(deberta_words)),
          "electra_mc": (ElectraForMultipleChoice, electra_mc_config, ELECTRA_MC_SEED,
                         bert_family_mc_init(electra_mc_config),
                         cue_mc_batch_maker(base.CLS, base.SEP, base.PAD, 1, True, bert_words),
                         "pad 0, [CLS] 101, [SEP] 102; choices [CLS] context [SEP] ending [SEP], token types 0/1"
                         + mc_tail(bert_words))}
    if only is not None:
        assert only <= set(mlm) | set(mc), sorted(only - set(mlm) - set(mc))
        mlm = {k: v for k, v in mlm.items() if k in only}
        mc = {k: v for k, v in mc.items() if k in only}
    states = {}
    for name, (model_class, config, seed, init, maker, note) in mlm.items():
        with init_with(init):
            states[name] = base.export(out_dir, name, model_class, config, "mlm", seed, note, batch_maker=maker)
    with mlmmc.batch_size(EXAMPLES):
        for name, (model_class, config, seed, init, maker, note) in mc.items():
            with init_with(init):
                states[name] = base.export(out_dir, name, model_class, config, "mc", seed, note, batch_maker=maker)
    for name in mc:
        mlmmc.update_reference(os.path.join(out_dir, name), {}, {"choices": CHOICES, "rows": EXAMPLES * CHOICES,
                                                                 "initializer_range": MC_INITIALIZER_RANGE,
                                                                 "classifier_init_std": CLASSIFIER_STD})

    if mlm:
        print("masking (all 20 batches):")
    for name, spec in mlm.items():
        k = spec[4].kinds
        print(f"  {name}: {sum(k.values())} labelled tokens: {k['mask']} masked, {k['random']} random, "
              f"{k['kept']} kept")
    print("saved keys:")
    for name, tied, word_key in (("distilbert_mlm", "vocab_projector.", "distilbert.embeddings.word_embeddings.weight"),
                                 ("modernbert_mlm", "decoder.", "model.embeddings.tok_embeddings.weight")):
        if name not in states:
            continue
        keys = mlmmc.safetensors_keys(os.path.join(out_dir, name, "model.safetensors"))
        assert f"{tied}weight" not in keys and keys[f"{tied}bias"] == [base.VOCAB] and keys[word_key] == [base.VOCAB,
                                                                                                      base.HIDDEN]
        print(f"  {name}: no {tied}weight (tied to {word_key}), {tied}bias [{base.VOCAB}]")
    heads = {"distilbert_mc": ("pre_classifier.weight", "pre_classifier.bias"),
             "modernbert_mc": ("head.dense.weight", "head.norm.weight"),
             "deberta_mc": ("pooler.dense.weight", "pooler.dense.bias"),
             "electra_mc": ("sequence_summary.summary.weight", "sequence_summary.summary.bias")}
    for name, needed in heads.items():
        if name not in states:
            continue
        keys = mlmmc.safetensors_keys(os.path.join(out_dir, name, "model.safetensors"))
        assert set(needed) <= set(keys) and keys["classifier.weight"] == [1, base.HIDDEN]
        assert keys["classifier.bias"] == [1]
        print(f"  {name}: {', '.join(needed)}, classifier.weight [1, {base.HIDDEN}], classifier.bias [1]")
    if "modernbert_mc" in states:
        modern = mlmmc.safetensors_keys(os.path.join(out_dir, "modernbert_mc", "model.safetensors"))
        assert "head.dense.bias" not in modern and "head.norm.bias" not in modern  # classifier_bias, norm_bias false
    if "electra_mc" in states:
        keys = mlmmc.safetensors_keys(os.path.join(out_dir, "electra_mc", "model.safetensors"))
        head = {k: v for k, v in keys.items() if not k.startswith("electra.")}
        assert head == {"sequence_summary.summary.weight": [base.HIDDEN, base.HIDDEN],
                        "sequence_summary.summary.bias": [base.HIDDEN], "classifier.weight": [1, base.HIDDEN],
                        "classifier.bias": [1]}, head
        assert keys["electra.embeddings_project.weight"] == [base.HIDDEN, electra.EMBEDDING]
        assert not any("pooler" in k or "dropout" in k for k in keys)
        with open(os.path.join(out_dir, "electra_mc", "config.json")) as f:
            saved = json.load(f)
        summary = {k: v for k, v in saved.items() if k.startswith("summary_")}
        assert summary == {"summary_activation": "gelu", "summary_last_dropout": 0.0, "summary_type": "first",
                           "summary_use_proj": True}, summary
        print(f"  electra_mc: electra.embeddings_project.weight [{base.HIDDEN}, {electra.EMBEDDING}]; config.json "
              f"{json.dumps(summary, sort_keys=True)}")
    print("multiple-choice batches:")
    for name, (cls, sep, pad), words in (("distilbert_mc", (base.CLS, base.SEP, base.PAD), bert_words),
                                         ("modernbert_mc", (mb.CLS, mb.SEP, mb.PAD), mb.WORDS),
                                         ("deberta_mc", (deb.CLS, deb.SEP, deb.PAD), deberta_words),
                                         ("electra_mc", (base.CLS, base.SEP, base.PAD), bert_words)):
        if name not in states:
            continue
        folder = os.path.join(out_dir, name)
        mlmmc.mc_batch_check(mlmmc.load(folder), cls, sep, pad, 1)
        cue_check(name, folder, words[:CUES], sep, 1)

    if mlm:
        print("tied word embeddings:")
    if "distilbert_mlm" in states:
        mlmmc.tied_gradient("distilbert_mlm", DistilBertForMaskedLM, distil_mlm_config, states["distilbert_mlm"],
                            os.path.join(out_dir, "distilbert_mlm"), "distilbert.embeddings.word_embeddings.weight")
    if "modernbert_mlm" in states:
        mlmmc.tied_gradient("modernbert_mlm", ModernBertForMaskedLM, modern_mlm_config, states["modernbert_mlm"],
                            os.path.join(out_dir, "modernbert_mlm"), "model.embeddings.tok_embeddings.weight")
    print("2-worker halves:")
    for name, (model_class, config, *_) in mlm.items():
        tokcls.half_check(name, model_class, config, states[name], os.path.join(out_dir, name))
    for name, (model_class, config, *_) in mc.items():
        mlmmc.mc_half_check(name, model_class, config, states[name], os.path.join(out_dir, name))
    if "distilbert_mc" in states:
        relu_check(distil_mc_config, states["distilbert_mc"], os.path.join(out_dir, "distilbert_mc"))
    print("the fp32 run in another summation order, against reference.json (relative differences):")
    for name, (model_class, config, *_) in list(mlm.items()) + list(mc.items()):
        for how in ("2 workers", "choices rotated") if name in mc else ("2 workers",):
            rerun_fp32(name, model_class, config, states[name], os.path.join(out_dir, name), how)
    print("padding invariance (fp64):")
    if "modernbert_mlm" in states:
        modern_batch = mlmmc.load(os.path.join(out_dir, "modernbert_mlm"))["batches"][0]
        mb.check_padding("modernbert_mlm", ModernBertForMaskedLM, modern_mlm_config, states["modernbert_mlm"],
                         modern_batch)
    if "modernbert_mc" in states:
        mb.check_padding("modernbert_mc (batches[0] example 0's choices as rows)",
                         mb.ModernBertForSequenceClassification, dict(modern_mc_config, num_labels=1),
                         states["modernbert_mc"],
                         first_example(mlmmc.load(os.path.join(out_dir, "modernbert_mc"))["batches"][0]))
    if "deberta_mc" in states:
        deb.check_padding("deberta_mc (batches[0] example 0's choices as rows)", deb.DebertaV2ForSequenceClassification,
                          dict(deberta_mc_config, num_labels=1), states["deberta_mc"],
                          first_example(mlmmc.load(os.path.join(out_dir, "deberta_mc"))["batches"][0]))
    if "electra_mc" in states:
        electra_padding_check(electra_mc_config, states["electra_mc"],
                              first_example(mlmmc.load(os.path.join(out_dir, "electra_mc"))["batches"][0]))

    print("summary:")
    prefixes = {"distilbert": ("distilbert.embeddings", "distilbert.transformer"), "modernbert": ("model.",),
                "deberta": ("deberta.",), "electra": ("electra.",)}
    for name in list(mlm) + list(mc):
        r = report(name, out_dir, prefixes[name.split("_")[0]])
        if name in mc:
            first, last = sum(r["losses_fp64_run"][:5]) / 5, sum(r["losses_fp64_run"][-5:]) / 5
            print(f"  learning: mean loss of steps 0-4 {first:.4f}, of steps 15-19 {last:.4f} (ln 4 = "
                  f"{math.log(CHOICES):.4f})")


if __name__ == "__main__":
    main()
