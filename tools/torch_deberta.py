#!/usr/bin/python3
"""DeBERTa-v3 sequence-classification training in plain PyTorch (eager attention), the peer that
shmtrain's DeBERTa is benchmarked against.

  /usr/bin/python3 tools/torch_deberta.py --bench-one --preset base --threads 2 --batch 32 --seq 128 \
      --lengths ../shared/reference/mrpc_train_lengths.txt --padding longest
  /usr/bin/python3 tools/torch_deberta.py --bench-one --preset tiny --threads 2 --batch 4 --seq 64 --steps 2

The model is tools/make_deberta_references.py's port of transformers' modeling_deberta_v2.py
(imported, not copied), what Hugging Face runs on CPU: post-LN BERT layers whose attention adds
the disentangled content-to-position and position-to-content terms (log-bucketed relative
positions, position_buckets 256, share_att_key: the layer's query_proj/key_proj applied to the
LayerNorm'd rel_embeddings), scale 1/sqrt(3 * head_dim), the 2-D mask (mask_i * mask_j,
finfo.min, softmax), word embeddings only (no absolute positions, no token types) times the mask,
ContextPooler (token 0 -> dense -> GELU), classifier, cross-entropy. fp32 (or --bf16: forward and
loss under torch.autocast("cpu", dtype=torch.bfloat16), weights and optimizer fp32), all dropouts
0, HF's initialisation. Preset base has microsoft/deberta-v3-base's shapes (vocab 128100, 12 x 768,
12 heads, intermediate 3072, 512 positions) and 2 labels; tiny is a small config for smoke runs.

--bench-one follows ../shared/reference/torch_bert.py's: each step draws its batch (token ids random
among the words from a fixed seed, [CLS] first, right padding with pad_token_id 0, attention mask
from the row lengths), then forward, loss, backward, AdamW step (torch.optim.AdamW lr 1e-5, weight
decay 0.01 except biases and LayerNorm weights, as HF Trainer groups them), zero_grad. Without
--lengths every row has --seq real tokens; with --lengths FILE (one real length per line, '#'
lines skipped, capped at --seq) step k (warm-up steps included) trains rows k*batch.. of the file,
cycling; --padding max_length pads every batch to --seq, longest to its longest row
(DataCollatorWithPadding). The last line printed is `RESULT {json}`: samples_per_s and tokens_per_s
(real tokens, not padding) over the timed steps, step_seconds_median, peak_rss_gib (ru_maxrss of
this process), and the shape. Needs Debian's python3-torch (/usr/bin/python3).
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_deberta_references as deb  # noqa: E402
import torch_classifier_bench as bench  # noqa: E402

CLS, PAD = deb.CLS, deb.PAD


def hf_config(layers, hidden, heads, inter, vocab, positions, buckets):
    """A config.json as microsoft/deberta-v3-base's, with the sequence-classification fields: 2 labels,
    every dropout 0."""
    return {"architectures": ["DebertaV2ForSequenceClassification"], "model_type": "deberta-v2",
            "attention_probs_dropout_prob": 0.0, "hidden_act": "gelu", "hidden_dropout_prob": 0.0,
            "hidden_size": hidden, "initializer_range": 0.02, "intermediate_size": inter, "layer_norm_eps": 1e-7,
            "max_position_embeddings": positions, "max_relative_positions": -1, "norm_rel_ebd": "layer_norm",
            "num_attention_heads": heads, "num_hidden_layers": layers, "pad_token_id": PAD, "pooler_dropout": 0,
            "pooler_hidden_act": "gelu", "pooler_hidden_size": hidden, "pos_att_type": "p2c|c2p",
            "position_biased_input": False, "position_buckets": buckets, "relative_attention": True,
            "share_att_key": True, "torch_dtype": "float32", "type_vocab_size": 0, "vocab_size": vocab,
            "id2label": {"0": "LABEL_0", "1": "LABEL_1"}, "label2id": {"LABEL_0": 0, "LABEL_1": 1}}


PRESETS = {
    # microsoft/deberta-v3-base: [PAD] 0, [CLS] 1, [SEP] 2, [UNK] 3, [MASK] 128000; words 4..127999.
    "base": (hf_config(12, 768, 12, 3072, 128100, 512, 256), 128000),
    "tiny": (hf_config(2, 64, 2, 96, 1000, 512, 32), 1000),
}


def main():
    a = bench.parse_args(__doc__.split("\n\n")[0], PRESETS)
    if a is None:
        return
    torch.set_num_threads(a.threads)
    config, words_end = PRESETS[a.preset]
    torch.manual_seed(0)
    model = deb.DebertaV2ForSequenceClassification(config)
    model.apply(deb.base.init_weights)
    bench.bench_one(a, model, deb.base.adamw(model, lr=1e-5), (deb.FIRST_WORD, words_end), CLS, PAD,
                    config["max_position_embeddings"])


if __name__ == "__main__":
    main()
