"""Produce the figures quoted in docs/tasks/peg-insertion.md.

    python -m simdist.tasks.peg_insertion.measure speed
    python -m simdist.tasks.peg_insertion.measure expert [--trials 20]
    python -m simdist.tasks.peg_insertion.measure suboptimal [--trials 20] [--grid wide]
    python -m simdist.tasks.peg_insertion.measure real-gaps [--trials 20] [--grid wide]

The loops are :mod:`simdist.tasks.ur5e.measure`'s; this script adds the real-gap ablation.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging

from simdist.tasks.base import apply_physics_overrides
from simdist.tasks.peg_insertion.physics import PegPhysics, default_physics
from simdist.tasks.peg_insertion.task import PegInsertionTask
from simdist.tasks.ur5e.measure import measure_expert, measure_speed, measure_suboptimal
from simdist.tasks.ur5e.rollout import success_rate

log = logging.getLogger(__name__)
SPEED_STEPS, SPEED_EXPERT_TRIALS = 1000, 20


def measure_real_gaps(trials: int, grid: str) -> dict[str, float]:
    """Expert success in `real` with one effect at a time put back to its `sim` value (range midpoint)."""
    task = PegInsertionTask()
    sim, real = default_physics("sim"), default_physics("real")
    ics = task.initial_conditions(grid, trials, seed=0)
    variants: dict[str, dict] = {"real (all effects)": {}}
    for f in dataclasses.fields(PegPhysics):
        if getattr(sim, f.name) != getattr(real, f.name) and not f.name.startswith("perception"):
            value = getattr(sim, f.name)
            middle = (value[0] + value[1]) / 2
            variants[f"{f.name} -> sim"] = {f.name: (middle, middle)}
    for latency in (0.04, 0.045):
        variants[f"latency {latency * 1000:.0f} ms"] = {"actuation_latency_range_s": (latency, latency)}
    results = {}
    for label, overrides in variants.items():
        env = task.make_env("real", apply_physics_overrides(real, overrides), seed=0)
        results[label], _ = success_rate(env, task.expert(), ics)
        log.info("%s: %.2f", label, results[label])
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["speed", "expert", "suboptimal", "real-gaps"])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--grid", default="wide")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    task = PegInsertionTask()
    if args.what == "speed":
        result = measure_speed(task, SPEED_STEPS, SPEED_EXPERT_TRIALS)
    elif args.what == "expert":
        result = measure_expert(task, args.trials)
    elif args.what == "suboptimal":
        result = measure_suboptimal(task, args.trials, args.grid)
    else:
        result = measure_real_gaps(args.trials, args.grid)
    print(json.dumps(result, indent=1))  # the result itself is the program's output


if __name__ == "__main__":
    main()
