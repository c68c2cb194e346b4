#!/usr/bin/python3
"""ModernBERT sequence-classification training in plain PyTorch (eager attention), the peer that
bench/encoder_vs_pytorch.sh measures shmtrain's ModernBERT against.

  /usr/bin/python3 tools/torch_modernbert.py --bench-one --preset base --threads 2 --batch 1 --seq 2048 --steps 3
  /usr/bin/python3 tools/torch_modernbert.py --bench-one --preset base --threads 2 --batch 32 --seq 128 \
      --lengths ../shared/reference/mrpc_train_lengths.txt --padding longest

The model is tools/make_modernbert_references.py's port of transformers' modeling_modernbert.py
(imported, not copied): the eager/sdpa path on padded batches, i.e. what Hugging Face runs without
FlashAttention. Pre-norm layers (attn_norm is Identity on layer 0), fused Wqkv without bias,
rotate_half rotary embeddings (theta 160000 on global layers, 10000 on local ones), additive masks
(finfo.min at padded keys and, on local layers, where |i - j| > local_attention // 2), GeGLU MLP
(Wi to 2 x intermediate, gelu(input) * gate, Wo), final_norm, ModernBertPredictionHead (dense, gelu,
norm) on the [CLS] token, classifier, cross-entropy. fp32, all dropouts 0, HF's initialisation.

--bench-one follows ../shared/reference/torch_bert.py's: each step draws its batch (token ids random
in the vocabulary from a fixed seed, right padding with pad_token_id, attention mask from the row
lengths), then forward, loss, backward, AdamW step (torch.optim.AdamW lr 1e-5, weight decay 0.01
except biases and LayerNorm weights, as HF Trainer groups them), zero_grad. Without --lengths every
row has --seq real tokens; with --lengths FILE (one real length per line, '#' lines skipped, capped
at --seq) step k (warm-up steps included) trains rows k*batch.. of the file, cycling; --padding
max_length pads every batch to --seq, longest to its longest row (DataCollatorWithPadding).
The last line printed is `RESULT {json}`: samples_per_s and tokens_per_s (real tokens, not padding)
over the timed steps, step_seconds_median, peak_rss_gib (ru_maxrss of this process), and the shape.
Needs Debian's python3-torch (/usr/bin/python3); set OPENBLAS_CORETYPE / OMP_WAIT_POLICY in the
environment as bench/encoder_vs_pytorch.sh does.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_modernbert_references as mb  # noqa: E402
import torch_classifier_bench as bench  # noqa: E402


def hf_config(layers, hidden, heads, inter, vocab, positions, specials):
    """A config.json in the legacy spelling of answerdotai/ModernBERT-base (transformers 4.48-4.5x), with
    the sequence-classification fields: 2 labels, cls pooling, every dropout 0."""
    cls, sep, pad, mask = specials
    return {"architectures": ["ModernBertForSequenceClassification"], "model_type": "modernbert",
            "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": cls, "classifier_activation": "gelu",
            "classifier_bias": False, "classifier_dropout": 0.0, "classifier_pooling": "cls", "cls_token_id": cls,
            "decoder_bias": True, "deterministic_flash_attn": False, "embedding_dropout": 0.0, "eos_token_id": sep,
            "global_attn_every_n_layers": 3, "global_rope_theta": 160000.0, "hidden_activation": "gelu",
            "hidden_size": hidden, "initializer_cutoff_factor": 2.0, "initializer_range": 0.02,
            "intermediate_size": inter, "local_attention": 128, "local_rope_theta": 10000.0,
            "max_position_embeddings": positions, "mlp_bias": False, "mlp_dropout": 0.0, "norm_bias": False,
            "norm_eps": 1e-05, "num_attention_heads": heads, "num_hidden_layers": layers, "pad_token_id": pad,
            "sep_token_id": sep, "mask_token_id": mask, "torch_dtype": "float32", "vocab_size": vocab,
            "id2label": {"0": "LABEL_0", "1": "LABEL_1"}, "label2id": {"LABEL_0": 0, "LABEL_1": 1}}


PRESETS = {
    # ModernBERT-base's shapes; [CLS] 50281, [SEP] 50282, [PAD] 50283, [MASK] 50284 as its tokenizer has them.
    # (The hub config pools with "mean"; this benchmark pools the [CLS] token, HF's default.)
    "base": hf_config(22, 768, 12, 1152, 50368, 8192, (50281, 50282, 50283, 50284)),
    "tiny": hf_config(2, 64, 2, 96, 1000, 512, (993, 994, 995, 996)),
}


def main():
    a = bench.parse_args(__doc__.split("\n\n")[0], PRESETS)
    if a is None:
        return
    torch.set_num_threads(a.threads)
    config = PRESETS[a.preset]
    torch.manual_seed(0)
    model = mb.ModernBertForSequenceClassification(config)
    mb.init_weights(model)
    cls = config["cls_token_id"]  # words: the ids below the specials
    bench.bench_one(a, model, mb.base.adamw(model, lr=1e-5), (0, cls), cls, config["pad_token_id"],
                    config["max_position_embeddings"])


if __name__ == "__main__":
    main()
