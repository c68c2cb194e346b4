#!/usr/bin/python3
"""PyTorch reference fixtures for shmtrain's ELECTRA models.

Usage: /usr/bin/python3 tools/make_electra_references.py [OUT_DIR]   (default: tests/fixtures/reference_heads)

Needs Debian's python3-torch (/usr/bin/python3); CI does not run it: its output is committed.
Reuses tools/make_head_references.py (BERT encoder, init, AdamW, batches, safetensors writer,
training run, export) and tools/make_token_classification_references.py (token loss, NER labels,
token batches, the 2-worker halves check). The models are plain torch with Hugging Face's module
tree, parameter names and semantics (transformers 4.3x/4.4x modeling_electra.py):

  ElectraEmbeddings   word (padding_idx pad), position (0..S-1) and token type embeddings, all
                      embedding_size wide, LayerNorm(embedding_size), dropout
  ElectraModel        embeddings -> embeddings_project (Linear embedding_size -> hidden_size, only
                      where they differ) -> BERT's encoder (electra.encoder.layer.N.*; additive mask
                      (1 - mask) * finfo.min, erf GELU); no pooler

  electra_cls   ElectraForSequenceClassification, 3 labels: classifier = ElectraClassificationHead:
                h[:, 0] -> dropout -> dense (H -> H) -> GELU -> dropout -> out_proj; cross-entropy.
                Sentence-pair batches as make_head_references.py makes them ([CLS] A [SEP] B [SEP],
                token types 0/1, pad 0, [CLS] 101, [SEP] 102)
  electra_tok   ElectraForTokenClassification, 5 labels: dropout -> classifier (H -> 5) on every
                token; CrossEntropy over the batch's labelled tokens (ignore_index -100); batches
                as make_token_classification_references.py makes them (labelled_per_half)
  electra_hub   electra_cls's initial encoder (electra.* tensors, embeddings_project included) as
                an ElectraForPreTraining (discriminator) checkpoint: plus random
                discriminator_predictions.dense.* (H -> H) and .dense_prediction.* (H -> 1), no
                classifier.*; config.json and model.safetensors only (for loader tests: unused and
                newly initialised keys)

Sizes: vocab 128, embedding_size 16, hidden 32 (so embeddings_project exists), 2 layers, 2 heads,
intermediate 64, 40 positions, 2 token types, LayerNorm eps 1e-12, pad 0, dropout 0. Same recipe as
make_head_references.py: 20 fixed batches of 4 x 24, 20 AdamW steps (lr 1e-3, weight decay 0.01
except biases and LayerNorm modules, constant LR, clip 1.0), fp32 and fp64 runs. One thread, fixed
seeds.
"""
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_head_references as base  # noqa: E402
import make_token_classification_references as tokcls  # noqa: E402

EMBEDDING = 16
TRANSFORMERS_VERSION = "4.41.2"  # what config.json says wrote it; the semantics are the same in 4.3x/4.4x


class ElectraEmbeddings(base.BertEmbeddings):  # BERT's, embedding_size wide
    def __init__(self, c):
        super().__init__(dict(c, hidden_size=c["embedding_size"]))


class ElectraModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embeddings = ElectraEmbeddings(c)
        if c["embedding_size"] != c["hidden_size"]:
            self.embeddings_project = nn.Linear(c["embedding_size"], c["hidden_size"])
        self.encoder = base.BertEncoder(c)

    def forward(self, ids, types, mask):
        x = self.embeddings(ids, types)
        if hasattr(self, "embeddings_project"):
            x = self.embeddings_project(x)
        additive = (1.0 - mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        return self.encoder(x, additive)


class ElectraClassificationHead(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["hidden_size"])
        self.dropout = nn.Dropout(tokcls.classifier_dropout(c))
        self.out_proj = nn.Linear(c["hidden_size"], c["num_labels"])

    def forward(self, hidden):
        x = self.dropout(hidden[:, 0, :])  # [CLS]
        x = self.dropout(F.gelu(self.dense(x)))  # get_activation("gelu"): the erf form
        return self.out_proj(x)


class ElectraForSequenceClassification(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.electra = ElectraModel(c)
        self.classifier = ElectraClassificationHead(c)

    def logits(self, b):
        return self.classifier(self.electra(b["input_ids"], b["token_type_ids"], b["attention_mask"]))

    def forward(self, b):  # num_labels > 1 and integer labels: single_label_classification
        return F.cross_entropy(self.logits(b), b["labels"])


class ElectraForTokenClassification(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.electra = ElectraModel(c)
        self.dropout = nn.Dropout(tokcls.classifier_dropout(c))
        self.classifier = nn.Linear(c["hidden_size"], c["num_labels"])

    def logits(self, b):
        return self.classifier(self.dropout(self.electra(b["input_ids"], b["token_type_ids"], b["attention_mask"])))

    def forward(self, b):
        return tokcls.token_loss(self.logits(b), b["labels"])


def electra_config(architecture, num_labels, with_labels=True):
    c = {"architectures": [architecture], "model_type": "electra", "attention_probs_dropout_prob": 0.0,
         "classifier_dropout": None, "embedding_size": EMBEDDING, "hidden_act": "gelu", "hidden_dropout_prob": 0.0,
         "hidden_size": base.HIDDEN, "initializer_range": 0.02, "intermediate_size": base.INTER,
         "layer_norm_eps": 1e-12, "max_position_embeddings": base.POSITIONS, "num_attention_heads": base.HEADS,
         "num_hidden_layers": base.LAYERS, "pad_token_id": base.PAD, "position_embedding_type": "absolute",
         "summary_activation": "gelu", "summary_last_dropout": 0.1, "summary_type": "first",
         "summary_use_proj": True, "torch_dtype": "float32", "transformers_version": TRANSFORMERS_VERSION,
         "type_vocab_size": 2, "use_cache": True, "vocab_size": base.VOCAB}
    if with_labels:
        c.update(base.labels(num_labels))
    c["num_labels"] = num_labels  # for the model classes; export drops it from config.json
    return c


def write_hub_checkpoint(out_dir, cls_config, cls_state, seed):
    """electra_cls's initial encoder as an ElectraForPreTraining (discriminator) checkpoint."""
    folder = os.path.join(out_dir, "electra_hub")
    os.makedirs(folder, exist_ok=True)
    g = torch.Generator().manual_seed(seed)
    normal = lambda *shape: torch.randn(*shape, generator=g) * 0.02  # pretrained-looking: no zero biases
    h = base.HIDDEN
    state = {k: v for k, v in cls_state.items() if k.startswith("electra.")}
    assert "electra.embeddings_project.weight" in state and not any(k.startswith("classifier.") for k in state)
    state.update({"discriminator_predictions.dense.weight": normal(h, h),
                  "discriminator_predictions.dense.bias": normal(h),
                  "discriminator_predictions.dense_prediction.weight": normal(1, h),
                  "discriminator_predictions.dense_prediction.bias": normal(1)})
    base.save_safetensors(os.path.join(folder, "model.safetensors"), state)
    config = {k: v for k, v in cls_config.items() if k not in ("num_labels", "id2label", "label2id")}
    config["architectures"] = ["ElectraForPreTraining"]
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"electra_hub: {len(state)} tensors, {sum(t.numel() for t in state.values())} values")


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests",
                                                                 "fixtures", "reference_heads")
    torch.set_num_threads(1)
    cls_config = electra_config("ElectraForSequenceClassification", 3)
    cls_note = "pad 0, [CLS] 101, [SEP] 102; rows [CLS] A [SEP] B [SEP], token types 0/1"
    cls_state = base.export(out_dir, "electra_cls", ElectraForSequenceClassification, cls_config, "cls", 51,
                            cls_note)
    tok_config = tokcls.with_ner_labels(electra_config("ElectraForTokenClassification", tokcls.NUM_LABELS))
    tok_note = ("pad 0, [CLS] 101, [SEP] 102; rows [CLS] words [SEP]; token types all 0; labels per token, -100 "
                "on specials, padding and a word's non-first tokens; labelled_per_half[i] = labelled tokens in "
                "rows 0-1 and rows 2-3 of batches[i]")
    tok_state = base.export(out_dir, "electra_tok", ElectraForTokenClassification, tok_config, "tok", 52, tok_note,
                            batch_maker=tokcls.token_batch_maker(base.CLS, base.SEP, base.PAD,
                                                                 tokcls.bert_word_ids()))
    write_hub_checkpoint(out_dir, cls_config, cls_state, 53)
    print("2-worker halves:")
    tokcls.half_check("electra_tok", ElectraForTokenClassification, tok_config, tok_state,
                      os.path.join(out_dir, "electra_tok"))
    for name in ("electra_cls", "electra_tok"):
        with open(os.path.join(out_dir, name, "reference.json")) as f:
            r = json.load(f)
        print(f"{name}: step 0 loss fp32 {r['losses'][0]:.9f} fp64 {r['losses_fp64_run'][0]:.12f}; step 19 fp32 "
              f"{r['losses'][-1]:.9f} fp64 {r['losses_fp64_run'][-1]:.12f}; {len(r['step0_grad_norms'])} tensors")


if __name__ == "__main__":
    main()
