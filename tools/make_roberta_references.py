#!/usr/bin/python3
"""PyTorch reference fixtures for shmtrain's RoBERTa and XLM-RoBERTa models.

Usage: /usr/bin/python3 tools/make_roberta_references.py [OUT_DIR]   (default: tests/fixtures/reference_heads)

Needs Debian's python3-torch (/usr/bin/python3); CI does not run it: its output is committed.
Like tools/make_head_references.py (whose BERT encoder, QA loss, init, AdamW, batches,
safetensors writer and training run this reuses), the models are plain torch with Hugging
Face's module tree, parameter names and semantics (transformers 4.3x/4.4x modeling_roberta.py;
modeling_xlm_roberta.py is the same code under other class names):

  roberta_cls   RobertaForSequenceClassification, 3 labels: RobertaModel without pooler,
                classifier = RobertaClassificationHead: h[:, 0] -> dropout -> dense -> tanh ->
                dropout -> out_proj; cross-entropy
  roberta_qa    RobertaForQuestionAnswering: qa_outputs (H -> 2) on every token, no dropout,
                loss (CE(start) + CE(end)) / 2
  xlmr_cls      XLMRobertaForSequenceClassification, 2 labels (model_type "xlm-roberta",
                parameters still named roberta.*)
  roberta_hub   a Hub-style base checkpoint (architectures ["RobertaForMaskedLM"]) of roberta_cls's
                initial encoder: the same roberta.* tensors plus roberta.pooler.dense.* and
                lm_head.{dense,layer_norm}.*, lm_head.bias, and no classifier.*; config.json and
                model.safetensors only (for loader tests: unused and newly initialised keys)

What RoBERTa changes against BERT: pad_token_id 1 (bos <s> 0, eos </s> 2), the position
embeddings have padding_idx 1 too (row 1 zero at init, never gets a gradient), and position ids
come from the input ids (create_position_ids_from_input_ids): mask = ids != pad,
positions = cumsum(mask) * mask + pad, so real tokens take positions 2, 3, ... and padding 1,
wherever the padding is; hence max_position_embeddings 42 for 40 usable positions.
type_vocab_size 1, layer_norm_eps 1e-5. Rows are "<s> A </s></s> B </s>", all token types 0.

Same recipe as make_head_references.py: 20 fixed batches of 4 x 24 (padded at the right with 1),
20 AdamW steps (lr 1e-3, weight decay 0.01 except biases and LayerNorm modules, constant LR,
clip 1.0, dropout 0), losses of an fp32 and an fp64 run, grad norms before clipping, each
parameter's gradient norm at step 0 and norm after the 20 steps. One thread, fixed seeds.
Also prints a padding-invariance check of the position rule (no fixture file).
"""
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_head_references as base  # noqa: E402

BOS, PAD, EOS = 0, 1, 2
POSITIONS = base.POSITIONS + PAD + 1  # 42: HF RoBERTa offsets positions by padding_idx + 1
TRANSFORMERS_VERSION = "4.41.2"  # what config.json says wrote it; the semantics are the same in 4.3x/4.4x
NOTE = "pad 1, <s> 0, </s> 2; rows <s> A </s></s> B </s>; token types all 0"
BATCH_OPTIONS = {"cls": BOS, "sep": EOS, "pad": PAD, "middle_seps": 2, "first_word": 3, "pair_types": False}


def position_ids(ids, pad):  # transformers' create_position_ids_from_input_ids (no past)
    mask = ids.ne(pad).int()
    return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + pad


class RobertaEmbeddings(base.BertEmbeddings):
    def __init__(self, c):
        super().__init__(c)  # word (padding_idx=pad), token type, LayerNorm, dropout
        self.padding_idx = c["pad_token_id"]
        self.position_embeddings = nn.Embedding(c["max_position_embeddings"], c["hidden_size"],
                                                padding_idx=self.padding_idx)

    def forward(self, ids, types):
        x = self.word_embeddings(ids) + self.token_type_embeddings(types)
        x = x + self.position_embeddings(position_ids(ids, self.padding_idx))
        return self.dropout(self.LayerNorm(x))


class RobertaModelNoPooler(base.BertModelNoPooler):  # RobertaModel(config, add_pooling_layer=False)
    def __init__(self, c):
        nn.Module.__init__(self)
        self.embeddings, self.encoder = RobertaEmbeddings(c), base.BertEncoder(c)


class RobertaClassificationHead(nn.Module):
    def __init__(self, c):
        super().__init__()
        drop = c["classifier_dropout"] if c["classifier_dropout"] is not None else c["hidden_dropout_prob"]
        self.dense = nn.Linear(c["hidden_size"], c["hidden_size"])
        self.dropout = nn.Dropout(drop)
        self.out_proj = nn.Linear(c["hidden_size"], c["num_labels"])

    def forward(self, hidden):
        x = self.dropout(hidden[:, 0, :])  # <s>
        x = self.dropout(torch.tanh(self.dense(x)))
        return self.out_proj(x)


class RobertaForSequenceClassification(nn.Module):  # also XLMRobertaForSequenceClassification
    def __init__(self, c):
        super().__init__()
        self.roberta = RobertaModelNoPooler(c)
        self.classifier = RobertaClassificationHead(c)

    def logits(self, b):
        return self.classifier(self.roberta(b["input_ids"], b["token_type_ids"], b["attention_mask"]))

    def forward(self, b):  # num_labels > 1 and integer labels: single_label_classification
        return F.cross_entropy(self.logits(b), b["labels"])


class RobertaForQuestionAnswering(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.roberta = RobertaModelNoPooler(c)
        self.qa_outputs = nn.Linear(c["hidden_size"], c["num_labels"])

    def logits(self, b):
        return self.qa_outputs(self.roberta(b["input_ids"], b["token_type_ids"], b["attention_mask"]))

    def forward(self, b):
        return base.qa_loss(self.logits(b), b["start_positions"], b["end_positions"])


def roberta_config(model_type, architecture, num_labels, with_labels):
    c = {"architectures": [architecture], "model_type": model_type, "attention_probs_dropout_prob": 0.0,
         "bos_token_id": BOS, "classifier_dropout": None, "eos_token_id": EOS, "hidden_act": "gelu",
         "hidden_dropout_prob": 0.0, "hidden_size": base.HIDDEN, "initializer_range": 0.02,
         "intermediate_size": base.INTER, "layer_norm_eps": 1e-05, "max_position_embeddings": POSITIONS,
         "num_attention_heads": base.HEADS, "num_hidden_layers": base.LAYERS, "pad_token_id": PAD,
         "position_embedding_type": "absolute", "torch_dtype": "float32",
         "transformers_version": TRANSFORMERS_VERSION, "type_vocab_size": 1, "use_cache": True,
         "vocab_size": base.VOCAB}
    if with_labels:  # transformers leaves out the default 2-label map only where nobody set one
        c.update(base.labels(num_labels))
    c["num_labels"] = num_labels  # for the model classes; export drops it from config.json
    return c


def write_hub_checkpoint(out_dir, cls_config, cls_state, seed):
    """roberta_cls's initial encoder as a RobertaForMaskedLM checkpoint with a pooler, as on the Hub."""
    folder = os.path.join(out_dir, "roberta_hub")
    os.makedirs(folder, exist_ok=True)
    g = torch.Generator().manual_seed(seed)
    normal = lambda *shape: torch.randn(*shape, generator=g) * 0.02  # pretrained-looking: no zero biases
    h, v = base.HIDDEN, base.VOCAB
    state = {k: v_ for k, v_ in cls_state.items() if k.startswith("roberta.")}
    state.update({"roberta.pooler.dense.weight": normal(h, h), "roberta.pooler.dense.bias": normal(h),
                  "lm_head.dense.weight": normal(h, h), "lm_head.dense.bias": normal(h),
                  "lm_head.layer_norm.weight": 1.0 + normal(h), "lm_head.layer_norm.bias": normal(h),
                  "lm_head.bias": normal(v)})  # lm_head.decoder.{weight,bias} are tied: not written
    base.save_safetensors(os.path.join(folder, "model.safetensors"), state)
    config = {k: v_ for k, v_ in cls_config.items() if k not in ("num_labels", "id2label", "label2id")}
    config["architectures"] = ["RobertaForMaskedLM"]
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"roberta_hub: {len(state)} tensors, {sum(t.numel() for t in state.values())} values")


def padding_invariance_check(model_class, config, state, batches):
    """A row's outputs at its real tokens do not depend on its padding (fp64)."""
    model = model_class(config).double()
    model.load_state_dict({k: t.double() for k, t in state.items()})
    model.eval()
    batch = {k: torch.tensor(t) for k, t in batches[0].items()}
    ids, mask = batch["input_ids"], batch["attention_mask"]
    example = ids[ids.ne(PAD).sum(1).argmin()]
    print(f"  position ids of {example.tolist()}:\n               {position_ids(example[None], PAD)[0].tolist()}")
    with torch.no_grad():
        hidden = model.roberta(ids, batch["token_type_ids"], mask)
        worst_right = worst_left = worst_left_arange = worst_logits = 0.0
        padded_rows = 0
        for r in range(ids.shape[0]):
            length = int(mask[r].sum())
            if length == ids.shape[1]:
                continue
            padded_rows += 1
            real = ids[r:r + 1, :length]
            alone = model.roberta(real, torch.zeros_like(real), torch.ones_like(real))
            worst_right = max(worst_right, float((hidden[r:r + 1, :length] - alone).abs().max()))
            row = {"input_ids": real, "token_type_ids": torch.zeros_like(real), "attention_mask": torch.ones_like(real)}
            one = {k: t[r:r + 1] for k, t in batch.items()}
            full = model.logits(one)
            short = model.logits(row)
            if full.dim() == 3:  # QA: per token
                full = full[:, :length]
            worst_logits = max(worst_logits, float((full - short).abs().max()))
            # The same row padded at the left: positions from ids keep the real tokens' positions.
            pad = ids.shape[1] - length
            left = torch.cat([torch.full((1, pad), PAD), real], dim=1)
            left_mask = torch.cat([torch.zeros(1, pad, dtype=torch.long), torch.ones_like(real)], dim=1)
            out = model.roberta(left, torch.zeros_like(left), left_mask)[:, pad:]
            worst_left = max(worst_left, float((out - alone).abs().max()))
            # Contrast: BERT's arange positions would move the real tokens.
            emb = model.roberta.embeddings
            x = emb.word_embeddings(left) + emb.token_type_embeddings(torch.zeros_like(left))
            x = emb.LayerNorm(x + emb.position_embeddings(torch.arange(left.shape[1])[None]))
            additive = (1.0 - left_mask[:, None, None, :].double()) * torch.finfo(torch.float64).min
            out = model.roberta.encoder(x, additive)[:, pad:]
            worst_left_arange = max(worst_left_arange, float((out - alone).abs().max()))
    print(f"  {padded_rows} right-padded rows of batch 0 vs the same rows unpadded, fp64: hidden states at the "
          f"real tokens differ by at most {worst_right:.1e}, head logits by {worst_logits:.1e}")
    print(f"  the same rows padded at the left: {worst_left:.1e} (with BERT's arange positions instead: "
          f"{worst_left_arange:.1e})")
    assert worst_right < 1e-12 and worst_logits < 1e-12 and worst_left < 1e-12 and worst_left_arange > 1e-3


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests",
                                                                 "fixtures", "reference_heads")
    torch.set_num_threads(1)
    runs = [("roberta_cls", RobertaForSequenceClassification,
             roberta_config("roberta", "RobertaForSequenceClassification", 3, True), "cls", 21),
            ("roberta_qa", RobertaForQuestionAnswering,
             roberta_config("roberta", "RobertaForQuestionAnswering", 2, False), "qa", 22),
            ("xlmr_cls", RobertaForSequenceClassification,
             roberta_config("xlm-roberta", "XLMRobertaForSequenceClassification", 2, True), "cls", 23)]
    states = {}
    for name, model_class, config, task, seed in runs:
        states[name] = base.export(out_dir, name, model_class, config, task, seed, NOTE, BATCH_OPTIONS)
    write_hub_checkpoint(out_dir, runs[0][2], states["roberta_cls"], 24)

    print("padding invariance (position ids from input ids):")
    for name, model_class, config, task, seed in runs[:2]:
        with open(os.path.join(out_dir, name, "batches.json")) as f:
            batches = json.load(f)["batches"]
        print(f" {name}:")
        padding_invariance_check(model_class, config, states[name], batches)


if __name__ == "__main__":
    main()
