"""Diverse resets for Alg. 2: episodes that start mid-task (the paper's manipulation data starts from OmniReset's
resets, arXiv 2603.15789). A long task's hard phase (Peg Insertion's last millimetres) is a few steps of each
episode started from the grid; started along the task, it gets a share of the data that matches its difficulty.

The starts are states a noised expert run reached physically (a settled grasp, a peg on the chamfer, partly
inserted), taken as copies of the environment, so one run gives several starts at the cost of the run.
"""

from __future__ import annotations

import copy

import numpy as np

from simdist.data.regime import GenerationConfig, NoiseWindows, act, noised_action


class MidTaskStarts:
    """Starts drawn from the second half of noised `starter` (expert) runs on `env`, `cfg.mid_task_starts_per_run`
    per run, handed out one per episode. Each start is its own copy of the env: the caller steps it and drops it."""

    def __init__(self, task, env, starter, cfg: GenerationConfig, rng: np.random.Generator):
        self.task, self.env, self.starter, self.cfg, self.rng = task, env, starter, cfg, rng
        self.pending: list[tuple] = []

    def next(self, seed: int) -> tuple:
        """(env, obs, info) of the next start; `seed` resets a new expert run when none is left."""
        if not self.pending:
            self.pending = self._run(seed)
        return self.pending.pop()

    def _run(self, seed: int) -> list[tuple]:
        spec, env, rng = self.task.spec, self.env, self.rng
        low, high = np.array(spec.action_low), np.array(spec.action_high)
        noise = NoiseWindows(self.cfg, spec.action_dim, rng, spec)
        obs, info = env.reset(seed=seed)
        self.starter.reset(rng)
        kept, first = [(copy.deepcopy(env), obs, info)], 0  # kept[k] is the run's step first + k
        for _ in range(spec.episode_steps - 1):
            action, _ = noised_action(
                np.asarray(act(self.starter, obs, info["privileged"]), np.float64), noise, low, high, rng
            )
            obs, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:  # a finished task is no start
                break
            kept.append((copy.deepcopy(env), obs, info))
            drop = (first + len(kept)) // 2 - first  # steps before the half so far can never be drawn: free them
            del kept[:drop]
            first += drop
        steps = first + len(kept)
        picks = rng.choice(
            np.arange(steps // 2, steps), size=min(self.cfg.mid_task_starts_per_run, steps - steps // 2), replace=False
        )
        return [kept[i - first] for i in sorted(picks, reverse=True)]
