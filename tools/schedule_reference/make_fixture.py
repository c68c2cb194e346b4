#!/usr/bin/python3
"""Learning rates of Hugging Face's schedules, as Trainer's optimizer sees them, for
tests/optim/schedule_reference_test.cpp.

Usage: /usr/bin/python3 tools/schedule_reference/make_fixture.py [OUT]
       (default: tests/fixtures/lr_schedules.json)

Needs Debian's python3-torch; transformers is not needed. The lr lambdas below restate those
of transformers/src/transformers/optimization.py (main branch, 2025: the
_get_*_lr_lambda functions and the defaults of the get_*_schedule functions that
get_scheduler calls), with their order of operations, since the test expects the same doubles.
Each is applied as Trainer applies it: torch.optim.lr_scheduler.LambdaLR over an optimizer
whose lr is the learning rate; the lr of optimizer step k (0-based) is read before that step,
and the lrs run past num_training_steps to pin what the formulas do there.

Each case of the output: lr_scheduler_type, lr_scheduler_kwargs (what --lr_scheduler_kwargs
passes), learning_rate, total_steps, warmup_steps, lrs (total_steps + 3 values).
"""
import json
import math
import os
import sys
from functools import partial

import torch

EXTRA_STEPS = 3


def warmup(step, num_warmup_steps):
    return float(step) / float(max(1, num_warmup_steps))


def constant_lambda(_step):
    return 1


def constant_with_warmup_lambda(step, *, num_warmup_steps):
    if step < num_warmup_steps:
        return float(step) / float(max(1.0, num_warmup_steps))
    return 1.0


def linear_lambda(step, *, num_warmup_steps, num_training_steps):
    if step < num_warmup_steps:
        return warmup(step, num_warmup_steps)
    return max(0.0, float(num_training_steps - step) / float(max(1, num_training_steps - num_warmup_steps)))


# get_cosine_schedule_with_warmup (num_cycles 0.5) and get_cosine_with_min_lr_schedule_with_warmup
# share this lambda; the former leaves min_lr_rate at 0.0.
def cosine_lambda(step, *, num_warmup_steps, num_training_steps, num_cycles, min_lr_rate=0.0):
    if step < num_warmup_steps:
        return warmup(step, num_warmup_steps)
    progress = float(step - num_warmup_steps) / float(max(1, num_training_steps - num_warmup_steps))
    factor = 0.5 * (1.0 + math.cos(math.pi * float(num_cycles) * 2.0 * progress))
    factor = factor * (1 - min_lr_rate) + min_lr_rate
    return max(0, factor)


def cosine_with_restarts_lambda(step, *, num_warmup_steps, num_training_steps, num_cycles):
    if step < num_warmup_steps:
        return warmup(step, num_warmup_steps)
    progress = float(step - num_warmup_steps) / float(max(1, num_training_steps - num_warmup_steps))
    if progress >= 1.0:
        return 0.0
    return max(0.0, 0.5 * (1.0 + math.cos(math.pi * ((float(num_cycles) * progress) % 1.0))))


def polynomial_lambda(step, *, num_warmup_steps, num_training_steps, lr_end, power, lr_init):
    if step < num_warmup_steps:
        return warmup(step, num_warmup_steps)
    if step > num_training_steps:
        return lr_end / lr_init
    lr_range = lr_init - lr_end
    decay_steps = num_training_steps - num_warmup_steps
    pct_remaining = 1 - (step - num_warmup_steps) / decay_steps
    decay = lr_range * pct_remaining**power + lr_end
    return decay / lr_init


def inverse_sqrt_lambda(step, *, num_warmup_steps, timescale):
    if step < num_warmup_steps:
        return warmup(step, num_warmup_steps)
    shift = timescale - num_warmup_steps
    return 1.0 / math.sqrt((step + shift) / timescale)


def make_lambda(name, lr, total, warmup_steps, kwargs):
    """The lambda get_scheduler(name, ...) builds, with the defaults of its get_*_schedule."""
    steps = dict(num_warmup_steps=warmup_steps, num_training_steps=total)
    if name == "constant":
        return constant_lambda
    if name == "constant_with_warmup":
        return partial(constant_with_warmup_lambda, num_warmup_steps=warmup_steps)
    if name == "linear":
        return partial(linear_lambda, **steps)
    if name == "cosine":
        return partial(cosine_lambda, **steps, num_cycles=kwargs.get("num_cycles", 0.5))
    if name == "cosine_with_restarts":
        return partial(cosine_with_restarts_lambda, **steps, num_cycles=kwargs.get("num_cycles", 1))
    if name == "polynomial":
        lr_end = kwargs.get("lr_end", 1e-7)
        assert lr > lr_end
        return partial(polynomial_lambda, **steps, lr_end=lr_end, power=kwargs.get("power", 1.0), lr_init=lr)
    if name == "inverse_sqrt":
        # get_scheduler passes no kwargs here (timescale is always its default); a timescale in
        # a case stands for get_inverse_sqrt_schedule(..., timescale=T), which shmtrain honours.
        timescale = kwargs.get("timescale")
        if timescale is None:
            timescale = warmup_steps or 10_000
        return partial(inverse_sqrt_lambda, num_warmup_steps=warmup_steps, timescale=timescale)
    if name == "cosine_with_min_lr":
        min_lr, min_lr_rate = kwargs.get("min_lr"), kwargs.get("min_lr_rate")
        assert (min_lr is None) != (min_lr_rate is None)
        if min_lr is not None:
            min_lr_rate = min_lr / lr
        return partial(cosine_lambda, **steps, num_cycles=kwargs.get("num_cycles", 0.5), min_lr_rate=min_lr_rate)
    raise ValueError(name)


def lrs_as_trainer_sees_them(name, lr, total, warmup_steps, kwargs):
    param = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.SGD([param], lr=lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, make_lambda(name, lr, total, warmup_steps, kwargs))
    lrs = []
    for _ in range(total + EXTRA_STEPS):
        lrs.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    return lrs


# (lr_scheduler_type, lr_scheduler_kwargs, learning_rate, total_steps, warmup_steps)
CASES = [
    ("linear", {}, 5e-5, 10, 2),
    ("linear", {}, 3e-4, 7, 0),
    ("constant", {}, 5e-5, 6, 3),
    ("constant_with_warmup", {}, 5e-5, 8, 3),
    ("cosine", {}, 5e-5, 10, 3),
    ("cosine", {"num_cycles": 1.5}, 2e-5, 12, 2),
    ("cosine_with_restarts", {}, 5e-5, 20, 4),
    ("cosine_with_restarts", {"num_cycles": 3}, 1e-4, 21, 3),
    ("polynomial", {}, 5e-5, 10, 2),
    ("polynomial", {"lr_end": 1e-5, "power": 2.0}, 5e-5, 11, 3),
    ("polynomial", {"power": 0.5}, 3e-4, 9, 0),
    ("inverse_sqrt", {}, 5e-5, 15, 4),
    ("inverse_sqrt", {}, 5e-5, 12, 0),
    ("inverse_sqrt", {"timescale": 7}, 1e-4, 14, 3),
    ("cosine_with_min_lr", {"min_lr_rate": 0.1}, 5e-5, 10, 2),
    ("cosine_with_min_lr", {"min_lr": 1e-5, "num_cycles": 1}, 4e-5, 13, 3),
]


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "tests", "fixtures", "lr_schedules.json")
    cases = []
    for name, kwargs, lr, total, warmup_steps in CASES:
        cases.append({
            "lr_scheduler_type": name,
            "lr_scheduler_kwargs": kwargs,
            "learning_rate": lr,
            "total_steps": total,
            "warmup_steps": warmup_steps,
            "lrs": lrs_as_trainer_sees_them(name, lr, total, warmup_steps, kwargs),
        })
    with open(out, "w") as f:
        json.dump({"torch": torch.__version__, "cases": cases}, f, indent=1)
        f.write("\n")
    print(f"wrote {len(cases)} cases to {out}")


if __name__ == "__main__":
    main()
