"""Is the finetuned model as accurate in `real` as the pretrained one is in `sim`? (what is left for Alg. 1 to fix)

    python benchmarks/latent_error_by_domain.py foam --pretrained checkpoints/quadruped-cpu \
        --finetuned runs/adapt_foam_nonoise_l10_s0/round_06/model --mppi quadruped-cpu --prior-weight 10 \
        --physics benchmarks/physics/foam_real_noise_off.json --out benchmarks/results/latent_error_by_domain.jsonl

Rolls the pretrained model's MPPI agent out in `sim` and in `real` (with --physics, if given) on fresh initial
conditions (--seed, not a seed the adaptation runs used) and reports the held-out latent error
‖ẑ_{t+k} − E(o_{t+k})‖² per horizon step (Fig. 8a) of the pretrained model in both domains and of the finetuned
model in `real`, on the same episodes. One JSON line to stdout (and appended to --out).
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import numpy as np
from records import emit

from simdist.eval.metrics import latent_prediction_error
from simdist.eval.rollout import rollout
from simdist.planning.agent import MPPIAgent
from simdist.planning.settings import mppi_preset
from simdist.tasks import get_task
from simdist.training.checkpoint import load_model


def episodes_in(task, domain: str, physics, agent, trials: int, seed: int) -> list:
    out = []
    for grid in task.grids:
        env = task.make_env(domain, physics if domain == "real" else None, seed=seed)
        out += rollout(task, env, agent, task.initial_conditions(grid, trials, seed=seed), seed=seed).episodes
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("task")
    ap.add_argument("--pretrained", required=True)
    ap.add_argument("--finetuned", required=True)
    ap.add_argument("--physics", default=None, help="override of the real domain's physics")
    ap.add_argument("--mppi", default="cpu", help="MPPI preset the episodes are collected with")
    ap.add_argument("--prior-weight", type=float, default=None, help="override the preset's prior_weight")
    ap.add_argument("--trials", type=int, default=2, help="per grid")
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    task, pretrained, finetuned = get_task(args.task), load_model(args.pretrained), load_model(args.finetuned)
    mppi = mppi_preset(args.mppi)
    if args.prior_weight is not None:
        mppi = replace(mppi, prior_weight=args.prior_weight)
    agent = MPPIAgent(pretrained, mppi)
    sim = episodes_in(task, "sim", None, agent, args.trials, args.seed)
    real = episodes_in(task, "real", args.physics, agent, args.trials, args.seed)
    errors = {"pretrained_sim": latent_prediction_error(pretrained, sim),
              "pretrained_real": latent_prediction_error(pretrained, real),
              "finetuned_real": latent_prediction_error(finetuned, real)}
    row = {"task": args.task, "pretrained": args.pretrained, "finetuned": args.finetuned, "physics": args.physics,
           "mppi": args.mppi, "prior_weight": mppi.prior_weight, "seed": args.seed, "episodes": [len(sim), len(real)],
           **{f"{k}_mean": float(np.mean(v)) for k, v in errors.items()},
           **{k: v.round(5).tolist() for k, v in errors.items()}}
    emit(row, args.out)


if __name__ == "__main__":
    main()
