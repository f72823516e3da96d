"""Produce the figures quoted in docs/tasks/peg-insertion.md.

    python -m simdist.tasks.peg_insertion.measure speed
    python -m simdist.tasks.peg_insertion.measure expert [--trials 20]
    python -m simdist.tasks.peg_insertion.measure suboptimal [--trials 20] [--grid wide]
    python -m simdist.tasks.peg_insertion.measure real-gaps [--trials 20] [--grid wide]

The loops are :mod:`simdist.tasks.ur5e.measure`'s; this script adds the real-gap ablation.
"""

from __future__ import annotations

import argparse
import json
import logging

from simdist.tasks.gaps import WITH_SIM, gap_fields
from simdist.tasks.peg_insertion.task import PegInsertionToolFrameTask
from simdist.tasks.ur5e.measure import measure_expert, measure_speed, measure_suboptimal
from simdist.tasks.ur5e.rollout import success_rate

log = logging.getLogger(__name__)
SPEED_STEPS, SPEED_EXPERT_TRIALS = 1000, 20


def measure_real_gaps(trials: int, grid: str) -> dict[str, float]:
    """Expert success in `real` with one effect at a time put back to `sim` (simdist.tasks.gaps). Perception effects
    are left out: the expert acts on true state."""
    task = PegInsertionToolFrameTask()
    ics = task.initial_conditions(grid, trials, seed=0)
    variants: dict[str, dict] = {"real (all effects)": {}}
    for name in gap_fields(task):
        if not name.startswith("perception"):
            variants[f"{name} -> sim"] = {WITH_SIM: [name]}
    for latency in (0.04, 0.045):
        variants[f"latency {latency * 1000:.0f} ms"] = {"actuation_latency_range_s": (latency, latency)}
    results = {}
    for label, overrides in variants.items():
        env = task.make_env("real", overrides, seed=0)
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
    task = PegInsertionToolFrameTask()
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
