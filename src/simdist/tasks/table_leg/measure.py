"""Produce the figures quoted in docs/tasks/table-leg.md.

    python -m simdist.tasks.table_leg.measure speed
    python -m simdist.tasks.table_leg.measure expert [--trials 20]
    python -m simdist.tasks.table_leg.measure suboptimal [--trials 20] [--grid wide]
    python -m simdist.tasks.table_leg.measure critic [--episodes 200]   # fits and writes critic.safetensors/json

Evaluation uses the task's fixed initial conditions (seed 0) and reads exact state through the env's oracle, so the
privileged expert can also be run zero-shot in `real` (a physical robot would not allow this).
"""

from __future__ import annotations

import argparse
import json
import logging
import time

import numpy as np

from simdist.tasks.peg_insertion.rollout import success_rate
from simdist.tasks.table_leg.task import PACKAGE_DIR, TableLegTask

log = logging.getLogger(__name__)


def measure_speed(steps: int = 600) -> dict[str, float]:
    task = TableLegTask()
    env = task.make_env("sim", seed=0)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    start = time.perf_counter()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(rng.uniform(-1, 1, task.spec.action_dim))
        if terminated or truncated:
            env.reset()
    random_rate = steps / (time.perf_counter() - start)
    _, expert_rate = success_rate(env, task.expert(), task.initial_conditions("wide", 5, seed=1))
    return {"env_step_random_actions": round(random_rate), "expert_in_the_loop": round(expert_rate),
            "physics_steps_per_control_step": env.n_substeps}


def measure_expert(trials: int, domains: tuple[str, ...] = ("sim", "real")) -> dict[str, float]:
    task = TableLegTask()
    results = {}
    for domain in domains:
        env = task.make_env(domain, seed=0)
        for grid in task.grids:
            rate, _ = success_rate(env, task.expert(), task.initial_conditions(grid, trials, seed=0))
            results[f"{domain}/{grid}"] = rate
            log.info("expert %s/%s: %.2f", domain, grid, rate)
    return results


def measure_suboptimal(trials: int, grid: str) -> dict[str, float]:
    task = TableLegTask()
    env = task.make_env("sim", seed=0)
    ics = task.initial_conditions(grid, trials, seed=0)
    results = {}
    for policy in [task.expert(), *task.suboptimal_policies()]:
        results[policy.name], _ = success_rate(env, policy, ics)
        log.info("%s: %.2f", policy.name, results[policy.name])
    return results


def fit_critic(episodes: int, epochs: int) -> dict[str, float]:
    """Fit V^e(s) with the generic helper (perturbed-then-expert rollouts, MC returns) and ship it in the package."""
    import torch

    from simdist.experts.fitted_critic import CriticFitConfig, fit_and_save

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
    if args.what == "speed":
        result = measure_speed()
    elif args.what == "expert":
        result = measure_expert(args.trials, ("sim", "real") if args.domain == "both" else (args.domain,))
    elif args.what == "suboptimal":
        result = measure_suboptimal(args.trials, args.grid)
    else:
        result = fit_critic(args.episodes, args.epochs)
    print(json.dumps(result, indent=1))  # the result itself is the program's output


if __name__ == "__main__":
    main()
