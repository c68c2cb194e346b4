#!/usr/bin/python3
"""PyTorch reference fixtures for shmtrain's ModernBERT models.

Usage: /usr/bin/python3 tools/make_modernbert_references.py [OUT_DIR]   (default: tests/fixtures/reference_heads)

Needs Debian's python3-torch (/usr/bin/python3); CI does not run it: its output is committed.
transformers is not needed: the models below are a plain-torch port of Hugging Face's
modeling_modernbert.py (eager attention on padded batches; modernbert_qa zeroes the padded
positions as the FlashAttention/unpadded path does, see below), with its module tree and
parameter names; tools/modernbert_logits.py loads HF-format folders into the same port.
Reuses tools/make_head_references.py (AdamW grouping, batches, safetensors writer) and
tools/make_token_classification_references.py (token batches, loss).

The architecture, as transformers computes it (4.48 to 5.x, eager/sdpa path):
  embeddings   tok_embeddings (padding_idx = pad_token_id) -> norm -> drop; no position or
               token-type embeddings (token_type_ids in batches.json are all 0 and ignored)
  layer i      h += attn.Wo(attention(rotary(attn.Wqkv(attn_norm(h))))); attn_norm is nn.Identity
               on layer 0. h += mlp.Wo(act(x) * gate) with x, gate = mlp.Wi(mlp_norm(h)).chunk(2)
               Wqkv's output is laid out [q | k | v], each head-major; scores = q k^T * head_dim**-0.5
               + additive mask (finfo(dtype).min at padded keys; on sliding layers also where
               |i - j| > local_attention // 2); softmax; @ v.
               Rotary: rotate_half style, cos/sin of positions 0..S-1 (per row, padding or not)
               times inv_freq = 1 / theta**(arange(0, head_dim, 2) / head_dim); theta is
               rope_parameters["full_attention"|"sliding_attention"]["rope_theta"] (legacy:
               global_rope_theta 160000, local_rope_theta 10000 by default).
  layer types  layer_types[i], or (legacy configs) "full_attention" where i % global_attn_every_n_layers
               == 0 (default 3), else "sliding_attention".
  final_norm   after the last layer. Every LayerNorm has bias=norm_bias, eps=norm_eps. With repad_zeros
               (modernbert_qa), its output is then 0 at padded positions (FlashAttention path, below).
  head         ModernBertPredictionHead: norm(act(dense(x))), dense bias = classifier_bias,
               act = classifier_activation.
  heads        SequenceClassification: pool the final_norm output (classifier_pooling "cls": token 0;
               "mean": sum(h * mask) / sum(mask)), then head, drop, classifier (always with a bias,
               whatever classifier_bias says). TokenClassification and QuestionAnswering: head, drop,
               classifier on every token. MaskedLM: decoder(head(h)), decoder.weight tied to
               model.embeddings.tok_embeddings.weight.
  init         HF _init_weights: truncated normal (cutoff 2 std) with std 0.02 for tok_embeddings,
               Wqkv, Wi; 0.02 / sqrt(2 * layers) for attn.Wo, mlp.Wo, head.dense; hidden**-0.5 for
               classifier; biases 0, LayerNorm weights 1. The padding row of tok_embeddings is NOT
               zeroed (HF overwrites it); it never gets a gradient but is weight-decayed.

Folders (see tests/fixtures/reference_heads/README.md): modernbert_cls (3 labels, cls pooling,
legacy config spelling), modernbert_mean (2 labels, mean pooling, transformers-5 spelling:
layer_types and rope_parameters), modernbert_tok (token classification, 5 labels),
modernbert_qa (question answering: start and end positions, legacy spelling), modernbert_hub
(modernbert_cls's initial encoder as a ModernBertForMaskedLM checkpoint).
Same recipe as make_head_references.py: 20 fixed batches of 4 x 24, 20 AdamW steps (lr 1e-3,
weight decay 0.01 except biases and LayerNorm modules, constant LR, clip 1.0, dropout 0), fp32
and fp64 runs; plus logits.json (fp64 logits on batch 0 before and after training).

Padded positions (repad_zeros, modernbert_qa only): transformers has two paths. On CPU (and with
attn_implementation "sdpa"/"eager") ModernBertModel runs the padded batch as it is: padded positions
go through every layer (masked as keys, but computed as queries) and come out of final_norm with
values of their own. With attn_implementation="flash_attention_2", the path ModernBERT was designed
for, ModernBertModel unpads the batch (_unpad_modernbert_input), runs only the real tokens, applies
final_norm, and _pad_modernbert_output scatters them back into a zero tensor: padded positions are
exactly 0. The real tokens' outputs are the same in both paths. The task heads then see every
position: sequence classification pools token 0 or the mean over the real tokens, token
classification's loss ignores the padded positions (label -100), so both paths give the same loss;
ModernBertForQuestionAnswering applies head -> drop -> classifier to every position and its loss
(CrossEntropy over all T positions for start and for end, averaged) takes the padded positions
into its softmax, so the two paths differ there. shmtrain packs rows and, for a padded batch,
repads with zeros as the FlashAttention path does (head(0) = 0 without biases, so padded logits are
classifier.bias); modernbert_qa follows that path: ModernBertModel(repad_zeros=True) zeroes the
final_norm output at positions whose attention_mask is 0 (the other folders are unaffected). The
QA self-check prints the eager path's loss next to it. (Either way, classifier.bias does not change
the QA loss, which is invariant to adding a constant to all of a row's start or end logits: its
gradient is rounding noise, which AdamW scales up in the float32 run, to norm 4.3e-4 in 20 steps.)

Precision note: HF computes cos/sin (and in 5.x the rotation itself) and the eager softmax in
float32 even for a float64 model. This port's float64 run is float64 throughout (it is the
rounding noise floor); the float32 run is what HF computes in float32.
One thread, fixed seeds. Prints self-checks (padding invariance, config spellings, window,
weight-decay groups, hub checkpoint loading, the QA batches, and the QA loss on the unpadded path
(the fixture's) against the eager path and packed rows).
"""
import json
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_head_references as base  # noqa: E402
import make_token_classification_references as tokref  # noqa: E402

VOCAB, HIDDEN, HEADS, INTER, LAYERS, POSITIONS = 128, 32, 2, 48, 4, 64
EVERY, LOCAL = 3, 8  # layers 0 and 3 global; local layers see |i - j| <= 4
# ModernBERT's tokenizer puts its specials after the words ([UNK] 50280, [CLS] 50281, [SEP] 50282,
# [PAD] 50283, [MASK] 50284; bos = cls, eos = sep); the same order at the top of a 128-token vocabulary:
UNK, CLS, SEP, PAD, MASK = 123, 124, 125, 126, 127
BOS, EOS = CLS, SEP
WORDS = list(range(0, UNK))  # 0..122
LEGACY_VERSION = "4.50.0"  # configs in the legacy spelling (global_rope_theta, ...), as 4.48-4.5x wrote them
NEW_VERSION = "5.0.0"  # configs in the layer_types / rope_parameters spelling
NER = tokref.LABELS
REPAD_ZEROS = ("modernbert_qa",)  # folders whose reference follows the unpadded path's zeros at padded positions


# ------------------------------------------------------------------------------------ the config
def num_labels(c):
    return c["num_labels"] if "num_labels" in c else (len(c["id2label"]) if c.get("id2label") else 2)


def resolve_config(c):
    """What transformers' ModernBertConfig makes of a config.json, either spelling."""
    n = c["num_hidden_layers"]
    every = c.get("global_attn_every_n_layers", 3)
    types = c.get("layer_types")
    if types is None:  # legacy: the pattern was an int
        types = ["sliding_attention" if i % every else "full_attention" for i in range(n)]
    types = list(types)
    if len(types) != n or not set(types) <= {"full_attention", "sliding_attention"}:
        raise ValueError(f"layer_types {types} for {n} layers")
    if c.get("layer_types") is not None and "global_attn_every_n_layers" in c:
        pattern = ["sliding_attention" if i % every else "full_attention" for i in range(n)]
        if pattern != types:  # transformers 4.5x took the window from the int and theta from layer_types
            print(f"warning: layer_types {types} disagree with global_attn_every_n_layers {every}; "
                  "using layer_types (transformers 5, eager/sdpa)", file=sys.stderr)
    if c.get("rope_scaling"):
        raise NotImplementedError("rope_scaling")
    rope = c.get("rope_parameters") or {}
    if rope and not set(rope) <= {"full_attention", "sliding_attention"}:
        raise NotImplementedError(f"rope_parameters not keyed by layer type: {rope}")
    thetas = {}
    for kind, legacy_key, default in (("full_attention", "global_rope_theta", 160000.0),
                                      ("sliding_attention", "local_rope_theta", 10000.0)):
        p = rope.get(kind) or {}
        if p.get("rope_type", "default") != "default":
            raise NotImplementedError(f"rope_type {p['rope_type']}")
        thetas[kind] = float(p.get("rope_theta", c.get(legacy_key, default)))
    local_attention = c.get("local_attention", 128)
    if "sliding_window" in c:  # a property of ModernBertConfig whose setter sets local_attention = 2 * value
        local_attention = 2 * c["sliding_window"]
    h, heads = c["hidden_size"], c["num_attention_heads"]
    if h % heads:
        raise ValueError("hidden_size not a multiple of num_attention_heads")
    return {"vocab": c["vocab_size"], "hidden": h, "heads": heads, "head_dim": h // heads,
            "inter": c["intermediate_size"], "layers": n, "eps": c.get("norm_eps", 1e-5),
            "norm_bias": c.get("norm_bias", False), "attention_bias": c.get("attention_bias", False),
            "mlp_bias": c.get("mlp_bias", False), "classifier_bias": c.get("classifier_bias", False),
            "decoder_bias": c.get("decoder_bias", True), "act": c.get("hidden_activation", "gelu"),
            "classifier_act": c.get("classifier_activation", "gelu"), "pad": c.get("pad_token_id", 50283),
            "layer_types": types, "thetas": thetas, "window": local_attention // 2,
            "pooling": c.get("classifier_pooling", "cls"), "num_labels": num_labels(c),
            "embedding_dropout": c.get("embedding_dropout", 0.0), "attention_dropout": c.get("attention_dropout", 0.0),
            "mlp_dropout": c.get("mlp_dropout", 0.0), "classifier_dropout": c.get("classifier_dropout", 0.0),
            "initializer_range": c.get("initializer_range", 0.02),
            "cutoff": c.get("initializer_cutoff_factor", 2.0) or 3.0}


def activation(name):  # transformers' ACT2FN, the entries ModernBERT configs use
    table = {"gelu": F.gelu, "relu": F.relu, "silu": F.silu, "swish": F.silu,
             "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),
             "gelu_new": lambda x: 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))))}
    if name not in table:
        raise NotImplementedError(f"activation {name}")
    return table[name]


# ------------------------------------------------------------------------------------ the model
class LayerNorm(nn.LayerNorm):  # torch 1.13's nn.LayerNorm has no bias=False; still an nn.LayerNorm
    def __init__(self, r):
        super().__init__(r["hidden"], eps=r["eps"])
        if not r["norm_bias"]:
            self.bias = None


class ModernBertEmbeddings(nn.Module):
    def __init__(self, r):
        super().__init__()
        self.tok_embeddings = nn.Embedding(r["vocab"], r["hidden"], padding_idx=r["pad"])
        self.norm = LayerNorm(r)
        self.drop = nn.Dropout(r["embedding_dropout"])

    def forward(self, ids):
        return self.drop(self.norm(self.tok_embeddings(ids)))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rotary_tables(theta, head_dim, seq, dtype):
    """cos, sin of shape [seq, head_dim], computed in dtype (HF: float32, then cast)."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.int64).to(dtype) / head_dim))
    freqs = torch.arange(seq).to(dtype)[:, None] * inv_freq[None, :]
    angles = torch.cat((freqs, freqs), dim=-1)
    return angles.cos(), angles.sin()


def additive_masks(mask, dtype, window):
    """HF's masks: [B, 1, S, S], 0 where a query may attend, finfo(dtype).min elsewhere."""
    b, s = mask.shape
    lowest = torch.finfo(dtype).min
    padded_key = (mask == 0)[:, None, None, :].expand(b, 1, s, s)
    full = torch.zeros(b, 1, s, s, dtype=dtype).masked_fill(padded_key, lowest)
    positions = torch.arange(s)
    outside = (positions[None, :] - positions[:, None]).abs() > window
    return {"full_attention": full, "sliding_attention": full.masked_fill(outside[None, None], lowest)}


class ModernBertAttention(nn.Module):
    def __init__(self, r):
        super().__init__()
        self.heads, self.head_dim = r["heads"], r["head_dim"]
        self.Wqkv = nn.Linear(r["hidden"], 3 * self.heads * self.head_dim, bias=r["attention_bias"])
        self.Wo = nn.Linear(r["hidden"], r["hidden"], bias=r["attention_bias"])
        self.dropout = r["attention_dropout"]

    def forward(self, x, cos, sin, mask):
        b, s, _ = x.shape
        q, k, v = self.Wqkv(x).view(b, s, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4).unbind(0)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin  # [B, heads, S, head_dim]
        scores = torch.matmul(q, k.transpose(2, 3)) * self.head_dim ** -0.5 + mask
        probs = F.dropout(F.softmax(scores, dim=-1), p=self.dropout, training=self.training)
        out = torch.matmul(probs, v).transpose(1, 2).reshape(b, s, self.heads * self.head_dim)
        return F.dropout(self.Wo(out), p=self.dropout, training=self.training)  # out_drop


class ModernBertMLP(nn.Module):
    def __init__(self, r):
        super().__init__()
        self.Wi = nn.Linear(r["hidden"], 2 * r["inter"], bias=r["mlp_bias"])
        self.act = activation(r["act"])
        self.drop = nn.Dropout(r["mlp_dropout"])
        self.Wo = nn.Linear(r["inter"], r["hidden"], bias=r["mlp_bias"])

    def forward(self, x):
        value, gate = self.Wi(x).chunk(2, dim=-1)
        return self.Wo(self.drop(self.act(value) * gate))


class ModernBertEncoderLayer(nn.Module):
    def __init__(self, r, index):
        super().__init__()
        self.attn_norm = nn.Identity() if index == 0 else LayerNorm(r)
        self.attn = ModernBertAttention(r)
        self.mlp_norm = LayerNorm(r)
        self.mlp = ModernBertMLP(r)
        self.attention_type = r["layer_types"][index]

    def forward(self, h, rotary, masks):
        cos, sin = rotary[self.attention_type]
        h = h + self.attn(self.attn_norm(h), cos, sin, masks[self.attention_type])
        return h + self.mlp(self.mlp_norm(h))


class ModernBertModel(nn.Module):
    def __init__(self, r, repad_zeros=False):
        super().__init__()
        self.r = r
        self.repad_zeros = repad_zeros  # padded positions' output exactly 0, as _pad_modernbert_output's
        self.embeddings = ModernBertEmbeddings(r)
        self.layers = nn.ModuleList(ModernBertEncoderLayer(r, i) for i in range(r["layers"]))
        self.final_norm = LayerNorm(r)

    def forward(self, ids, mask):
        h = self.embeddings(ids)
        seq = ids.shape[1]
        rotary = {kind: rotary_tables(theta, self.r["head_dim"], seq, h.dtype)
                  for kind, theta in self.r["thetas"].items()}
        masks = additive_masks(mask, h.dtype, self.r["window"])
        for layer in self.layers:
            h = layer(h, rotary, masks)
        h = self.final_norm(h)
        if self.repad_zeros:  # transformers' unpadded (FlashAttention) path: only the real tokens are computed
            h = h.masked_fill((mask == 0).unsqueeze(-1), 0.0)
        return h


class ModernBertPredictionHead(nn.Module):
    def __init__(self, r):
        super().__init__()
        self.dense = nn.Linear(r["hidden"], r["hidden"], bias=r["classifier_bias"])
        self.act = activation(r["classifier_act"])
        self.norm = LayerNorm(r)

    def forward(self, x):
        return self.norm(self.act(self.dense(x)))


class ModernBertForSequenceClassification(nn.Module):
    def __init__(self, config, repad_zeros=False):
        super().__init__()
        r = self.r = resolve_config(config)
        self.model = ModernBertModel(r, repad_zeros)
        self.head = ModernBertPredictionHead(r)
        self.drop = nn.Dropout(r["classifier_dropout"])
        self.classifier = nn.Linear(r["hidden"], r["num_labels"])  # bias=True: classifier_bias is head.dense's

    def logits(self, b):
        h, mask = self.model(b["input_ids"], b["attention_mask"]), b["attention_mask"]
        if self.r["pooling"] == "cls":
            pooled = h[:, 0]
        else:  # "mean" over the real tokens
            pooled = (h * mask.unsqueeze(-1)).sum(dim=1) / mask.sum(dim=1, keepdim=True)
        return self.classifier(self.drop(self.head(pooled)))

    def forward(self, b):  # num_labels > 1, integer labels: single_label_classification
        return F.cross_entropy(self.logits(b).view(-1, self.r["num_labels"]), b["labels"].view(-1))


class ModernBertForTokenClassification(nn.Module):
    def __init__(self, config, repad_zeros=False):
        super().__init__()
        r = self.r = resolve_config(config)
        self.model = ModernBertModel(r, repad_zeros)
        self.head = ModernBertPredictionHead(r)
        self.drop = nn.Dropout(r["classifier_dropout"])
        self.classifier = nn.Linear(r["hidden"], r["num_labels"])

    def logits(self, b):
        return self.classifier(self.drop(self.head(self.model(b["input_ids"], b["attention_mask"]))))

    def forward(self, b):
        return tokref.token_loss(self.logits(b), b["labels"])


class ModernBertForQuestionAnswering(ModernBertForTokenClassification):  # num_labels 2: start, end
    def forward(self, b):
        return base.qa_loss(self.logits(b), b["start_positions"], b["end_positions"])


class ModernBertForMaskedLM(nn.Module):
    def __init__(self, config, repad_zeros=False):
        super().__init__()
        r = self.r = resolve_config(config)
        self.model = ModernBertModel(r, repad_zeros)
        self.head = ModernBertPredictionHead(r)
        self.decoder = nn.Linear(r["hidden"], r["vocab"], bias=r["decoder_bias"])
        if config.get("tie_word_embeddings", True):
            self.decoder.weight = self.model.embeddings.tok_embeddings.weight

    def logits(self, b):
        return self.decoder(self.head(self.model(b["input_ids"], b["attention_mask"])))


ARCHITECTURES = {cls.__name__: cls for cls in (ModernBertForSequenceClassification, ModernBertForTokenClassification,
                                               ModernBertForQuestionAnswering, ModernBertForMaskedLM)}
TASK_MODELS = (ModernBertForSequenceClassification, ModernBertForTokenClassification, ModernBertForQuestionAnswering)


def init_weights(model):  # HF ModernBertPreTrainedModel._init_weights
    r = model.r
    cutoff = r["cutoff"]
    stds = {"in": r["initializer_range"], "out": r["initializer_range"] / math.sqrt(2.0 * r["layers"]),
            "embedding": r["initializer_range"], "final_out": r["hidden"] ** -0.5}

    def normal(module, std):
        nn.init.trunc_normal_(module.weight.data, mean=0.0, std=std, a=-cutoff * std, b=cutoff * std)
        if isinstance(module, nn.Linear) and module.bias is not None:
            module.bias.data.zero_()

    for module in model.modules():
        if isinstance(module, ModernBertEmbeddings):
            normal(module.tok_embeddings, stds["embedding"])  # the padding row too
        elif isinstance(module, ModernBertMLP):
            normal(module.Wi, stds["in"])
            normal(module.Wo, stds["out"])
        elif isinstance(module, ModernBertAttention):
            normal(module.Wqkv, stds["in"])
            normal(module.Wo, stds["out"])
        elif isinstance(module, ModernBertPredictionHead):
            normal(module.dense, stds["out"])
        elif isinstance(module, TASK_MODELS):
            normal(module.classifier, stds["final_out"])
        elif isinstance(module, nn.LayerNorm):
            module.weight.data.fill_(1.0)
            if module.bias is not None:
                module.bias.data.zero_()


def load_state(model, state):
    """Strict load; a tied decoder.weight may be absent (HF does not save it)."""
    tied = (isinstance(model, ModernBertForMaskedLM)
            and model.decoder.weight is model.model.embeddings.tok_embeddings.weight)
    want = set(model.state_dict()) - ({"decoder.weight"} if tied else set())
    missing, unexpected = sorted(want - set(state)), sorted(set(state) - set(model.state_dict()))
    if missing or unexpected:
        raise KeyError(f"missing {missing}, unexpected {unexpected}")
    dtype = next(model.parameters()).dtype
    model.load_state_dict({k: v.to(dtype) for k, v in state.items()}, strict=not tied)


def build(model_class, config, state, dtype, repad_zeros=False):
    model = model_class(config, repad_zeros).to(dtype)
    load_state(model, state)
    return model


# ------------------------------------------------------------------------------------- configs
def legacy_config(architecture, pooling, label_names):
    """As transformers 4.48-4.5x saved a ModernBertConfig (the spelling of answerdotai/ModernBERT-base)."""
    c = {"architectures": [architecture], "model_type": "modernbert", "attention_bias": False,
         "attention_dropout": 0.0, "bos_token_id": BOS, "classifier_activation": "gelu", "classifier_bias": False,
         "classifier_dropout": 0.0, "classifier_pooling": pooling, "cls_token_id": CLS, "decoder_bias": True,
         "deterministic_flash_attn": False, "embedding_dropout": 0.0, "eos_token_id": EOS,
         "global_attn_every_n_layers": EVERY, "global_rope_theta": 160000.0, "hidden_activation": "gelu",
         "hidden_size": HIDDEN, "initializer_cutoff_factor": 2.0, "initializer_range": 0.02,
         "intermediate_size": INTER, "local_attention": LOCAL, "local_rope_theta": 10000.0,
         "max_position_embeddings": POSITIONS, "mlp_bias": False, "mlp_dropout": 0.0, "norm_bias": False,
         "norm_eps": 1e-05, "num_attention_heads": HEADS, "num_hidden_layers": LAYERS, "pad_token_id": PAD,
         "repad_logits_with_grad": False, "sep_token_id": SEP, "sparse_pred_ignore_index": -100,
         "sparse_prediction": False, "torch_dtype": "float32", "transformers_version": LEGACY_VERSION,
         "vocab_size": VOCAB}
    if label_names is not None:
        c["id2label"] = {str(i): name for i, name in enumerate(label_names)}
        c["label2id"] = {name: i for i, name in enumerate(label_names)}
    return c


def to_new_spelling(legacy):
    """The same config as transformers 5 saves it: layer_types and rope_parameters instead of the thetas.
    global_attn_every_n_layers stays (ModernBertConfig keeps it as an attribute); sliding_window is a
    property (local_attention // 2), not saved; repad_logits_with_grad is gone; torch_dtype is dtype."""
    c = {k: v for k, v in legacy.items()
         if k not in ("global_rope_theta", "local_rope_theta", "repad_logits_with_grad", "torch_dtype")}
    r = resolve_config(legacy)
    c["layer_types"] = r["layer_types"]
    c["rope_parameters"] = {kind: {"rope_theta": r["thetas"][kind], "rope_type": "default"}
                            for kind in ("full_attention", "sliding_attention")}
    c["dtype"] = legacy.get("torch_dtype", "float32")
    c["transformers_version"] = NEW_VERSION
    return c


def to_legacy_spelling(new):
    r = resolve_config(new)
    every = new.get("global_attn_every_n_layers", 3)
    if r["layer_types"] != ["sliding_attention" if i % every else "full_attention" for i in range(r["layers"])]:
        raise ValueError("layer_types has no legacy spelling")
    c = {k: v for k, v in new.items() if k not in ("layer_types", "rope_parameters", "dtype")}
    c.update({"global_attn_every_n_layers": every, "global_rope_theta": r["thetas"]["full_attention"],
              "local_rope_theta": r["thetas"]["sliding_attention"], "repad_logits_with_grad": False,
              "torch_dtype": new.get("dtype", "float32"), "transformers_version": LEGACY_VERSION})
    return c


# ------------------------------------------------------------------------------------- batches
def sequence_batch_maker(n_labels, task="cls"):
    """base.make_batches' rows "[CLS] A [SEP] B [SEP]" with ModernBERT's ids: it draws words from
    5..127 and placeholders for the specials, which are mapped to words 0..122 and 124/125/126."""
    special = {-1: CLS, -2: SEP, -3: PAD}

    def make(generator):
        batches = base.make_batches(generator, task, n_labels, cls=-1, sep=-2, pad=-3, middle_seps=1,
                                    first_word=5, pair_types=False)
        for b in batches:
            b["input_ids"] = [[special.get(t, t - 5) for t in row] for row in b["input_ids"]]
        return batches, {}

    return make


def tensors(batch):
    return {k: torch.tensor(v) for k, v in batch.items()}


# ------------------------------------------------------------------------------------------ runs
def train(model_class, config, state, batches, dtype, repad_zeros=False):
    model = build(model_class, config, state, dtype, repad_zeros)
    model.train()  # every dropout probability is 0
    optimizer = base.adamw(model)
    losses, norms, step0 = [], [], {}
    for step in range(base.STEPS):
        loss = model(tensors(batches[step]))
        loss.backward()
        if step == 0:
            step0 = {n: float(p.grad.double().norm()) for n, p in model.named_parameters()}
        norms.append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)))
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(float(loss))
    final = {n: float(p.detach().double().norm()) for n, p in model.named_parameters()}
    return losses, norms, step0, final, {k: v.detach().clone() for k, v in model.state_dict().items()}


def logits64(model_class, config, state, batch, repad_zeros=False):
    model = build(model_class, config, state, torch.float64, repad_zeros)
    model.eval()
    with torch.no_grad():
        return model.logits(tensors(batch))


def logits_value(model_class, logits):
    """logits.json's entry: the logits as nested lists; QA's [B][T][2] split into start and end [B][T]
    (what transformers' ModernBertForQuestionAnswering returns and tools/modernbert_logits.py prints)."""
    if model_class is ModernBertForQuestionAnswering:
        start, end = (z.squeeze(-1) for z in logits.split(1, dim=-1))
        return {"start_logits": start.tolist(), "end_logits": end.tolist()}
    return logits.tolist()


def write_json(path, value, compact=False, lines=False):
    with open(path, "w") as f:
        if lines:  # one top-level key a line
            f.write("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}"
                                       for k, v in value.items()) + "\n}\n")
        elif compact:
            json.dump(value, f, separators=(",", ":"))
        else:
            json.dump(value, f, indent=2 if path.endswith("config.json") else 1, sort_keys=path.endswith("config.json"))
            f.write("\n")


def export(out_dir, name, model_class, config, seed, note, batch_maker, repad_zeros=False):
    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(seed)
    model = model_class(config)
    init_weights(model)
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    base.save_safetensors(os.path.join(folder, "model.safetensors"), state)
    write_json(os.path.join(folder, "config.json"), config)
    batches, extra = batch_maker(torch.Generator().manual_seed(seed + 1))
    write_json(os.path.join(folder, "batches.json"),
               {"note": f"step i trains on batches[i]; B={base.BATCH}, T={base.SEQ}; {note}", **extra,
                "batches": batches}, compact=True)
    losses, norms, step0, final, state32 = train(model_class, config, state, batches, torch.float32, repad_zeros)
    losses64, _, _, _, state64 = train(model_class, config, state, batches, torch.float64, repad_zeros)
    reference = {"losses": losses, "grad_norms_before_clip": norms, "losses_fp64_run": losses64,
                 "step0_grad_norms": step0, "final_param_norms": final,
                 "settings": {"steps": base.STEPS, "batch": base.BATCH, "seq": base.SEQ, "dtype": "float32",
                              "dropout": 0.0,
                              "optimizer": "torch.optim.AdamW(foreach=False) lr=1e-3 betas=(0.9,0.999) eps=1e-8 "
                                           "wd=0.01, constant LR; weight_decay=0 for biases and LayerNorm modules",
                              "clip": "clip_grad_norm_(max_norm=1.0) after backward, before the step",
                              "torch": torch.__version__, "threads": 1}}
    write_json(os.path.join(folder, "reference.json"), reference)
    before = logits64(model_class, config, state, batches[0], repad_zeros)
    if model_class is ModernBertForQuestionAnswering:
        shape = ("; before, after and after_fp32_run each hold start_logits and end_logits (the classifier's outputs "
                 "0 and 1, as tools/modernbert_logits.py --repad-zeros prints them), shape [4][24]: positions whose "
                 "attention_mask is 0 are padding; as in transformers' unpadded FlashAttention path "
                 "(_pad_modernbert_output), the final_norm output there is 0, so their logits are classifier.bias "
                 "(transformers' eager/sdpa path computes them instead); the QA loss (transformers') takes its "
                 "softmax over all 24 positions, the padded ones included, so the losses depend on them")
    elif before.dim() == 3:
        shape = ("; shape [4][24][labels]: positions whose attention_mask is 0 are padding (their values depend on "
                 "how an implementation treats a query with no key in its window; compare the real tokens)")
    else:
        shape = "; shape [4][labels]"
    logits = {"note": "float64 logits of the model on batches[0] (eval mode, no dropout): before = the initial "
                      "model.safetensors; after = the float64 run's weights after the 20 steps; "
                      "after_fp32_run = the float32 run's weights after the 20 steps, evaluated in float64" + shape,
              "batch_index": 0, "attention_mask": batches[0]["attention_mask"],
              "before": logits_value(model_class, before),
              "after": logits_value(model_class, logits64(model_class, config, state64, batches[0], repad_zeros)),
              "after_fp32_run": logits_value(model_class,
                                             logits64(model_class, config, state32, batches[0], repad_zeros))}
    write_json(os.path.join(folder, "logits.json"), logits, lines=True)
    worst = max(abs(a - b) / abs(b) for a, b in zip(losses, losses64))
    print(f"{name}: {sum(v.numel() for v in state.values())} parameters "
          f"({os.path.getsize(os.path.join(folder, 'model.safetensors'))} bytes), losses {losses[0]:.5f} -> "
          f"{losses[-1]:.5f}, fp32 vs fp64 run: {worst:.2e} relative")
    return state, batches


def write_hub_checkpoint(out_dir, cls_config, cls_state, seed):
    """modernbert_cls's initial encoder as a ModernBertForMaskedLM checkpoint, as save_pretrained writes it:
    model.*, head.dense.weight, head.norm.weight (pretrained-looking, not the classifier's), decoder.bias;
    decoder.weight is tied to model.embeddings.tok_embeddings.weight and not saved."""
    folder = os.path.join(out_dir, "modernbert_hub")
    os.makedirs(folder, exist_ok=True)
    g = torch.Generator().manual_seed(seed)
    normal = lambda *shape: torch.randn(*shape, generator=g) * 0.02
    state = {k: v for k, v in cls_state.items() if k.startswith("model.")}
    state.update({"head.dense.weight": normal(HIDDEN, HIDDEN), "head.norm.weight": 1.0 + normal(HIDDEN),
                  "decoder.bias": normal(VOCAB)})
    base.save_safetensors(os.path.join(folder, "model.safetensors"), state)
    config = {k: v for k, v in cls_config.items() if k not in ("id2label", "label2id")}
    config["architectures"] = ["ModernBertForMaskedLM"]
    write_json(os.path.join(folder, "config.json"), config)
    print(f"modernbert_hub: {len(state)} tensors, {sum(t.numel() for t in state.values())} values "
          f"({os.path.getsize(os.path.join(folder, 'model.safetensors'))} bytes)")
    return config, state


# ----------------------------------------------------------------------------------- self-checks
def check_padding(name, model_class, config, state, batch):
    """(a) A padded row's outputs at its real tokens equal the same row without padding (fp64)."""
    model = build(model_class, config, state, torch.float64)
    model.eval()
    b = tensors(batch)
    worst_hidden = worst_logits = 0.0
    rows = 0
    with torch.no_grad():
        hidden = model.model(b["input_ids"], b["attention_mask"])
        logits = model.logits(b)
        for r in range(base.BATCH):
            length = int(b["attention_mask"][r].sum())
            if length == base.SEQ:
                continue
            rows += 1
            ids = b["input_ids"][r:r + 1, :length]
            alone = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
            unpadded = model.model(ids, alone["attention_mask"])[0]
            worst_hidden = max(worst_hidden, float((hidden[r, :length] - unpadded).abs().max()))
            short = model.logits(alone)[0]
            full = logits[r, :length] if logits.dim() == 3 else logits[r]
            worst_logits = max(worst_logits, float((full - short).abs().max()))
    print(f"  (a) {name}: {rows} padded rows of batch 0 (lengths "
          f"{[int(x) for x in b['attention_mask'].sum(1)]}) vs the same rows unpadded, fp64: final_norm output at "
          f"the real tokens differs by at most {worst_hidden:.1e}, logits by {worst_logits:.1e}")
    assert rows >= 2 and worst_hidden < 1e-12 and worst_logits < 1e-12


def check_spellings(name, model_class, config, state, batch):
    """(b) The legacy and the new spelling of a config give the same model."""
    if "layer_types" in config:
        new, legacy = config, to_legacy_spelling(config)
    else:
        legacy, new = config, to_new_spelling(config)
    assert resolve_config(legacy) == resolve_config(new)
    a = logits64(model_class, legacy, state, batch)
    b = logits64(model_class, new, state, batch)
    r = resolve_config(new)
    print(f"  (b) {name}: legacy and new spellings resolve alike (layer_types {r['layer_types']}, thetas "
          f"{r['thetas']}, half window {r['window']}); logits differ by {float((a - b).abs().max()):.1e}")
    assert torch.equal(a, b)


def check_window(config, state, batch):
    """(c) Sliding layers ignore tokens beyond local_attention // 2: in a model whose layers are all sliding,
    changing the last token of an unpadded row leaves positions more than layers * window away unchanged."""
    r = resolve_config(config)
    local = to_new_spelling(config)
    local["layer_types"] = ["sliding_attention"] * r["layers"]
    del local["global_attn_every_n_layers"]  # it would disagree; transformers 5's masks follow layer_types
    b = tensors(batch)
    assert int(b["attention_mask"][0].sum()) == base.SEQ
    last = base.SEQ - 1
    changed = {k: v.clone() for k, v in b.items()}
    changed["input_ids"][0, last] = (changed["input_ids"][0, last] + 1) % UNK
    reach = r["layers"] * r["window"]
    for label, cfg in (("all layers sliding", local), ("the fixture's layers", config)):
        model = build(ModernBertForSequenceClassification, cfg, state, torch.float64)
        model.eval()
        with torch.no_grad():
            d = (model.model(b["input_ids"], b["attention_mask"])[0]
                 - model.model(changed["input_ids"], changed["attention_mask"])[0]).abs().amax(-1)
        if label == "all layers sliding":
            print(f"  (c) token {last} changed, {label} ({r['layers']} x half window {r['window']} = reach {reach}): "
                  f"positions 0..{last - reach - 1} change by at most {float(d[:last - reach].max()):.1e}, "
                  f"position {last - reach} by {float(d[last - reach]):.1e}")
            assert float(d[:last - reach].max()) == 0.0 and float(d[last - reach]) > 0.0  # bitwise: only the window
        else:
            print(f"      {label} {r['layer_types']}: position 0 changes by {float(d[0]):.1e}")
            assert float(d[0]) > 1e-6
    # One sliding layer on its own: keys beyond the window get weight exactly 0.
    model = build(ModernBertForSequenceClassification, local, state, torch.float64)
    layer = model.model.layers[1]
    x = torch.randn(1, base.SEQ, r["hidden"], dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    y = x.clone()
    y[0, last] += torch.randn(r["hidden"], dtype=torch.float64, generator=torch.Generator().manual_seed(6))
    rotary = {k: rotary_tables(t, r["head_dim"], base.SEQ, torch.float64) for k, t in r["thetas"].items()}
    masks = additive_masks(torch.ones(1, base.SEQ, dtype=torch.long), torch.float64, r["window"])
    with torch.no_grad():
        d = (layer(x, rotary, masks) - layer(y, rotary, masks))[0].abs().amax(-1)
    print(f"      one sliding layer: positions 0..{last - r['window'] - 1} change by at most "
          f"{float(d[:last - r['window']].max()):.1e}, position {last - r['window']} by "
          f"{float(d[last - r['window']]):.1e}")
    assert float(d[:last - r["window"]].max()) == 0.0 and float(d[last - r["window"]]) > 1e-6


def check_decay_groups(name, model_class, config, state):
    """(d) The weight-decay grouping (HF Trainer: LayerNorm modules by type, and names containing "bias")."""
    model = build(model_class, config, state, torch.float32)
    groups = base.adamw(model).param_groups
    names = {id(p): n for n, p in model.named_parameters()}
    no_decay = [names[id(p)] for g in groups if g["weight_decay"] == 0.0 for p in g["params"]]
    decay = [names[id(p)] for g in groups if g["weight_decay"] > 0.0 for p in g["params"]]
    print(f"  (d) {name}: no weight decay for {len(no_decay)} of {len(no_decay) + len(decay)} parameters: "
          f"{', '.join(no_decay)}")
    return no_decay


def check_hub(hub_config, hub_state, cls_config, cls_state, batch):
    mlm = build(ModernBertForMaskedLM, hub_config, hub_state, torch.float64)
    assert mlm.decoder.weight is mlm.model.embeddings.tok_embeddings.weight
    seq = ModernBertForSequenceClassification(cls_config)
    missing = sorted(set(seq.state_dict()) - set(hub_state))
    unused = sorted(set(hub_state) - set(seq.state_dict()))
    with torch.no_grad():
        logits = mlm.logits(tensors(batch))
    print(f"  hub: loads as ModernBertForMaskedLM (decoder.weight tied, logits {list(logits.shape)}); into "
          f"ModernBertForSequenceClassification: newly initialised {missing}, unused {unused}; head.* is loaded "
          f"from the checkpoint")
    assert missing == ["classifier.bias", "classifier.weight"] and unused == ["decoder.bias"]


def check_qa(config, state, batches, hub_state):
    """(e) modernbert_qa: the batches (answers inside the context, rows without one, rows longer than the
    window), the hub checkpoint loading into the QA model, and how much the loss depends on the padding."""
    rows = no_answer = longer = 0
    lengths = set()
    for batch in batches:
        for ids, mask, start, end in zip(batch["input_ids"], batch["attention_mask"], batch["start_positions"],
                                         batch["end_positions"]):
            length = sum(mask)
            context = (ids.index(SEP) + 1, length - 2)  # [CLS] question [SEP] context [SEP]
            assert ids[0] == CLS and ids[length - 1] == SEP and ids[context[0] - 1] == SEP
            assert set(ids[length:]) <= {PAD} and SEP not in ids[context[0]:length - 1]
            assert (start, end) == (0, 0) or context[0] <= start <= end <= context[1]
            rows, no_answer, longer = rows + 1, no_answer + ((start, end) == (0, 0)), longer + (length > LOCAL)
            lengths.add(length)
    print(f"  (e) modernbert_qa: {rows} rows of lengths {min(lengths)}..{max(lengths)} ({longer} longer than "
          f"local_attention {LOCAL}); {rows - no_answer} answers inside the context, {no_answer} rows without one "
          "(start = end = 0)")
    assert no_answer > 0 and rows - no_answer > 0 and longer > rows // 2
    qa = ModernBertForQuestionAnswering(config)
    missing = sorted(set(qa.state_dict()) - set(hub_state))
    unused = sorted(set(hub_state) - set(qa.state_dict()))
    print(f"      modernbert_hub into ModernBertForQuestionAnswering: newly initialised {missing}, unused {unused}")
    assert missing == ["classifier.bias", "classifier.weight"] and unused == ["decoder.bias"]
    # transformers' loss takes the softmax over all T positions, the padded ones too, so it depends on what an
    # implementation computes there: the unpadded FlashAttention path (the fixture's, repad_zeros) repads the
    # final_norm output with zeros (_pad_modernbert_output), so padded logits are head(0) -> classifier.bias; the
    # eager/sdpa path (transformers on CPU) runs padded queries through the layers; a packed row's softmax runs
    # over its own tokens only. The real tokens' logits are the same in all three.
    eager_model = build(ModernBertForQuestionAnswering, config, state, torch.float64)
    model = build(ModernBertForQuestionAnswering, config, state, torch.float64, repad_zeros=True)
    eager_model.eval()
    model.eval()
    worst = {"eager": 0.0, "packed": 0.0}
    with torch.no_grad():
        for i, batch in enumerate(batches):
            b = tensors(batch)
            mask = b["attention_mask"]
            real = (mask == 1).unsqueeze(-1).expand(-1, -1, 2)
            zeros, eager = model.logits(b), eager_model.logits(b)
            assert torch.equal(zeros[real], eager[real])
            assert torch.equal(zeros[~real].view(-1, 2), model.classifier.bias.expand(int((mask == 0).sum()), 2))
            losses = {"zeros": float(base.qa_loss(zeros, b["start_positions"], b["end_positions"])),
                      "eager": float(base.qa_loss(eager, b["start_positions"], b["end_positions"])),
                      "packed": sum(float(base.qa_loss(eager[r:r + 1, :int(mask[r].sum())],
                                                       b["start_positions"][r:r + 1], b["end_positions"][r:r + 1]))
                                    for r in range(base.BATCH)) / base.BATCH}
            assert losses["zeros"] == float(model(b))
            for k in worst:
                worst[k] = max(worst[k], abs(losses[k] - losses["zeros"]) / losses["zeros"])
            if i == 0:
                first = losses
    print(f"      real tokens' logits equal bitwise in both paths, padded positions' logits = classifier.bias with "
          f"repad_zeros; QA loss at init (fp64), batch 0: unpadded path, zeros at padded positions (the fixture's) "
          f"{first['zeros']:.6f}, eager/sdpa path (padded positions computed) {first['eager']:.6f}, packed rows "
          f"{first['packed']:.6f}; over the 20 batches the eager and packed losses differ from the fixture's by up "
          f"to {worst['eager']:.1e} and {worst['packed']:.1e} relative")


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests",
                                                                 "fixtures", "reference_heads")
    torch.set_num_threads(1)
    ids = f"[PAD] {PAD}, [CLS]=bos {CLS}, [SEP]=eos {SEP} ([UNK] {UNK}, [MASK] {MASK} unused), words 0..{UNK - 1}"
    pair = f"{ids}; rows [CLS] A [SEP] B [SEP] padded at the right with {PAD}; token types all 0 (ignored)"
    tok_note = (f"{ids}; rows [CLS] words [SEP] padded at the right with {PAD}; token types all 0 (ignored); "
                "labels per token, -100 on specials, padding and a word's non-first tokens; "
                "labelled_per_half[i] = labelled tokens in rows 0-1 and rows 2-3 of batches[i]")
    cls_config = legacy_config("ModernBertForSequenceClassification", "cls", [f"LABEL_{i}" for i in range(3)])
    mean_config = to_new_spelling(legacy_config("ModernBertForSequenceClassification", "mean",
                                                [f"LABEL_{i}" for i in range(2)]))
    tok_config = legacy_config("ModernBertForTokenClassification", "cls", NER)
    qa_note = (f"{ids}; rows [CLS] question [SEP] context [SEP] padded at the right with {PAD}; token types all 0 "
               "(ignored); start_positions and end_positions inside the context, start = end = 0 ([CLS]) for a "
               "row without an answer")
    qa_config = legacy_config("ModernBertForQuestionAnswering", "cls", [f"LABEL_{i}" for i in range(2)])
    runs = [("modernbert_cls", ModernBertForSequenceClassification, cls_config, 41, pair, sequence_batch_maker(3)),
            ("modernbert_mean", ModernBertForSequenceClassification, mean_config, 42, pair, sequence_batch_maker(2)),
            ("modernbert_tok", ModernBertForTokenClassification, tok_config, 43, tok_note,
             tokref.token_batch_maker(CLS, SEP, PAD, WORDS)),
            ("modernbert_qa", ModernBertForQuestionAnswering, qa_config, 45, qa_note, sequence_batch_maker(2, "qa"))]
    states, batches = {}, {}
    for name, model_class, config, seed, note, maker in runs:
        states[name], batches[name] = export(out_dir, name, model_class, config, seed, note, maker,
                                             repad_zeros=name in REPAD_ZEROS)
    hub_config, hub_state = write_hub_checkpoint(out_dir, cls_config, states["modernbert_cls"], 44)

    print("self-checks:")
    for name, model_class, config, seed, note, maker in runs:
        check_padding(name, model_class, config, states[name], batches[name][0])
    for name, model_class, config, seed, note, maker in runs:
        check_spellings(name, model_class, config, states[name], batches[name][0])
    check_window(cls_config, states["modernbert_cls"], batches["modernbert_cls"][0])
    for name, model_class, config, seed, note, maker in runs:
        if name in ("modernbert_cls", "modernbert_tok"):  # mean and qa have the same parameter names
            check_decay_groups(name, model_class, config, states[name])
    print("2-worker halves (modernbert_tok):")
    tokref.half_check("modernbert_tok", ModernBertForTokenClassification, tok_config, states["modernbert_tok"],
                      os.path.join(out_dir, "modernbert_tok"))
    check_hub(hub_config, hub_state, cls_config, states["modernbert_cls"], batches["modernbert_cls"][0])
    check_qa(qa_config, states["modernbert_qa"], batches["modernbert_qa"], hub_state)


if __name__ == "__main__":
    main()
