#!/usr/bin/python3
"""PyTorch reference fixtures for shmtrain's masked-LM and multiple-choice heads of DistilBERT, ModernBERT and DeBERTa.

Usage: /usr/bin/python3 tools/make_mlm_mc_family_references.py [OUT_DIR]   (default: tests/fixtures/reference_heads)

Needs Debian's python3-torch (/usr/bin/python3); CI does not run it: its output is committed.
The sibling of tools/make_mlm_mc_references.py (bert_mlm, roberta_mlm, bert_mc, roberta_mc), whose
recipe, batch makers, tied-gradient and halves checks this reuses, on the encoders of
tools/make_head_references.py (DistilBERT; also init, AdamW, safetensors writer, training run, export),
tools/make_modernbert_references.py (ModernBERT: config, model, init, padding check) and
tools/make_deberta_references.py (DeBERTa-v2/v3: model, ContextPooler, padding check), with
tools/make_token_classification_references.py's token loss, word ids and MLM halves check.
The heads follow transformers' modeling_distilbert.py, modeling_modernbert.py and
modeling_deberta_v2.py (read at huggingface/transformers main, 2025):

  distilbert_mlm  DistilBertForMaskedLM: DistilBertModel; vocab_transform (dim -> dim) -> GELU
                  (config.activation "gelu": erf) -> vocab_layer_norm (LayerNorm(dim, eps=1e-12)) ->
                  vocab_projector: logits = x @ W_word^T + vocab_projector.bias, W_word =
                  distilbert.embeddings.word_embeddings.weight (tied: _tied_weights_keys
                  ["vocab_projector.weight"]; save_pretrained leaves it out, the bias is saved)
  modernbert_mlm  ModernBertForMaskedLM: ModernBertModel (final_norm included); head =
                  ModernBertPredictionHead (head.dense H -> H, bias classifier_bias (false) ->
                  classifier_activation "gelu" -> head.norm, LayerNorm(eps norm_eps, bias norm_bias
                  (false))); decoder: logits = x @ W_tok^T + decoder.bias (decoder_bias true),
                  W_tok = model.embeddings.tok_embeddings.weight (tied, not saved). sparse_prediction
                  false: every position is projected, the loss takes the labelled ones
  distilbert_mc   DistilBertForMultipleChoice: rows [examples * choices, T]; hidden[:, 0] ->
                  pre_classifier (dim -> dim) -> ReLU -> dropout(seq_classif_dropout) -> classifier
                  (dim -> 1); logits viewed [examples, choices]; no token types
  modernbert_mc   ModernBertForMultipleChoice (transformers has it since 2025): rows [examples *
                  choices, T]; classifier_pooling "cls": the final_norm output at the first real
                  token (HF: attention_mask.argmax(-1), token 0 for right padding) -> head (dense,
                  GELU, norm) -> drop(classifier_dropout) -> classifier (H -> 1, with bias)
  deberta_mc      DebertaV2ForMultipleChoice: rows [examples * choices, T]; DebertaV2Model ->
                  ContextPooler (token 0 -> dropout(pooler_dropout) -> pooler.dense (H -> H) ->
                  ACT2FN[pooler_hidden_act] gelu) -> dropout(cls_dropout, else hidden_dropout_prob)
                  -> classifier (pooler.output_dim = hidden_size -> 1)

Losses as make_mlm_mc_references.py's: MLM CrossEntropyLoss()(logits.view(-1, vocab), labels.view(-1))
(the mean over the batch's labelled tokens), MC CrossEntropyLoss()(logits [examples, 4], labels
[examples]). Sizes and ids: DistilBERT as distilbert_cls (vocab 128, dim 32, 2 layers, 2 heads,
hidden_dim 64, 40 positions, pad 0, [CLS] 101, [SEP] 102, [MASK] 103); ModernBERT as
modernbert_cls (legacy config spelling; words 0..122, [UNK] 123, [CLS] 124, [SEP] 125, [PAD] 126,
[MASK] 127; right padding, attention mask; eager path: the losses here never read a padded
position, so the unpadded FlashAttention path gives the same numbers); DeBERTa as deberta_cls
(v3 settings; [PAD] 0, [CLS] 1, [SEP] 2, words 4..127, type_vocab_size 0).

MLM batches: make_mlm_mc_references.mlm_batch_maker with each family's ids (4 x 24, pre-masked,
labelled_per_half). MC batches: its mc_batch_maker (2 examples x 4 choices x 24, run_swag's layout:
"[CLS] context [SEP] ending [SEP]"; DistilBERT's token types 0/1, which the model ignores;
ModernBERT's and DeBERTa's all 0 / 0-1 as their tokenizers give them), then made learnable: the
right ending's words are replaced by CUE words (a fixed set of 8 word ids, the same in every batch)
and the wrong endings' words are never CUE words, and the classifier starts at std CLASSIFIER_STD
(HF: initializer_range 0.02; ModernBERT's own init already gives hidden_size**-0.5): with HF's init
and make_mlm_mc_references.py's cue (the right ending repeats context words) bert_mc and roberta_mc
stay at ln 4 (gradient norms 1e-3..1e-2), and their parameter checks are rounding-noise-dominated.

Recipe as make_head_references.py: 20 AdamW steps (lr 1e-3, weight decay 0.01 except biases and
LayerNorm modules, constant LR, clip 1.0, dropout 0), fp32 and fp64 losses, grad norms before
clipping, step-0 gradient norms per parameter (the tied matrix once, under the embedding's name),
parameter norms after 20 steps. One thread, fixed seeds. Prints self-checks: fp32 against fp64
losses, the saved keys, the tied gradient's parts, the MLM 2-worker halves (weights by labelled
tokens), the MC halves (1 example per worker), padding invariance (ModernBERT, DeBERTa) and how far
the MC models learn (accuracy and loss on the 20 batches before and after training).
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

EXAMPLES, CHOICES = mlmmc.EXAMPLES, mlmmc.CHOICES
CUES = 8  # the right ending's words come from CUES fixed word ids
CLASSIFIER_STD = 0.5  # the MC classifier's init std (HF: initializer_range 0.02) for DistilBERT and DeBERTa


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
        return types.SimpleNamespace(embeddings=types.SimpleNamespace(word_embeddings=self.model.embeddings.tok_embeddings))

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
