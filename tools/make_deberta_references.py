#!/usr/bin/python3
"""PyTorch reference fixtures for shmtrain's DeBERTa-v2/v3 models (model_type "deberta-v2").

Usage: /usr/bin/python3 tools/make_deberta_references.py [OUT_DIR]   (default: tests/fixtures/reference_heads)

Needs Debian's python3-torch (/usr/bin/python3); CI does not run it: its output is committed.
transformers is not needed: the models below are a plain-torch port of Hugging Face's
modeling_deberta_v2.py (the code after the refactor of PR #22105, transformers 4.47 onwards:
plain masked_fill + softmax instead of XSoftmax, nn.Dropout instead of StableDropout; the
arithmetic is otherwise that of the older code), with its module tree and parameter names.
Reuses tools/make_head_references.py (init, AdamW, batches, safetensors writer, training run,
export, labels, qa_loss) and tools/make_token_classification_references.py (token loss, NER
labels, token batches, the 2-worker halves check). tools/torch_deberta.py imports the model.

What transformers computes (relative_attention true, the only kind built here):
  embeddings  word_embeddings (padding_idx pad) [+ position_embeddings(0..S-1) if
              position_biased_input] [+ token_type_embeddings if type_vocab_size > 0] -> LayerNorm
              -> times the attention mask (padded positions 0) -> dropout
  encoder     rel_embeddings: nn.Embedding(2 * span, H), span = position_buckets if > 0, else
              max_relative_positions (max_position_embeddings when < 1); its weight goes through
              encoder.LayerNorm when "layer_norm" is in norm_rel_ebd (split on "|"), then
              pos_dropout, once per layer. Relative positions r = i - j (query i, key j), put in
              log buckets (make_log_bucket_position, float32) when position_buckets > 0; built
              once. Mask: 2-D, mask_i * mask_j.
  attention   q, k, v = query_proj, key_proj, value_proj (biases); scale_factor = 1 + ("c2p" in
              pos_att_type) + ("p2c" in pos_att_type); scale = sqrt(head_dim * scale_factor) (a
              float32 tensor); scores = q @ (k^T / scale)
              + c2p: (q @ Kr^T)[i, clamp(r + span, 0, 2 span - 1)] / scale, Kr = key_proj
                (share_att_key) or pos_key_proj of rel_embeddings[:2 span]
              + p2c: (k @ Qr^T) gathered at clamp(-r + span, 0, 2 span - 1) and transposed, / scale,
                Qr = query_proj (share_att_key) or pos_query_proj of rel_embeddings[:2 span]
              masked_fill(mask_i * mask_j == 0, finfo(dtype).min), softmax, dropout, @ v.
              A padded query's row is all finfo.min: it attends uniformly to all S keys (the
              pre-4.47 XSoftmax zeroed those probabilities instead; see deberta_qa).
  layer       post-LN as BERT: LayerNorm(attention.output.dense(ctx) + x) = a;
              LayerNorm(output.dense(act(intermediate.dense(a))) + a)
  heads       SequenceClassification: pooler (ContextPooler: token 0 -> dropout(pooler_dropout)
              -> pooler.dense (pooler_hidden_size) -> ACT2FN[pooler_hidden_act]) -> dropout
              (cls_dropout, else hidden_dropout_prob) -> classifier; loss: CrossEntropy over the
              rows whose label is >= 0 (problem_type None), on logits.float().
              TokenClassification: dropout(hidden_dropout_prob) -> classifier on every token.
              QuestionAnswering: qa_outputs on every token, (CE(start) + CE(end)) / 2.
  init        HF _init_weights: Linear and Embedding weights N(0, 0.02), biases 0, the padding
              row 0, LayerNorm 1 and 0 (make_head_references.init_weights).

Folders (tests/fixtures/reference_heads/README.md, section DeBERTa):
  deberta_cls  DebertaV2ForSequenceClassification, 3 labels, DeBERTa-v3's settings
               (pos_att_type the string "p2c|c2p", share_att_key, position_buckets 8,
               max_relative_positions -1, norm_rel_ebd "layer_norm", no absolute positions, no
               token types, eps 1e-7)
  deberta_c2p  the same head, DeBERTa-v2-like: pos_att_type the list ["c2p"], share_att_key false
               (pos_key_proj), no buckets, max_relative_positions 16 (clamped: rows are 24
               long), norm_rel_ebd "none", absolute positions, 2 token types
  deberta_tok  DebertaV2ForTokenClassification, 5 labels, deberta_cls's settings
  deberta_qa   DebertaV2ForQuestionAnswering, deberta_cls's settings
  deberta_hub  deberta_cls's initial encoder as a DebertaV2ForMaskedLM-style Hub checkpoint
               (lm_predictions.* and mask_predictions.* as microsoft/deberta-v3-base has them)
Same recipe as make_head_references.py: 20 fixed batches of 4 x 24, 20 AdamW steps (lr 1e-3,
weight decay 0.01 except biases and LayerNorm modules, constant LR, clip 1.0, dropout 0), fp32
and fp64 runs. Ids as DeBERTa's tokenizer has them: [PAD] 0, [CLS] 1, [SEP] 2, [UNK] 3; words
4..127.

Precision: HF computes the bucket table in float32 (so does this port, whatever the model's
dtype), the attention scale as a float32 tensor cast to the model's dtype, and the sequence
classification loss on logits.float(). This port's float64 run is float64 throughout (scale
sqrt(head_dim * factor) and the loss in float64): it is the rounding noise floor; the float32
run is what HF computes in float32.
One thread, fixed seeds. Prints self-checks: the bucket values, fp32 against fp64 losses,
padding invariance (fp64), the weight-decay groups, the hub checkpoint's keys, the 2-worker
halves of deberta_tok and deberta_qa's loss against the pre-4.47 path and packed rows.
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
import make_token_classification_references as tokcls  # noqa: E402

PAD, CLS, SEP, UNK = 0, 1, 2, 3  # DeBERTa-v3's tokenizer ([MASK] is 128000 there; none here)
FIRST_WORD = 4
TRANSFORMERS_VERSION = "4.47.0"  # what config.json says wrote it: the first release with PR #22105's code


# ------------------------------------------------------------------------------------ the config
def pos_att_types(c):
    """DebertaV2Config: a string is split on "|" (lower-cased, stripped); None means none."""
    p = c.get("pos_att_type")
    if p is None:
        return []
    if isinstance(p, str):
        return [x.strip() for x in p.lower().split("|")]
    return list(p)


def norm_rel_ebd(c):
    return [x.strip() for x in c.get("norm_rel_ebd", "none").lower().split("|")]


def attention_span(c):
    """(position_buckets, max_relative_positions, att_span) as DisentangledSelfAttention resolves them."""
    buckets = c.get("position_buckets", -1)
    max_relative = c.get("max_relative_positions", -1)
    if max_relative < 1:
        max_relative = c["max_position_embeddings"]
    return buckets, max_relative, (buckets if buckets > 0 else max_relative)


def activation(name):  # transformers' ACT2FN, the entries DeBERTa configs use
    table = {"gelu": F.gelu, "relu": F.relu, "tanh": torch.tanh, "silu": F.silu, "swish": F.silu,
             "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),
             "gelu_new": lambda x: 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x.pow(3))))}
    if name not in table:
        raise NotImplementedError(f"activation {name}")
    return table[name]


# ---------------------------------------------------------------------------- relative positions
def make_log_bucket_position(relative_pos, bucket_size, max_position):
    """transformers' make_log_bucket_position: int64 in, float32 out (abs_pos / mid is a float32
    true division, torch.log of float32 tensors, torch.ceil)."""
    sign = torch.sign(relative_pos)
    mid = bucket_size // 2
    abs_pos = torch.where((relative_pos < mid) & (relative_pos > -mid), torch.tensor(mid - 1).type_as(relative_pos),
                          torch.abs(relative_pos))
    log_pos = (torch.ceil(torch.log(abs_pos / mid) / torch.log(torch.tensor((max_position - 1) / mid)) * (mid - 1))
               + mid)
    return torch.where(abs_pos <= mid, relative_pos.type_as(log_pos), log_pos * sign)


def build_relative_position(query_size, key_size, bucket_size=-1, max_position=-1):
    """[1, query_size, key_size] int64: query i, key j -> i - j (bucketed)."""
    assert torch.get_default_dtype() == torch.float32  # the bucket math is float32 only then
    q_ids = torch.arange(0, query_size)
    k_ids = torch.arange(0, key_size)
    rel_pos_ids = q_ids[:, None] - k_ids[None, :]
    if bucket_size > 0 and max_position > 0:
        rel_pos_ids = make_log_bucket_position(rel_pos_ids, bucket_size, max_position)
    return rel_pos_ids.to(torch.long)[:query_size, :].unsqueeze(0)


# ------------------------------------------------------------------------------------ the model
class DebertaV2Embeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        h = c["hidden_size"]
        if c.get("embedding_size", h) != h:
            raise NotImplementedError("embedding_size != hidden_size (embed_proj)")
        self.word_embeddings = nn.Embedding(c["vocab_size"], h, padding_idx=c.get("pad_token_id", 0))
        self.position_biased_input = c.get("position_biased_input", True)
        if self.position_biased_input:
            self.position_embeddings = nn.Embedding(c["max_position_embeddings"], h)
        if c["type_vocab_size"] > 0:
            self.token_type_embeddings = nn.Embedding(c["type_vocab_size"], h)
        self.LayerNorm = nn.LayerNorm(h, eps=c["layer_norm_eps"])
        self.dropout = nn.Dropout(c["hidden_dropout_prob"])

    def forward(self, ids, types, mask):
        x = self.word_embeddings(ids)
        if self.position_biased_input:
            x = x + self.position_embeddings(torch.arange(ids.shape[1])[None])
        if hasattr(self, "token_type_embeddings"):
            x = x + self.token_type_embeddings(types)
        x = self.LayerNorm(x)
        x = x * mask.unsqueeze(2).to(x.dtype)
        return self.dropout(x)


class DisentangledSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        h = c["hidden_size"]
        self.heads = c["num_attention_heads"]
        if h % self.heads:
            raise ValueError("hidden_size not a multiple of num_attention_heads")
        self.head_dim = h // self.heads
        self.query_proj, self.key_proj, self.value_proj = nn.Linear(h, h), nn.Linear(h, h), nn.Linear(h, h)
        self.share_att_key = c.get("share_att_key", False)
        self.pos_att_type = pos_att_types(c)
        if not c.get("relative_attention", False):
            raise NotImplementedError("relative_attention false")
        self.position_buckets, self.max_relative_positions, self.att_span = attention_span(c)
        self.pos_dropout = nn.Dropout(c["hidden_dropout_prob"])
        if not self.share_att_key:
            if "c2p" in self.pos_att_type:
                self.pos_key_proj = nn.Linear(h, h)
            if "p2c" in self.pos_att_type:
                self.pos_query_proj = nn.Linear(h, h)
        self.dropout = nn.Dropout(c["attention_probs_dropout_prob"])
        self.zero_padded_queries = False  # True: transformers < 4.47 (XSoftmax), for check_qa only

    def split(self, x):  # transpose_for_scores: (B, L, H) -> (B * heads, L, head_dim)
        x = x.view(x.shape[:-1] + (self.heads, -1))
        return x.permute(0, 2, 1, 3).contiguous().view(-1, x.size(1), x.size(-1))

    def forward(self, x, mask, relative_pos, rel_embeddings):
        q, k, v = self.split(self.query_proj(x)), self.split(self.key_proj(x)), self.split(self.value_proj(x))
        factor = 1 + ("c2p" in self.pos_att_type) + ("p2c" in self.pos_att_type)
        scale = math.sqrt(self.head_dim * factor)  # HF: a float32 tensor, cast to the dtype (see the docstring)
        scores = torch.bmm(q, k.transpose(-1, -2) / scale)
        scores = scores + self.bias(q, k, relative_pos, self.pos_dropout(rel_embeddings), scale)
        scores = scores.view(-1, self.heads, scores.size(-2), scores.size(-1))
        scores = scores.masked_fill(~mask.bool(), torch.finfo(q.dtype).min)
        probs = F.softmax(scores, dim=-1)
        if self.zero_padded_queries:
            probs = probs.masked_fill(~mask.bool(), 0.0)
        probs = self.dropout(probs)
        ctx = torch.bmm(probs.view(-1, probs.size(-2), probs.size(-1)), v)
        ctx = ctx.view(-1, self.heads, ctx.size(-2), ctx.size(-1)).permute(0, 2, 1, 3).contiguous()
        return ctx.view(ctx.shape[:-2] + (-1,))

    def bias(self, q, k, relative_pos, rel_embeddings, scale):  # disentangled_attention_bias
        span = self.att_span
        relative_pos = relative_pos.unsqueeze(1)  # [1, 1, L, L]
        rel = rel_embeddings[0:span * 2, :].unsqueeze(0)
        repeat = q.size(0) // self.heads
        if self.share_att_key:
            pos_query = self.split(self.query_proj(rel)).repeat(repeat, 1, 1)
            pos_key = self.split(self.key_proj(rel)).repeat(repeat, 1, 1)
        else:
            if "c2p" in self.pos_att_type:
                pos_key = self.split(self.pos_key_proj(rel)).repeat(repeat, 1, 1)
            if "p2c" in self.pos_att_type:
                pos_query = self.split(self.pos_query_proj(rel)).repeat(repeat, 1, 1)
        score = 0
        if "c2p" in self.pos_att_type:  # content -> position
            c2p = torch.bmm(q, pos_key.transpose(-1, -2))
            c2p_pos = torch.clamp(relative_pos + span, 0, span * 2 - 1)
            c2p = torch.gather(c2p, dim=-1, index=c2p_pos.squeeze(0).expand([q.size(0), q.size(1),
                                                                               relative_pos.size(-1)]))
            score += c2p / scale
        if "p2c" in self.pos_att_type:  # position -> content (query and key lengths are equal here)
            p2c_pos = torch.clamp(-relative_pos + span, 0, span * 2 - 1)
            p2c = torch.bmm(k, pos_query.transpose(-1, -2))
            p2c = torch.gather(p2c, dim=-1, index=p2c_pos.squeeze(0).expand([q.size(0), k.size(-2), k.size(-2)]))
            score += p2c.transpose(-1, -2) / scale
        return score


class DebertaV2DenseOutput(nn.Module):  # DebertaV2SelfOutput and DebertaV2Output: LayerNorm(dropout(dense(x)) + residual)
    def __init__(self, c, d_in):
        super().__init__()
        self.dense = nn.Linear(d_in, c["hidden_size"])
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])
        self.dropout = nn.Dropout(c["hidden_dropout_prob"])

    def forward(self, x, residual):
        return self.LayerNorm(self.dropout(self.dense(x)) + residual)


class DebertaV2Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self = DisentangledSelfAttention(c)
        self.output = DebertaV2DenseOutput(c, c["hidden_size"])

    def forward(self, x, mask, relative_pos, rel_embeddings):
        return self.output(self.self(x, mask, relative_pos, rel_embeddings), x)


class DebertaV2Intermediate(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["intermediate_size"])
        self.act = activation(c["hidden_act"])

    def forward(self, x):
        return self.act(self.dense(x))


class DebertaV2Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = DebertaV2Attention(c)
        self.intermediate = DebertaV2Intermediate(c)
        self.output = DebertaV2DenseOutput(c, c["intermediate_size"])

    def forward(self, x, mask, relative_pos, rel_embeddings):
        a = self.attention(x, mask, relative_pos, rel_embeddings)
        return self.output(self.intermediate(a), a)


class DebertaV2Encoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList(DebertaV2Layer(c) for _ in range(c["num_hidden_layers"]))
        self.position_buckets, self.max_relative_positions, span = attention_span(c)
        self.rel_embeddings = nn.Embedding(2 * span, c["hidden_size"])
        self.norm_rel_ebd = norm_rel_ebd(c)
        if "layer_norm" in self.norm_rel_ebd:
            self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])
        if c.get("conv_kernel_size", 0) > 0:
            raise NotImplementedError("conv_kernel_size (ConvLayer)")

    def get_rel_embedding(self):
        rel = self.rel_embeddings.weight
        if "layer_norm" in self.norm_rel_ebd:
            rel = self.LayerNorm(rel)
        return rel

    def forward(self, x, mask):
        extended = mask.unsqueeze(1).unsqueeze(2)  # [B, 1, 1, L]
        mask2d = extended * extended.squeeze(-2).unsqueeze(-1)  # [B, 1, L, L]: mask_i * mask_j
        relative_pos = build_relative_position(x.size(-2), x.size(-2), self.position_buckets,
                                               self.max_relative_positions)
        rel_embeddings = self.get_rel_embedding()
        for layer in self.layer:
            x = layer(x, mask2d, relative_pos, rel_embeddings)
        return x


class DebertaV2Model(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embeddings, self.encoder = DebertaV2Embeddings(c), DebertaV2Encoder(c)

    def forward(self, ids, types, mask):
        return self.encoder(self.embeddings(ids, types, mask), mask)


class ContextPooler(nn.Module):
    def __init__(self, c):
        super().__init__()
        size = c.get("pooler_hidden_size", c["hidden_size"])
        self.dense = nn.Linear(size, size)
        self.dropout = nn.Dropout(c.get("pooler_dropout", 0))
        self.act = activation(c.get("pooler_hidden_act", "gelu"))

    def forward(self, hidden):
        return self.act(self.dense(self.dropout(hidden[:, 0])))


def num_labels(c):
    return c["num_labels"] if "num_labels" in c else (len(c["id2label"]) if c.get("id2label") else 2)


class DebertaV2ForSequenceClassification(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.n = num_labels(c)
        self.deberta = DebertaV2Model(c)
        self.pooler = ContextPooler(c)
        # output_dim is config.hidden_size (ContextPooler.output_dim), as HF has it
        self.classifier = nn.Linear(c["hidden_size"], self.n)
        drop = c.get("cls_dropout")
        self.dropout = nn.Dropout(c["hidden_dropout_prob"] if drop is None else drop)

    def logits(self, b):
        hidden = self.deberta(b["input_ids"], b["token_type_ids"], b["attention_mask"])
        return self.classifier(self.dropout(self.pooler(hidden)))

    def forward(self, b):
        # problem_type None, num_labels > 1, labels [B]: CE over the rows whose label is >= 0
        # (HF on logits.float(); float64 here in the float64 run)
        logits, labels = self.logits(b), b["labels"]
        keep = labels >= 0
        return F.cross_entropy(logits[keep].view(-1, self.n), labels[keep].long())


class DebertaV2ForTokenClassification(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.deberta = DebertaV2Model(c)
        self.dropout = nn.Dropout(c["hidden_dropout_prob"])
        self.classifier = nn.Linear(c["hidden_size"], num_labels(c))

    def logits(self, b):
        return self.classifier(self.dropout(self.deberta(b["input_ids"], b["token_type_ids"], b["attention_mask"])))

    def forward(self, b):
        return tokcls.token_loss(self.logits(b), b["labels"])


class DebertaV2ForQuestionAnswering(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.deberta = DebertaV2Model(c)
        self.qa_outputs = nn.Linear(c["hidden_size"], num_labels(c))

    def logits(self, b):
        return self.qa_outputs(self.deberta(b["input_ids"], b["token_type_ids"], b["attention_mask"]))

    def forward(self, b):
        return base.qa_loss(self.logits(b), b["start_positions"], b["end_positions"])


# ------------------------------------------------------------------------------------- configs
def v3_config(architecture, n_labels, label_names=None):
    """deberta_cls's: microsoft/deberta-v3-*'s settings at the fixtures' sizes, as DebertaV2Config's
    save_pretrained writes them (share_att_key, position_buckets and norm_rel_ebd are not
    DebertaV2Config arguments: PretrainedConfig keeps them from **kwargs and saves them)."""
    c = {"architectures": [architecture], "model_type": "deberta-v2", "attention_probs_dropout_prob": 0.0,
         "hidden_act": "gelu", "hidden_dropout_prob": 0.0, "hidden_size": base.HIDDEN, "initializer_range": 0.02,
         "intermediate_size": base.INTER, "layer_norm_eps": 1e-7, "legacy": True,
         "max_position_embeddings": base.POSITIONS, "max_relative_positions": -1, "norm_rel_ebd": "layer_norm",
         "num_attention_heads": base.HEADS, "num_hidden_layers": base.LAYERS, "pad_token_id": PAD,
         "pooler_dropout": 0, "pooler_hidden_act": "gelu", "pooler_hidden_size": base.HIDDEN,
         "pos_att_type": "p2c|c2p", "position_biased_input": False, "position_buckets": 8,
         "relative_attention": True, "share_att_key": True, "torch_dtype": "float32",
         "transformers_version": TRANSFORMERS_VERSION, "type_vocab_size": 0, "vocab_size": base.VOCAB}
    if label_names is None:
        c.update(base.labels(n_labels))
    else:
        c["id2label"] = {str(i): name for i, name in enumerate(label_names)}
        c["label2id"] = {name: i for i, name in enumerate(label_names)}
    c["num_labels"] = n_labels  # for the model classes; export drops it from config.json
    return c


def v2_c2p_config(architecture, n_labels):
    """deberta_c2p's: c2p only, as a list; separate pos_key_proj; no buckets, 16 relative positions;
    no rel_embeddings LayerNorm; absolute positions and token types in the embeddings."""
    c = v3_config(architecture, n_labels)
    c.update({"pos_att_type": ["c2p"], "share_att_key": False, "position_buckets": -1, "max_relative_positions": 16,
              "norm_rel_ebd": "none", "position_biased_input": True, "type_vocab_size": 2})
    return c


# ------------------------------------------------------------------------------------- hub
def write_hub_checkpoint(out_dir, cls_config, cls_state, seed):
    """deberta_cls's initial encoder as microsoft/deberta-v3-*'s checkpoints hold it (DebertaV2ForMaskedLM
    with the RTD discriminator's head): deberta.*, lm_predictions.lm_head.{dense,LayerNorm}.*,
    lm_predictions.lm_head.bias, mask_predictions.{dense,LayerNorm,classifier}.*; no pooler, no classifier."""
    folder = os.path.join(out_dir, "deberta_hub")
    os.makedirs(folder, exist_ok=True)
    g = torch.Generator().manual_seed(seed)
    normal = lambda *shape: torch.randn(*shape, generator=g) * 0.02  # pretrained-looking: no zero biases
    h = base.HIDDEN
    state = {k: v for k, v in cls_state.items() if k.startswith("deberta.")}
    assert not any(k.startswith(("pooler.", "classifier.")) for k in state)
    state.update({"lm_predictions.lm_head.dense.weight": normal(h, h), "lm_predictions.lm_head.dense.bias": normal(h),
                  "lm_predictions.lm_head.LayerNorm.weight": 1.0 + normal(h),
                  "lm_predictions.lm_head.LayerNorm.bias": normal(h), "lm_predictions.lm_head.bias": normal(base.VOCAB),
                  "mask_predictions.dense.weight": normal(h, h), "mask_predictions.dense.bias": normal(h),
                  "mask_predictions.LayerNorm.weight": 1.0 + normal(h), "mask_predictions.LayerNorm.bias": normal(h),
                  "mask_predictions.classifier.weight": normal(1, h), "mask_predictions.classifier.bias": normal(1)})
    base.save_safetensors(os.path.join(folder, "model.safetensors"), state)
    config = {k: v for k, v in cls_config.items() if k not in ("num_labels", "id2label", "label2id")}
    config["architectures"] = ["DebertaV2ForMaskedLM"]
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"deberta_hub: {len(state)} tensors, {sum(t.numel() for t in state.values())} values")
    return state


# ----------------------------------------------------------------------------------- self-checks
def tensors(batch):
    return {k: torch.tensor(v) for k, v in batch.items()}


def build(model_class, config, state, dtype=torch.float64):
    model = model_class(config).to(dtype)
    model.load_state_dict({k: v.to(dtype) for k, v in state.items()})
    model.eval()
    return model


def check_buckets(name, config):
    buckets, max_relative, span = attention_span(config)
    rel = build_relative_position(base.SEQ, base.SEQ, buckets, max_relative)[0]
    values = sorted(set(rel.flatten().tolist()))
    c2p_rows = sorted(set(torch.clamp(rel + span, 0, 2 * span - 1).flatten().tolist()))
    line = f"  {name}: position_buckets {buckets}, max_relative_positions {max_relative}, att_span {span}, " \
           f"rel_embeddings [{2 * span}, {base.HIDDEN}]; over {base.SEQ} tokens r = i - j becomes {values}"
    if buckets > 0:
        r = torch.arange(0, base.SEQ)
        mapped = make_log_bucket_position(r, buckets, max_relative).long().tolist()
        # the same formula in float64: where float32 rounding would move a ceil
        mid = buckets // 2
        exact = [x if x <= mid else int(math.ceil(math.log(x / mid) / math.log((max_relative - 1) / mid) * (mid - 1))
                                        + mid) for x in range(base.SEQ)]
        line += f"\n      r = 0..{base.SEQ - 1} -> {mapped} (float64 math gives the same: {mapped == exact})"
        assert torch.equal(make_log_bucket_position(-r, buckets, max_relative), -make_log_bucket_position(r, buckets,
                                                                                                           max_relative))
    line += f"; c2p/p2c rows read: {c2p_rows}"
    print(line)
    return values


def check_padding(name, model_class, config, state, batch):
    """A padded row's outputs at its real tokens equal the same row alone, unpadded (fp64)."""
    model = build(model_class, config, state)
    b = tensors(batch)
    worst_hidden = worst_logits = 0.0
    rows = 0
    with torch.no_grad():
        hidden = model.deberta(b["input_ids"], b["token_type_ids"], b["attention_mask"])
        logits = model.logits(b)
        for r in range(base.BATCH):
            length = int(b["attention_mask"][r].sum())
            if length == base.SEQ:
                continue
            rows += 1
            alone = {k: v[r:r + 1, :length] for k, v in b.items() if v.dim() == 2 and k != "labels"}
            unpadded = model.deberta(alone["input_ids"], alone["token_type_ids"], alone["attention_mask"])[0]
            worst_hidden = max(worst_hidden, float((hidden[r, :length] - unpadded).abs().max()))
            short = model.logits(alone)[0]
            full = logits[r, :length] if logits.dim() == 3 else logits[r]
            worst_logits = max(worst_logits, float((full - short).abs().max()))
    print(f"  {name}: {rows} padded rows of batch 0 (lengths {[int(x) for x in b['attention_mask'].sum(1)]}) vs the "
          f"same rows unpadded, fp64: encoder output at the real tokens differs by at most {worst_hidden:.1e}, "
          f"logits by {worst_logits:.1e}")
    assert rows >= 2 and worst_hidden < 1e-12 and worst_logits < 1e-12


def check_losses(name, folder):
    with open(os.path.join(folder, "reference.json")) as f:
        r = json.load(f)
    worst = max(abs(a - b) / abs(b) for a, b in zip(r["losses"], r["losses_fp64_run"]))
    print(f"  {name}: step 0 loss fp32 {r['losses'][0]:.9f} fp64 {r['losses_fp64_run'][0]:.12f}; step 19 fp32 "
          f"{r['losses'][-1]:.9f} fp64 {r['losses_fp64_run'][-1]:.12f}; fp32 vs fp64 worst {worst:.1e} relative; "
          f"{len(r['step0_grad_norms'])} tensors")
    assert worst < 1e-5
    return r


def check_decay_groups(name, model_class, config, state):
    model = build(model_class, config, state, torch.float32)
    groups = base.adamw(model).param_groups
    names = {id(p): n for n, p in model.named_parameters()}
    no_decay = [names[id(p)] for g in groups if g["weight_decay"] == 0.0 for p in g["params"]]
    decay = [names[id(p)] for g in groups if g["weight_decay"] > 0.0 for p in g["params"]]
    print(f"  {name}: {len(decay)} tensors decay, {len(no_decay)} do not: the biases and the LayerNorm weights "
          f"({', '.join(n for n in no_decay if not n.endswith('bias'))})")
    assert ("deberta.encoder.LayerNorm.weight" in no_decay) == ("layer_norm" in norm_rel_ebd(config))
    assert "deberta.encoder.rel_embeddings.weight" in decay and "deberta.embeddings.word_embeddings.weight" in decay


def check_hub(hub_state, cls_config, cls_state):
    seq = DebertaV2ForSequenceClassification(cls_config)
    missing = sorted(set(seq.state_dict()) - set(hub_state))
    unused = sorted(set(hub_state) - set(seq.state_dict()))
    same = all(torch.equal(hub_state[k], cls_state[k]) for k in hub_state if k.startswith("deberta."))
    print(f"  deberta_hub into DebertaV2ForSequenceClassification: newly initialised {missing}; unused {unused}; "
          f"deberta.* equal to deberta_cls's model.safetensors: {same}")
    assert missing == ["classifier.bias", "classifier.weight", "pooler.dense.bias", "pooler.dense.weight"] and same


def check_qa(config, state, batches):
    """deberta_qa's loss takes its softmax over all 24 positions, the padding included, so it depends on what
    the padded positions compute. transformers >= 4.47 (the fixture's): a padded query's scores are all
    finfo.min, so it attends uniformly to all 24 keys; < 4.47 (XSoftmax): its probabilities are zeroed;
    packed rows: each row's softmax over its own tokens. The real tokens' logits are the same in all three."""
    model = build(DebertaV2ForQuestionAnswering, config, state)
    old = build(DebertaV2ForQuestionAnswering, config, state)
    for layer in old.deberta.encoder.layer:
        layer.attention.self.zero_padded_queries = True
    worst = {"old": 0.0, "packed": 0.0}
    with torch.no_grad():
        for i, batch in enumerate(batches):
            b = tensors(batch)
            mask = b["attention_mask"]
            new, before = model.logits(b), old.logits(b)
            real = (mask == 1).unsqueeze(-1).expand(-1, -1, 2)
            assert float((new[real] - before[real]).abs().max()) < 1e-12
            losses = {"new": float(base.qa_loss(new, b["start_positions"], b["end_positions"])),
                      "old": float(base.qa_loss(before, b["start_positions"], b["end_positions"])),
                      "packed": sum(float(base.qa_loss(new[r:r + 1, :int(mask[r].sum())], b["start_positions"][r:r + 1],
                                                       b["end_positions"][r:r + 1]))
                                    for r in range(base.BATCH)) / base.BATCH}
            assert abs(losses["new"] - float(model(b))) < 1e-12
            for k in worst:
                worst[k] = max(worst[k], abs(losses[k] - losses["new"]) / losses["new"])
            if i == 0:
                first = losses
    print(f"  deberta_qa at init (fp64), batch 0: loss {first['new']:.6f} (transformers >= 4.47, padded queries attend "
          f"uniformly to all keys; the fixture's), {first['old']:.6f} (< 4.47, XSoftmax zeroes them), packed rows "
          f"{first['packed']:.6f}; over the 20 batches these differ from the fixture's by up to {worst['old']:.1e} and "
          f"{worst['packed']:.1e} relative (the real tokens' logits agree to 1e-12)")


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests",
                                                                 "fixtures", "reference_heads")
    torch.set_num_threads(1)
    ids = f"pad {PAD}, [CLS] {CLS}, [SEP] {SEP} ([UNK] {UNK} unused), words {FIRST_WORD}..{base.VOCAB - 1}"
    pair_options = {"cls": CLS, "sep": SEP, "pad": PAD, "first_word": FIRST_WORD}
    cls_note = f"{ids}; rows [CLS] A [SEP] B [SEP], token types 0/1 (ignored: type_vocab_size 0)"
    c2p_note = f"{ids}; rows [CLS] A [SEP] B [SEP], token types 0/1 (type_vocab_size 2)"
    qa_note = (f"{ids}; rows [CLS] question [SEP] context [SEP], token types 0/1 (ignored: type_vocab_size 0); "
               "start_positions and end_positions inside the context, start = end = 0 ([CLS]) for a row without one")
    tok_note = (f"{ids}; rows [CLS] words [SEP]; token types all 0; labels per token, -100 on specials, padding and a "
                "word's non-first tokens; labelled_per_half[i] = labelled tokens in rows 0-1 and rows 2-3 of batches[i]")
    cls_config = v3_config("DebertaV2ForSequenceClassification", 3)
    c2p_config = v2_c2p_config("DebertaV2ForSequenceClassification", 3)
    tok_config = v3_config("DebertaV2ForTokenClassification", tokcls.NUM_LABELS, tokcls.LABELS)
    qa_config = v3_config("DebertaV2ForQuestionAnswering", 2)
    runs = [("deberta_cls", DebertaV2ForSequenceClassification, cls_config, "cls", 61, cls_note, None),
            ("deberta_c2p", DebertaV2ForSequenceClassification, c2p_config, "cls", 62, c2p_note, None),
            ("deberta_tok", DebertaV2ForTokenClassification, tok_config, "tok", 63, tok_note,
             tokcls.token_batch_maker(CLS, SEP, PAD, list(range(FIRST_WORD, base.VOCAB)))),
            ("deberta_qa", DebertaV2ForQuestionAnswering, qa_config, "qa", 64, qa_note, None)]
    states, batches = {}, {}
    for name, model_class, config, task, seed, note, maker in runs:
        states[name] = base.export(out_dir, name, model_class, config, task, seed, note,
                                   batch_options=None if maker else pair_options, batch_maker=maker)
        with open(os.path.join(out_dir, name, "batches.json")) as f:
            batches[name] = json.load(f)["batches"]
    hub_state = write_hub_checkpoint(out_dir, cls_config, states["deberta_cls"], 65)

    print("relative positions (the rows of 24 tokens):")
    check_buckets("deberta_cls/tok/qa", cls_config)
    check_buckets("deberta_c2p", c2p_config)
    print("losses:")
    for name, *_ in runs:
        check_losses(name, os.path.join(out_dir, name))
    print("padding invariance:")
    for name, model_class, config, *_ in runs:
        check_padding(name, model_class, config, states[name], batches[name][0])
    print("weight-decay groups:")
    for name, model_class, config, *_ in runs[:2]:
        check_decay_groups(name, model_class, config, states[name])
    print("hub checkpoint:")
    check_hub(hub_state, cls_config, states["deberta_cls"])
    print("2-worker halves (deberta_tok):")
    tokcls.half_check("deberta_tok", DebertaV2ForTokenClassification, tok_config, states["deberta_tok"],
                      os.path.join(out_dir, "deberta_tok"))
    print("question answering, padded positions:")
    check_qa(qa_config, states["deberta_qa"], batches["deberta_qa"])


if __name__ == "__main__":
    main()
