"""Measurement loops shared by the UR5e tasks' ``measure`` scripts (the figures quoted in their docs).

Evaluation uses the task's fixed initial conditions (seed 0) and reads exact state through the env's oracle, so the
privileged expert can also be run zero-shot in `real` (a physical robot would not allow this).
"""

from __future__ import annotations

import logging
import time

import numpy as np

from simdist.tasks.ur5e.rollout import success_rate

log = logging.getLogger(__name__)
DOMAINS = ("sim", "real")


def measure_speed(task, steps: int, expert_trials: int) -> dict[str, float]:
    """Control steps/s of env.step alone (random actions) and with the expert in the loop, one core."""
    env = task.make_env("sim", seed=0)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    start = time.perf_counter()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(rng.uniform(-1, 1, task.spec.action_dim))
        if terminated or truncated:
            env.reset()
    random_rate = steps / (time.perf_counter() - start)
    _, expert_rate = success_rate(env, task.expert(), task.initial_conditions("wide", expert_trials, seed=1))
    return {
        "env_step_random_actions": round(random_rate),
        "expert_in_the_loop": round(expert_rate),
        "physics_steps_per_control_step": env.n_substeps,
    }


def measure_expert(task, trials: int, domains: tuple[str, ...] = DOMAINS) -> dict[str, float]:
    results = {}
    for domain in domains:
        env = task.make_env(domain, seed=0)
        for grid in task.grids:
            rate, _ = success_rate(env, task.expert(), task.initial_conditions(grid, trials, seed=0))
            results[f"{domain}/{grid}"] = rate
            log.info("expert %s/%s: %.2f", domain, grid, rate)
    return results


def measure_suboptimal(task, trials: int, grid: str) -> dict[str, float]:
    env = task.make_env("sim", seed=0)
    ics = task.initial_conditions(grid, trials, seed=0)
    results = {}
    for policy in [task.expert(), *task.suboptimal_policies()]:
        results[policy.name], _ = success_rate(env, policy, ics)
        log.info("%s: %.2f", policy.name, results[policy.name])
    return results
