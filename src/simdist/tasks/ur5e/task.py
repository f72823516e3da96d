"""Common Task-plugin plumbing of the UR5e tasks: spec, env construction, grids, policies, metrics.

A task subclasses :class:`UR5eTask` and sets the class attributes (its env, physics, grids, expert module);
what it ships beyond that (the critic) stays in the task.
"""

from __future__ import annotations

from types import ModuleType
from typing import Callable, Sequence

import numpy as np

from simdist.tasks.base import PROPRIO_KEY, WRENCH_KEY, TaskSpec, check_domain, domain_physics
from simdist.tasks.ur5e.actions import ACTION_DIM, ControlConfig
from simdist.tasks.ur5e.env import WRENCH_DIM
from simdist.tasks.ur5e.layout import VectorLayout

GAMMA = 0.99  # discount of the dense reward, as for every simdist task


def ur5e_task_spec(name: str, proprio: VectorLayout, control: ControlConfig, wrench: bool = False) -> TaskSpec:
    """Spec of a 7-D set-point task: actions in [-1, 1], one flat proprioceptive observation, and with ``wrench``
    the flange F/T sensor's 6 values as a group of their own (a model trained without it can still run)."""
    return TaskSpec(
        name=name,
        obs_shapes={PROPRIO_KEY: (proprio.size,), **({WRENCH_KEY: (WRENCH_DIM,)} if wrench else {})},
        action_dim=ACTION_DIM,
        action_low=(-1.0,) * ACTION_DIM,
        action_high=(1.0,) * ACTION_DIM,
        control_period_s=control.control_period_s,
        episode_steps=control.episode_steps,
        gamma=GAMMA,
        action_frame="" if control.carry_frame == "tool" else f"carry frame: {control.carry_frame}",
    )


class UR5eTask:
    spec: TaskSpec
    physics_type: type
    env_type: type  # a UR5eEnv subclass
    physics_defaults: Callable  # domain -> the task's documented physics
    gap_groups: dict  # group name -> physics fields of the sim-to-real gap (simdist.tasks.gaps)
    grid_table: dict  # evaluation grid name -> Grid (with ``sample(rng) -> InitialCondition``)
    training_grid: object  # resets of make_env's envs when no initial condition is given
    expert_module: ModuleType  # with expert() and suboptimal_policies()

    def default_physics(self, domain: str):
        return type(self).physics_defaults(domain)

    def make_env(self, domain: str, physics=None, seed: int = 0):
        """``physics``: the task's physics dataclass, or overrides of the defaults (tasks.base.domain_physics)."""
        check_domain(domain)
        physics = domain_physics(self, domain, physics)
        return self.env_type(domain, physics, seed=seed, sample_initial_condition=self.training_grid.sample)

    def expert(self):
        return self.expert_module.expert()

    def suboptimal_policies(self) -> Sequence:
        return self.expert_module.suboptimal_policies()

    def initial_conditions(self, grid: str, n: int, seed: int = 0) -> list:
        grids = self.grid_table
        if grid not in grids:
            raise KeyError(f"unknown grid {grid!r}; valid grids: {list(grids)}")
        rng = np.random.default_rng([seed, list(grids).index(grid)])
        return [grids[grid].sample(rng) for _ in range(n)]

    @property
    def grids(self) -> tuple[str, ...]:
        return tuple(self.grid_table)

    def episode_metrics(self, infos: list[dict]) -> dict[str, float]:
        """``infos``: the per-step infos of one episode (step infos; a leading reset info is harmless)."""
        successes = [bool(info.get("success", False)) for info in infos]
        solved = any(successes)
        steps = successes.index(True) + 1 if solved else len(infos)
        return {"success": float(solved), "episode_time_s": float(steps * self.spec.control_period_s)}
