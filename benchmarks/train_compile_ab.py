"""A/B: Eq. 2 training steps (batch gathering, forward, backward, Adam) eager vs `TrainConfig.compile`.

    python benchmarks/train_compile_ab.py --preset paper-manipulation --data runs/tl_data \
        --set model.policy_sees_actions=false --rounds 2 --out benchmarks/results/train_compile_ab.jsonl

Alternates eager and compiled in fresh processes (`--rounds` of each), each timing `--steps` steps of real batches
after `--warmup` steps (the compiled ones include the one-off compile, reported as `warmup_s`). Without `--data` the
batches are random (session 7's form, `simdist.experiments.bench`). Run with nothing else on the cores.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time


def measure(args: argparse.Namespace, compiled: bool) -> dict:
    import numpy as np
    import torch

    from simdist.experiments.bench import _random_batch, _spec_for
    from simdist.config import ModelConfig, model_preset, parse_overrides, replace, train_preset
    from simdist.model.loss import world_model_loss
    from simdist.model.world_model import WorldModel
    from simdist.training.train import build_model, load_windows

    torch.manual_seed(0)
    cfg = replace(model_preset(args.preset), **parse_overrides(ModelConfig, args.model_set))
    train = train_preset(args.preset)
    if args.data:
        data = load_windows(args.data, cfg, torch.device("cpu"))
        model = build_model(cfg, data)
        batches = (data.batch(np.random.default_rng([0, i]).choice(len(data), train.batch_size)) for i in range(10**9))
    else:
        model = WorldModel(cfg, _spec_for(args.preset))
        batches = (_random_batch(model, train.batch_size) for _ in range(10**9))
    model.train()
    forward = torch.compile(model) if compiled else model  # what TrainConfig.compile does in train._loop
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)

    def step() -> None:
        loss, _ = world_model_loss(forward, next(batches), train.loss)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    t0 = time.perf_counter()
    for _ in range(args.warmup):
        step()
    warmup_s = time.perf_counter() - t0
    times = []
    for _ in range(args.steps):
        t = time.perf_counter()
        step()
        times.append(time.perf_counter() - t)
    median = statistics.median(times)
    return {"preset": args.preset, "data": args.data, "model_set": args.model_set, "compiled": compiled,
            "threads": torch.get_num_threads(), "batch": train.batch_size, "steps": args.steps,
            "warmup_s": round(warmup_s, 1), "median_ms": round(median * 1e3, 1),
            "steps_per_s": round(1 / median, 2), "sequences_per_s": round(train.batch_size / median)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", default="paper-manipulation")
    parser.add_argument("--data", default="", help="a dataset directory (default: random batches)")
    parser.add_argument("--model-set", action="append", default=[], help="ModelConfig FIELD=VALUE")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", default="", help="append one JSON line per measurement")
    parser.add_argument("--one", choices=("eager", "compiled"), help=argparse.SUPPRESS)  # a child process
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args, args.one == "compiled")))
        return
    for _ in range(args.rounds):
        for mode in ("eager", "compiled"):
            out = subprocess.run([sys.executable, *sys.argv, "--one", mode], check=True, capture_output=True, text=True)
            line = out.stdout.strip().splitlines()[-1]
            print(line, flush=True)
            if args.out:
                with open(args.out, "a") as f:
                    f.write(line + "\n")


if __name__ == "__main__":
    main()
