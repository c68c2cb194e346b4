#!/usr/bin/python3
"""PyTorch reference fixtures for shmtrain's question-answering and DistilBERT models.

Usage: /usr/bin/python3 tools/make_head_references.py [OUT_DIR]   (default: tests/fixtures/reference_heads)

Needs Debian's python3-torch (/usr/bin/python3); CI does not run it: its output is committed.
transformers is not needed: the three models below are written in plain torch with Hugging
Face's module tree, parameter names and semantics (transformers 4.3x modeling_bert.py and
modeling_distilbert.py):

  bert_qa          BertForQuestionAnswering: BertModel without pooler, qa_outputs (H -> 2),
                   loss (CE(start) + CE(end)) / 2 over all positions, no dropout on the head
  distilbert_cls   DistilBertForSequenceClassification (3 labels): word + position embeddings
                   (no token types), q/sqrt(d) before QK^T, masked_fill(finfo.min), no dropout
                   after out_lin, pre_classifier -> ReLU -> dropout -> classifier
  distilbert_qa    DistilBertForQuestionAnswering: dropout(qa_dropout) -> qa_outputs

Each OUT_DIR/<name>/ gets config.json and model.safetensors (the initial model, HF format),
batches.json (20 fixed batches of 4 x 24 tokens, padded; DistilBERT's also carry pair token
types, which the model must ignore), and reference.json: PyTorch's loss at each of 20 AdamW
steps (lr 1e-3, weight decay 0.01 except biases and LayerNorm modules, as HF Trainer groups
them; constant LR; clip 1.0 after backward; loss recorded before the step; dropout 0), the
gradient norms before clipping, each parameter's gradient norm at step 0 and its norm after the
20 steps, and the same losses from a float64 run (the rounding noise floor).
Deterministic: one thread, fixed seeds.
"""
import json
import math
import os
import struct
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, HIDDEN, HEADS, INTER, LAYERS, POSITIONS = 128, 32, 2, 64, 2, 40
BATCH, SEQ, STEPS = 4, 24, 20
CLS, SEP, PAD = 101, 102, 0


# ------------------------------------------------------------------------------------------- BERT
class BertEmbeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.word_embeddings = nn.Embedding(c["vocab_size"], c["hidden_size"], padding_idx=c["pad_token_id"])
        self.position_embeddings = nn.Embedding(c["max_position_embeddings"], c["hidden_size"])
        self.token_type_embeddings = nn.Embedding(c["type_vocab_size"], c["hidden_size"])
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])
        self.dropout = nn.Dropout(c["hidden_dropout_prob"])

    def forward(self, ids, types):
        positions = torch.arange(ids.shape[1])[None]
        x = self.word_embeddings(ids) + self.token_type_embeddings(types) + self.position_embeddings(positions)
        return self.dropout(self.LayerNorm(x))


class BertSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        h = c["hidden_size"]
        self.heads, self.head_dim = c["num_attention_heads"], h // c["num_attention_heads"]
        self.query, self.key, self.value = nn.Linear(h, h), nn.Linear(h, h), nn.Linear(h, h)
        self.dropout = nn.Dropout(c["attention_probs_dropout_prob"])

    def forward(self, x, additive_mask):
        b, t, h = x.shape
        split = lambda y: y.view(b, t, self.heads, self.head_dim).transpose(1, 2)
        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim) + additive_mask
        probs = self.dropout(F.softmax(scores, dim=-1))
        return (probs @ v).transpose(1, 2).reshape(b, t, h)


class BertDenseOutput(nn.Module):  # BertSelfOutput and BertOutput: LayerNorm(dropout(dense(x)) + residual)
    def __init__(self, c, d_in):
        super().__init__()
        self.dense = nn.Linear(d_in, c["hidden_size"])
        self.LayerNorm = nn.LayerNorm(c["hidden_size"], eps=c["layer_norm_eps"])
        self.dropout = nn.Dropout(c["hidden_dropout_prob"])

    def forward(self, x, residual):
        return self.LayerNorm(self.dropout(self.dense(x)) + residual)


class BertAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self = BertSelfAttention(c)
        self.output = BertDenseOutput(c, c["hidden_size"])

    def forward(self, x, additive_mask):
        return self.output(self.self(x, additive_mask), x)


class BertIntermediate(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["intermediate_size"])

    def forward(self, x):
        return F.gelu(self.dense(x))


class BertLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = BertAttention(c)
        self.intermediate = BertIntermediate(c)
        self.output = BertDenseOutput(c, c["intermediate_size"])

    def forward(self, x, additive_mask):
        a = self.attention(x, additive_mask)
        return self.output(self.intermediate(a), a)


class BertEncoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList(BertLayer(c) for _ in range(c["num_hidden_layers"]))

    def forward(self, x, additive_mask):
        for layer in self.layer:
            x = layer(x, additive_mask)
        return x


class BertModelNoPooler(nn.Module):  # BertModel(config, add_pooling_layer=False)
    def __init__(self, c):
        super().__init__()
        self.embeddings, self.encoder = BertEmbeddings(c), BertEncoder(c)

    def forward(self, ids, types, mask):
        x = self.embeddings(ids, types)
        additive = (1.0 - mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        return self.encoder(x, additive)


def qa_loss(logits, start_positions, end_positions):  # HF's QA heads: mean of the two CEs
    start_logits, end_logits = (z.squeeze(-1).contiguous() for z in logits.split(1, dim=-1))
    ignored = start_logits.size(1)
    start_positions, end_positions = start_positions.clamp(0, ignored), end_positions.clamp(0, ignored)
    loss_start = F.cross_entropy(start_logits, start_positions, ignore_index=ignored)
    loss_end = F.cross_entropy(end_logits, end_positions, ignore_index=ignored)
    return (loss_start + loss_end) / 2


class BertForQuestionAnswering(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.bert = BertModelNoPooler(c)
        self.qa_outputs = nn.Linear(c["hidden_size"], c["num_labels"])

    def forward(self, b):
        hidden = self.bert(b["input_ids"], b["token_type_ids"], b["attention_mask"])
        return qa_loss(self.qa_outputs(hidden), b["start_positions"], b["end_positions"])


# ------------------------------------------------------------------------------------- DistilBERT
class DistilEmbeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.word_embeddings = nn.Embedding(c["vocab_size"], c["dim"], padding_idx=c["pad_token_id"])
        self.position_embeddings = nn.Embedding(c["max_position_embeddings"], c["dim"])
        self.LayerNorm = nn.LayerNorm(c["dim"], eps=1e-12)
        self.dropout = nn.Dropout(c["dropout"])

    def forward(self, ids):
        positions = torch.arange(ids.shape[1])[None]
        return self.dropout(self.LayerNorm(self.word_embeddings(ids) + self.position_embeddings(positions)))


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        d = c["dim"]
        self.heads, self.head_dim = c["n_heads"], d // c["n_heads"]
        self.q_lin, self.k_lin, self.v_lin, self.out_lin = (nn.Linear(d, d) for _ in range(4))
        self.dropout = nn.Dropout(c["attention_dropout"])

    def forward(self, x, mask):
        b, t, d = x.shape
        split = lambda y: y.view(b, t, self.heads, self.head_dim).transpose(1, 2)
        q = split(self.q_lin(x)) / math.sqrt(self.head_dim)
        k, v = split(self.k_lin(x)), split(self.v_lin(x))
        scores = q @ k.transpose(2, 3)
        masked = (mask == 0).view(b, 1, 1, t).expand_as(scores)
        scores = scores.masked_fill(masked, torch.tensor(torch.finfo(scores.dtype).min))
        weights = self.dropout(F.softmax(scores, dim=-1))
        return self.out_lin((weights @ v).transpose(1, 2).reshape(b, t, d))  # no dropout after out_lin


class FFN(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.lin1, self.lin2 = nn.Linear(c["dim"], c["hidden_dim"]), nn.Linear(c["hidden_dim"], c["dim"])
        self.dropout = nn.Dropout(c["dropout"])

    def forward(self, x):
        return self.dropout(self.lin2(F.gelu(self.lin1(x))))


class TransformerBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = MultiHeadSelfAttention(c)
        self.sa_layer_norm = nn.LayerNorm(c["dim"], eps=1e-12)
        self.ffn = FFN(c)
        self.output_layer_norm = nn.LayerNorm(c["dim"], eps=1e-12)

    def forward(self, x, mask):
        sa = self.sa_layer_norm(self.attention(x, mask) + x)
        return self.output_layer_norm(self.ffn(sa) + sa)


class Transformer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList(TransformerBlock(c) for _ in range(c["n_layers"]))

    def forward(self, x, mask):
        for layer in self.layer:
            x = layer(x, mask)
        return x


class DistilBertModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embeddings, self.transformer = DistilEmbeddings(c), Transformer(c)

    def forward(self, ids, mask):  # no token_type_ids
        return self.transformer(self.embeddings(ids), mask)


class DistilBertForSequenceClassification(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.distilbert = DistilBertModel(c)
        self.pre_classifier = nn.Linear(c["dim"], c["dim"])
        self.classifier = nn.Linear(c["dim"], c["num_labels"])
        self.dropout = nn.Dropout(c["seq_classif_dropout"])

    def forward(self, b):
        hidden = self.distilbert(b["input_ids"], b["attention_mask"])
        pooled = self.dropout(F.relu(self.pre_classifier(hidden[:, 0])))
        return F.cross_entropy(self.classifier(pooled), b["labels"])


class DistilBertForQuestionAnswering(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.distilbert = DistilBertModel(c)
        self.qa_outputs = nn.Linear(c["dim"], c["num_labels"])
        self.dropout = nn.Dropout(c["qa_dropout"])

    def forward(self, b):
        hidden = self.dropout(self.distilbert(b["input_ids"], b["attention_mask"]))
        return qa_loss(self.qa_outputs(hidden), b["start_positions"], b["end_positions"])


# ------------------------------------------------------------------------------ configs and init
def labels(n):
    return {"id2label": {str(i): f"LABEL_{i}" for i in range(n)}, "label2id": {f"LABEL_{i}": i for i in range(n)}}


def bert_config(architecture, num_labels):
    c = {"architectures": [architecture], "model_type": "bert", "attention_probs_dropout_prob": 0.0,
         "classifier_dropout": None, "hidden_act": "gelu", "hidden_dropout_prob": 0.0, "hidden_size": HIDDEN,
         "initializer_range": 0.02, "intermediate_size": INTER, "layer_norm_eps": 1e-12,
         "max_position_embeddings": POSITIONS, "num_attention_heads": HEADS, "num_hidden_layers": LAYERS,
         "pad_token_id": PAD, "position_embedding_type": "absolute", "torch_dtype": "float32",
         "type_vocab_size": 2, "use_cache": True, "vocab_size": VOCAB}
    c.update(labels(num_labels))
    c["num_labels"] = num_labels
    return c


def distilbert_config(architecture, num_labels):
    c = {"architectures": [architecture], "model_type": "distilbert", "activation": "gelu",
         "attention_dropout": 0.0, "dim": HIDDEN, "dropout": 0.0, "hidden_dim": INTER, "initializer_range": 0.02,
         "max_position_embeddings": POSITIONS, "n_heads": HEADS, "n_layers": LAYERS, "pad_token_id": PAD,
         "qa_dropout": 0.0, "seq_classif_dropout": 0.0, "sinusoidal_pos_embds": False, "torch_dtype": "float32",
         "vocab_size": VOCAB}
    c.update(labels(num_labels))
    c["num_labels"] = num_labels
    return c


def init_weights(module, std=0.02):  # HF _init_weights (BERT and DistilBERT alike)
    if isinstance(module, (nn.Linear, nn.Embedding)):
        module.weight.data.normal_(0.0, std)
    if isinstance(module, nn.Linear) and module.bias is not None:
        module.bias.data.zero_()
    if isinstance(module, nn.Embedding) and module.padding_idx is not None:
        module.weight.data[module.padding_idx].zero_()
    if isinstance(module, nn.LayerNorm):
        module.weight.data.fill_(1.0)
        module.bias.data.zero_()


def adamw(model, lr=1e-3, weight_decay=0.01):
    # HF Trainer.get_decay_parameter_names: LayerNorm modules found by type, then no "bias".
    no_decay = set()
    for module_name, module in model.named_modules():
        for name, _ in module.named_parameters(recurse=False):
            full = f"{module_name}.{name}" if module_name else name
            if isinstance(module, nn.LayerNorm) or "bias" in name:
                no_decay.add(full)
    named = list(model.named_parameters())
    groups = [{"params": [p for n, p in named if n not in no_decay], "weight_decay": weight_decay},
              {"params": [p for n, p in named if n in no_decay], "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.999), eps=1e-8, foreach=False)


# -------------------------------------------------------------------------------------- batches
def make_batches(generator, task, num_labels=2, cls=CLS, sep=SEP, pad=PAD, middle_seps=1, first_word=5,
                 pair_types=True):
    # Rows "cls A sep*middle_seps B sep" (BERT: [CLS] A [SEP] B [SEP]; RoBERTa: <s> A </s></s> B </s>),
    # words drawn from first_word..VOCAB-1, padded at the right with `pad`; B's token type is 1 if
    # pair_types, else every token type is 0.
    randint = lambda lo, hi: int(torch.randint(lo, hi + 1, (1,), generator=generator))  # inclusive
    batches = []
    for _ in range(STEPS):
        rows = {"input_ids": [], "token_type_ids": [], "attention_mask": [], "labels": [], "start_positions": [],
                "end_positions": []}
        for i in range(BATCH):
            length = SEQ if i == 0 else randint(8, SEQ)  # the first row unpadded, the others padded
            question = randint(2, min(6, length - 5))
            context = length - 2 - middle_seps - question
            words = [randint(first_word, VOCAB - 1) for _ in range(question + context)]
            ids = [cls] + words[:question] + [sep] * middle_seps + words[question:] + [sep]
            rows["input_ids"].append(ids + [pad] * (SEQ - length))
            second = 1 if pair_types else 0
            rows["token_type_ids"].append([0] * (question + 1 + middle_seps) + [second] * (context + 1) +
                                          [0] * (SEQ - length))
            rows["attention_mask"].append([1] * length + [0] * (SEQ - length))
            rows["labels"].append(sum(words) % num_labels)
            if randint(0, 3) == 0:  # no answer in this window: [CLS]
                start = end = 0
            else:
                start = randint(question + 1 + middle_seps, length - 2)
                end = randint(start, min(start + 4, length - 2))
            rows["start_positions"].append(start)
            rows["end_positions"].append(end)
        if task == "qa":
            del rows["labels"]
        else:
            del rows["start_positions"], rows["end_positions"]
        batches.append(rows)
    return batches


# ----------------------------------------------------------------------------------- safetensors
def load_safetensors(path):
    """A float32 safetensors file (as save_safetensors writes them) as tensors."""
    with open(path, "rb") as f:
        size = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(size))
        data = f.read()
    header.pop("__metadata__", None)
    return {name: torch.frombuffer(bytearray(data[i["data_offsets"][0]:i["data_offsets"][1]]),
                                   dtype=torch.float32).reshape(i["shape"]).clone()
            for name, i in header.items()}


def save_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        data = tensors[name].detach().to(torch.float32).contiguous().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


# ----------------------------------------------------------------------------------------- runs
def train(model_class, config, state, batches, dtype):
    model = model_class(config).to(dtype)
    model.load_state_dict({k: v.to(dtype) for k, v in state.items()})
    model.train()  # every dropout probability is 0
    optimizer = adamw(model)
    losses, norms, step0 = [], [], {}
    for step in range(STEPS):
        batch = {k: torch.tensor(v) for k, v in batches[step].items()}
        loss = model(batch)
        loss.backward()
        if step == 0:
            step0 = {n: float(p.grad.double().norm()) for n, p in model.named_parameters()}
        norms.append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)))
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(float(loss))
    final = {n: float(p.detach().double().norm()) for n, p in model.named_parameters()}
    return losses, norms, step0, final


def export(out_dir, name, model_class, config, task, seed, note="pad 0, [CLS] 101, [SEP] 102", batch_options=None,
           batch_maker=None):
    # Returns the initial state dict. batch_maker(generator) -> (batches, extra top-level keys of batches.json)
    # replaces make_batches (tools/make_token_classification_references.py).
    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(seed)
    model = model_class(config)
    model.apply(init_weights)
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    save_safetensors(os.path.join(folder, "model.safetensors"), state)
    hf = {k: v for k, v in config.items() if k != "num_labels"}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(hf, f, indent=2, sort_keys=True)
        f.write("\n")
    generator = torch.Generator().manual_seed(seed + 1)
    if batch_maker is None:
        batches, extra = make_batches(generator, task, config["num_labels"], **(batch_options or {})), {}
    else:
        batches, extra = batch_maker(generator)
    with open(os.path.join(folder, "batches.json"), "w") as f:
        json.dump({"note": f"step i trains on batches[i]; B={BATCH}, T={SEQ}; {note}", **extra,
                   "batches": batches}, f, separators=(",", ":"))
    losses, norms, step0, final = train(model_class, config, state, batches, torch.float32)
    losses64, _, _, _ = train(model_class, config, state, batches, torch.float64)
    reference = {"losses": losses, "grad_norms_before_clip": norms, "losses_fp64_run": losses64,
                 "step0_grad_norms": step0, "final_param_norms": final,
                 "settings": {"steps": STEPS, "batch": BATCH, "seq": SEQ, "dtype": "float32", "dropout": 0.0,
                              "optimizer": "torch.optim.AdamW(foreach=False) lr=1e-3 betas=(0.9,0.999) eps=1e-8 "
                                           "wd=0.01, constant LR; weight_decay=0 for biases and LayerNorm modules",
                              "clip": "clip_grad_norm_(max_norm=1.0) after backward, before the step",
                              "torch": torch.__version__, "threads": 1}}
    with open(os.path.join(folder, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
        f.write("\n")
    worst = max(abs(a - b) / abs(b) for a, b in zip(losses, losses64))
    print(f"{name}: {sum(v.numel() for v in state.values())} parameters, losses {losses[0]:.5f} -> "
          f"{losses[-1]:.5f}, fp32 vs fp64 run: {worst:.2e} relative")
    return state


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests",
                                                                 "fixtures", "reference_heads")
    torch.set_num_threads(1)
    export(out_dir, "bert_qa", BertForQuestionAnswering, bert_config("BertForQuestionAnswering", 2), "qa", 11)
    export(out_dir, "distilbert_cls", DistilBertForSequenceClassification,
           distilbert_config("DistilBertForSequenceClassification", 3), "cls", 12)
    export(out_dir, "distilbert_qa", DistilBertForQuestionAnswering,
           distilbert_config("DistilBertForQuestionAnswering", 2), "qa", 13)


if __name__ == "__main__":
    main()
