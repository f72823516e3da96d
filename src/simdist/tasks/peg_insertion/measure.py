"""Produce the figures quoted in docs/tasks/peg-insertion.md.

    python -m simdist.tasks.peg_insertion.measure speed
    python -m simdist.tasks.peg_insertion.measure expert [--trials 20]
    python -m simdist.tasks.peg_insertion.measure suboptimal [--trials 20] [--grid wide]
    python -m simdist.tasks.peg_insertion.measure real-gaps [--trials 20] [--grid wide]

Evaluation uses the task's fixed initial conditions (seed 0) and reads exact state through the env's oracle, so the
privileged expert can also be run zero-shot in `real` (a physical robot would not allow this).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import time

import numpy as np

from simdist.tasks.base import apply_physics_overrides
from simdist.tasks.peg_insertion.physics import PegPhysics, default_physics
from simdist.tasks.peg_insertion.rollout import success_rate
from simdist.tasks.peg_insertion.task import PegInsertionTask

log = logging.getLogger(__name__)


def measure_speed(steps: int = 1000) -> dict[str, float]:
    """Control steps/s of env.step alone (random actions) and with the expert in the loop, one core."""
    task = PegInsertionTask()
    env = task.make_env("sim", seed=0)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    start = time.perf_counter()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(rng.uniform(-1, 1, task.spec.action_dim))
        if terminated or truncated:
            env.reset()
    random_rate = steps / (time.perf_counter() - start)
    _, expert_rate = success_rate(env, task.expert(), task.initial_conditions("wide", 20, seed=1))
    return {"env_step_random_actions": round(random_rate), "expert_in_the_loop": round(expert_rate),
            "physics_steps_per_control_step": env.n_substeps}


def measure_expert(trials: int) -> dict[str, float]:
    task = PegInsertionTask()
    results = {}
    for domain in ("sim", "real"):
        env = task.make_env(domain, seed=0)
        for grid in task.grids:
            rate, _ = success_rate(env, task.expert(), task.initial_conditions(grid, trials, seed=0))
            results[f"{domain}/{grid}"] = rate
            log.info("expert %s/%s: %.2f", domain, grid, rate)
    return results


def measure_suboptimal(trials: int, grid: str) -> dict[str, float]:
    task = PegInsertionTask()
    env = task.make_env("sim", seed=0)
    ics = task.initial_conditions(grid, trials, seed=0)
    results = {}
    for policy in [task.expert(), *task.suboptimal_policies()]:
        results[policy.name], _ = success_rate(env, policy, ics)
        log.info("%s: %.2f", policy.name, results[policy.name])
    return results


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
    if args.what == "speed":
        result = measure_speed()
    elif args.what == "expert":
        result = measure_expert(args.trials)
    elif args.what == "suboptimal":
        result = measure_suboptimal(args.trials, args.grid)
    else:
        result = measure_real_gaps(args.trials, args.grid)
    print(json.dumps(result, indent=1))  # the result itself is the program's output


if __name__ == "__main__":
    main()
