"""Produce the figures quoted in docs/tasks/table-leg.md.

    python -m simdist.tasks.table_leg.measure speed
    python -m simdist.tasks.table_leg.measure expert [--trials 20]
    python -m simdist.tasks.table_leg.measure suboptimal [--trials 20] [--grid wide]
    python -m simdist.tasks.table_leg.measure critic [--episodes 200]   # fits and writes critic.safetensors/json

The loops are :mod:`simdist.tasks.ur5e.measure`'s; this script adds the critic fit.
"""

from __future__ import annotations

import argparse
import json
import logging
import time

import torch

from simdist.experts.fitted_critic import CriticFitConfig, fit_and_save
from simdist.tasks.table_leg.task import PACKAGE_DIR, TableLegTask
from simdist.tasks.ur5e.measure import DOMAINS, measure_expert, measure_speed, measure_suboptimal

SPEED_STEPS, SPEED_EXPERT_TRIALS = 600, 5  # smaller than peg insertion's: a table-leg step is slower


def fit_critic(episodes: int, epochs: int) -> dict[str, float]:
    """Fit V^e(s) with the generic helper (perturbed-then-expert rollouts, MC returns) and ship it in the package."""

    torch.set_num_threads(1)
    start = time.perf_counter()
    r2 = fit_and_save(TableLegTask(), PACKAGE_DIR, CriticFitConfig(episodes=episodes, epochs=epochs))
    return {"heldout_r2": r2, "episodes": episodes, "epochs": epochs, "seconds": round(time.perf_counter() - start)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["speed", "expert", "suboptimal", "critic"])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--grid", default="wide")
    parser.add_argument("--domain", choices=["sim", "real", "both"], default="both")
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--epochs", type=int, default=150)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    task = TableLegTask()
    if args.what == "speed":
        result = measure_speed(task, SPEED_STEPS, SPEED_EXPERT_TRIALS)
    elif args.what == "expert":
        result = measure_expert(task, args.trials, DOMAINS if args.domain == "both" else (args.domain,))
    elif args.what == "suboptimal":
        result = measure_suboptimal(task, args.trials, args.grid)
    else:
        result = fit_critic(args.episodes, args.epochs)
    print(json.dumps(result, indent=1))  # the result itself is the program's output


if __name__ == "__main__":
    main()
