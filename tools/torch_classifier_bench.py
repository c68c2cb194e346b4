#!/usr/bin/python3
"""The training benchmark loop of tools/torch_modernbert.py and tools/torch_deberta.py (PyTorch eager
peers of bench/encoder_vs_pytorch.sh): the command line, the batches, the timed steps and the
`RESULT {json}` line, for any sequence-classification model whose forward takes a batch dict and
returns the loss.

Each step draws its batch (token ids random in [words_low, words_high) from a fixed seed, the first
token [CLS], right padding with the pad id, attention mask from the row lengths), then forward, loss,
backward, AdamW step (lr 1e-5), zero_grad. Without --lengths every row has --seq real tokens; with
--lengths FILE (one real length per line, '#' lines skipped, capped at --seq) step k (warm-up steps
included) trains rows k*batch.. of the file, cycling; --padding max_length pads every batch to --seq,
longest to its longest row (DataCollatorWithPadding). --bf16 runs forward and loss under
torch.autocast(cpu, bfloat16). RESULT has samples_per_s and tokens_per_s (real tokens, not padding)
over the timed steps, step_seconds_median, peak_rss_gib (ru_maxrss of this process) and the shape.
"""
import argparse
import contextlib
import json
import resource
import statistics
import time

import torch


def read_lengths(path, seq):
    lengths = []
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#"):
            n = int(line)
            if n < 1:
                raise ValueError(f"{path}: length {n} < 1")
            lengths.append(min(n, seq))
    if not lengths:
        raise ValueError(f"{path}: no lengths")
    return lengths


def parse_args(description, presets, default_preset="base", default_batch=32, lengths=True):
    """The peers' command line; `lengths` False: no --lengths/--padding (every row full, as run_mlm's blocks)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--bench-one", action="store_true", help="one training benchmark; prints RESULT {json}")
    ap.add_argument("--preset", default=default_preset, choices=presets)
    ap.add_argument("--nproc", type=int, default=1, choices=[1], help="processes (only 1)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=default_batch)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--steps", type=int, default=5, help="timed steps")
    ap.add_argument("--warmup", type=int, default=2, help="untimed steps first")
    if lengths:
        ap.add_argument("--lengths", metavar="FILE", help="one real sequence length per line (e.g. "
                        "mrpc_train_lengths.txt); rows beyond --seq are truncated to it")
        ap.add_argument("--padding", default="max_length", choices=["max_length", "longest"],
                        help="pad every batch to --seq or to its longest row (dynamic padding)")
    ap.add_argument("--bf16", action="store_true", help="forward and loss under torch.autocast(cpu, bfloat16)")
    a = ap.parse_args()
    if a.batch < 1 or a.seq < 1 or a.steps < 1 or a.warmup < 0 or a.threads < 1:
        ap.error("--batch, --seq, --steps and --threads must be >= 1, --warmup >= 0")
    if not a.bench_one:
        ap.print_help()
        return None
    return a


def timed_steps(step, warmup, steps):
    """Runs step() `warmup` times untimed, then `steps` times timed: (seconds of each, what each returned)."""
    for _ in range(warmup):
        step()
    times, results = [], []
    for _ in range(steps):
        t = time.perf_counter()
        results.append(step())
        times.append(time.perf_counter() - t)
    return times, results


def peak_rss_gib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20  # KiB on Linux


def bench_one(a, model, optimizer, words, cls, pad, max_positions):
    """Times a.steps training steps of `model` after a.warmup; words = (low, high) of the random ids."""
    if a.seq > max_positions:
        raise SystemExit(f"--seq {a.seq} > max_position_embeddings {max_positions}")
    model.train()  # the presets' dropout probabilities are 0
    b, seq = a.batch, a.seq
    lengths = read_lengths(a.lengths, seq) if a.lengths else None
    generator = torch.Generator().manual_seed(100)
    next_row = [0]

    def make_batch():
        if lengths is None:
            n = [seq] * b
        else:
            n = [lengths[(next_row[0] + i) % len(lengths)] for i in range(b)]
            next_row[0] += b
        width = seq if a.padding == "max_length" else max(n)
        ids = torch.randint(words[0], words[1], (b, width), generator=generator)
        ids[:, 0] = cls
        mask = torch.zeros(b, width, dtype=torch.long)
        for i, length in enumerate(n):
            mask[i, :length] = 1
            ids[i, length:] = pad
        labels = torch.randint(0, 2, (b,), generator=generator)
        return {"input_ids": ids, "token_type_ids": torch.zeros_like(ids), "attention_mask": mask,
                "labels": labels}, sum(n)

    def step():
        batch, real = make_batch()
        with torch.autocast("cpu", dtype=torch.bfloat16) if a.bf16 else contextlib.nullcontext():
            loss = model(batch)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return float(loss), real

    times, results = timed_steps(step, a.warmup, a.steps)
    loss = results[-1][0]
    tokens = sum(real for _, real in results)
    total = sum(times)
    print("RESULT " + json.dumps({
        "samples_per_s": b * a.steps / total, "tokens_per_s": tokens / total,
        "step_seconds_median": statistics.median(times), "peak_rss_gib": round(peak_rss_gib(), 3),
        "threads": a.threads, "preset": a.preset, "batch": b, "seq": seq, "padding": a.padding,
        "lengths": a.lengths, "steps": a.steps, "warmup": a.warmup, "bf16": a.bf16, "loss": loss,
        "parameters": sum(p.numel() for p in model.parameters()), "torch": torch.__version__}), flush=True)
