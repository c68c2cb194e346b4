#!/usr/bin/python3
"""Masked-LM training (BertForMaskedLM, XLMRobertaForMaskedLM) in plain PyTorch (eager attention), the
peer that shmtrain's MLM training (examples/pytorch/language-modeling/run_mlm.py's recipe) is
benchmarked against.

  /usr/bin/python3 tools/torch_mlm.py --bench-one --preset bert-base --threads 2 --batch 8 --seq 128
  /usr/bin/python3 tools/torch_mlm.py --bench-one --preset xlmr-base --threads 2 --batch 8 --seq 128 --bf16
  /usr/bin/python3 tools/torch_mlm.py --bench-one --preset tiny --threads 2 --batch 4 --seq 64 --steps 2

The models are tools/make_mlm_mc_references.py's ports of transformers' modeling_bert.py and
modeling_roberta.py (imported, not copied; their encoders are tools/make_head_references.py's
BertModel without pooler and tools/make_roberta_references.py's RobertaModel without pooler, whose
position ids start at padding_idx + 1): post-LN layers, erf GELU, additive finfo.min mask, then
cls.predictions.transform (lm_head for RoBERTa) = dense (H -> H) -> GELU -> LayerNorm, and the
decoder x @ word_embeddings.weight^T + bias (tied to the input embedding matrix) over EVERY token,
as HF computes it (B*T x vocab logits), then CrossEntropyLoss(ignore_index=-100) over
logits.view(-1, V), labels.view(-1). fp32 (or --bf16: forward and loss under
torch.autocast("cpu", dtype=torch.bfloat16), weights and optimizer fp32, LayerNorm inputs cast to
fp32 as torch 1.13's CPU layer_norm needs in the head), all dropouts 0, HF's initialisation
(normal 0.02, zero biases, LayerNorm ones, padding rows zero). Presets: bert-base
(bert-base-uncased: vocab 30522, 12 x 768, 12 heads, intermediate 3072, 512 positions, 2 token
types, eps 1e-12), xlmr-base (FacebookAI/xlm-roberta-base: vocab 250002, 514 positions, 1 token
type, eps 1e-5, pad 1) and tiny (BERT, vocab 1000, 2 x 64, a smoke run of seconds).

--bench-one: each step draws its batch as run_mlm's group_texts blocks and
DataCollatorForLanguageModeling (mlm_probability 0.15) make it: --batch rows of --seq tokens, all
real (no padding), [CLS] (<s>) first, [SEP] (</s>) last, ordinary word ids random in between from
a fixed seed, attention mask all ones, token types 0; each word position is chosen with
probability 0.15 (label = its id, every other label -100), a chosen token becomes [MASK] with
probability 0.8, a random id of the whole vocabulary with 0.1, else stays. Then forward, loss,
backward, AdamW step (torch.optim.AdamW lr 1e-5, weight decay 0.01 except biases and LayerNorm
weights, as HF Trainer groups them), zero_grad(set_to_none=True). The batch making is timed with
the step (the collator runs in the training process). --warmup steps untimed, then --steps timed.
The last line printed is `RESULT {json}`: samples_per_s and tokens_per_s over the timed steps,
step_seconds_median, peak_rss_gib (ru_maxrss of this process), loss (the last step's),
labelled_per_step (mean labelled tokens per timed step), parameters (the tied matrix once) and the
shape. Needs Debian's python3-torch (/usr/bin/python3).
"""
import contextlib
import json
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_head_references as base  # noqa: E402
import make_mlm_mc_references as mlm  # noqa: E402
import torch_classifier_bench as bench  # noqa: E402

IGNORE = -100
MLM_PROBABILITY = 0.15


def config(layers, hidden, heads, inter, vocab, positions, types, eps, pad):
    return {"num_hidden_layers": layers, "hidden_size": hidden, "num_attention_heads": heads,
            "intermediate_size": inter, "vocab_size": vocab, "max_position_embeddings": positions,
            "type_vocab_size": types, "layer_norm_eps": eps, "pad_token_id": pad, "initializer_range": 0.02,
            "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0}


PRESETS = {  # (model class, config, specials, ordinary words [low, high), usable positions)
    # bert-base-uncased: [PAD] 0, [unused*] 1-99 and 104-998, [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103.
    "bert-base": (mlm.BertForMaskedLM, config(12, 768, 12, 3072, 30522, 512, 2, 1e-12, 0),
                  {"cls": 101, "sep": 102, "mask": 103}, (999, 30522), 512),
    # xlm-roberta-base: <s> 0, <pad> 1, </s> 2, <unk> 3, words 4..250000, <mask> 250001; positions from 2.
    "xlmr-base": (mlm.RobertaForMaskedLM, config(12, 768, 12, 3072, 250002, 514, 1, 1e-5, 1),
                  {"cls": 0, "sep": 2, "mask": 250001}, (4, 250001), 512),
    "tiny": (mlm.BertForMaskedLM, config(2, 64, 2, 128, 1000, 512, 2, 1e-12, 0),
             {"cls": 101, "sep": 102, "mask": 103}, (104, 1000), 512),
}


def layer_norm_in_fp32(model):
    """--bf16 on torch < 2: CPU layer_norm wants input and weight of one dtype, and the head's LayerNorm
    gets gelu(dense(x)) in bf16 (the encoder's get fp32 sums with the residual); newer torch takes the
    mixed dtypes. Cast the input to the weight's fp32, as autocast's fp32 ops do."""
    for m in model.modules():
        if isinstance(m, torch.nn.LayerNorm):
            m.register_forward_pre_hook(lambda mod, args: tuple(x.to(mod.weight.dtype) for x in args))


def make_batch(generator, b, seq, specials, words, vocab):
    """A batch of full group_texts blocks, masked as DataCollatorForLanguageModeling.torch_mask_tokens."""
    ids = torch.randint(words[0], words[1], (b, seq), generator=generator)
    ids[:, 0], ids[:, -1] = specials["cls"], specials["sep"]
    labels = ids.clone()
    probability = torch.full((b, seq), MLM_PROBABILITY)
    probability[:, 0] = probability[:, -1] = 0.0  # special_tokens_mask
    chosen = torch.bernoulli(probability, generator=generator).bool()
    labels[~chosen] = IGNORE
    replaced = torch.bernoulli(torch.full((b, seq), 0.8), generator=generator).bool() & chosen
    ids[replaced] = specials["mask"]
    randomised = torch.bernoulli(torch.full((b, seq), 0.5), generator=generator).bool() & chosen & ~replaced
    random_words = torch.randint(vocab, (b, seq), generator=generator)  # len(tokenizer): the whole vocabulary
    ids[randomised] = random_words[randomised]
    return {"input_ids": ids, "token_type_ids": torch.zeros_like(ids), "attention_mask": torch.ones_like(ids),
            "labels": labels}


def main():
    a = bench.parse_args(__doc__.split("\n\n")[0], PRESETS, default_preset="bert-base", default_batch=8,
                         lengths=False)
    if a is None:
        return
    torch.set_num_threads(a.threads)
    model_class, c, specials, words, usable = PRESETS[a.preset]
    if a.seq < 3:
        raise SystemExit("--seq must be >= 3 ([CLS], a word, [SEP])")
    if a.seq > usable:
        raise SystemExit(f"--seq {a.seq} > the {usable} usable positions of {a.preset}")
    torch.manual_seed(0)
    model = model_class(c)
    model.apply(base.init_weights)
    model.train()  # the dropout probabilities are 0
    if a.bf16:
        layer_norm_in_fp32(model)
    optimizer = base.adamw(model, lr=1e-5)
    generator = torch.Generator().manual_seed(100)

    def step():
        batch = make_batch(generator, a.batch, a.seq, specials, words, c["vocab_size"])
        with torch.autocast("cpu", dtype=torch.bfloat16) if a.bf16 else contextlib.nullcontext():
            loss = model(batch)  # CE(logits.view(-1, V), labels.view(-1)), ignore_index -100
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return float(loss), int((batch["labels"] != IGNORE).sum())

    times, results = bench.timed_steps(step, a.warmup, a.steps)
    loss = results[-1][0]
    labelled = sum(n for _, n in results)
    total = sum(times)
    print("RESULT " + json.dumps({
        "samples_per_s": a.batch * a.steps / total, "tokens_per_s": a.batch * a.seq * a.steps / total,
        "step_seconds_median": statistics.median(times), "peak_rss_gib": round(bench.peak_rss_gib(), 3),
        "threads": a.threads, "preset": a.preset, "batch": a.batch, "seq": a.seq, "steps": a.steps,
        "warmup": a.warmup, "bf16": a.bf16, "loss": loss, "labelled_per_step": labelled / a.steps,
        "parameters": sum(p.numel() for p in model.parameters()), "torch": torch.__version__}), flush=True)


if __name__ == "__main__":
    main()
