"""The peg-insertion Task plug-in: spec, evaluation grids, initial conditions, policies, critic, metrics."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from simdist.tasks.base import PROPRIO_KEY, TaskSpec, apply_physics_overrides, check_domain
from simdist.tasks.peg_insertion import expert as expert_module
from simdist.tasks.peg_insertion.env import ACTION_DIM, CONTROL, InitialCondition, PegInsertionEnv
from simdist.tasks.peg_insertion.layout import PROPRIO
from simdist.tasks.peg_insertion.physics import PegPhysics, default_physics

TASK_NAME = "peg-insertion"


@dataclass(frozen=True)
class Grid:
    """Peg start positions: a square of side ``side_m`` centred at ``centre`` with yaw in +-``yaw_range_rad``."""

    side_m: float
    yaw_range_rad: float
    centre: tuple[float, float] = (0.45, 0.12)
    hole_offset_m: float = 0.0  # fixture position jitter (+-), training only
    hole_yaw_range_rad: float = 0.0
    home_offset_m: float = 0.0  # start-pose jitter of the TCP (+-), training only

    def sample(self, rng: np.random.Generator) -> InitialCondition:
        half = self.side_m / 2
        return InitialCondition(
            peg_xy=(float(self.centre[0] + rng.uniform(-half, half)), float(self.centre[1] + rng.uniform(-half, half))),
            peg_yaw=float(rng.uniform(-self.yaw_range_rad, self.yaw_range_rad)),
            hole_offset_xy=tuple(float(v) for v in rng.uniform(-self.hole_offset_m, self.hole_offset_m, 2)),
            hole_yaw=float(rng.uniform(-self.hole_yaw_range_rad, self.hole_yaw_range_rad)),
            home_offset_m=tuple(float(v) for v in rng.uniform(-self.home_offset_m, self.home_offset_m, 3)),
        )


GRIDS: dict[str, Grid] = {
    "narrow": Grid(side_m=0.02, yaw_range_rad=np.deg2rad(10.0)),
    "wide": Grid(side_m=0.35, yaw_range_rad=np.deg2rad(45.0)),
}
# Training/data-generation resets: wider than the wide grid, any yaw (a square repeats every 90 deg), and a jittered
# fixture and start pose, so the world model sees both evaluation grids and more.
TRAINING_GRID = Grid(side_m=0.40, yaw_range_rad=np.deg2rad(45.0), hole_offset_m=0.02,
                     hole_yaw_range_rad=np.deg2rad(10.0), home_offset_m=0.04)


class PegInsertionTask:
    spec = TaskSpec(
        name=TASK_NAME,
        obs_shapes={PROPRIO_KEY: (PROPRIO.size,)},
        action_dim=ACTION_DIM,
        action_low=(-1.0,) * ACTION_DIM,
        action_high=(1.0,) * ACTION_DIM,
        control_period_s=CONTROL.control_period_s,
        episode_steps=CONTROL.episode_steps,
        gamma=0.99,
    )
    physics_type = PegPhysics

    def default_physics(self, domain: str) -> PegPhysics:
        return default_physics(domain)

    def make_env(self, domain: str, physics: PegPhysics | dict | str | None = None, seed: int = 0) -> PegInsertionEnv:
        check_domain(domain)
        if not isinstance(physics, PegPhysics):
            physics = apply_physics_overrides(default_physics(domain), physics)
        return PegInsertionEnv(domain, physics, seed=seed, sample_initial_condition=TRAINING_GRID.sample)

    def expert(self) -> expert_module.ScriptedExpert:
        return expert_module.expert()

    def suboptimal_policies(self) -> Sequence[expert_module.ScriptedExpert]:
        return expert_module.suboptimal_policies()

    def critic(self):
        from simdist.tasks.peg_insertion.critic import load_critic

        return load_critic()

    def initial_conditions(self, grid: str, n: int, seed: int = 0) -> list[InitialCondition]:
        if grid not in GRIDS:
            raise KeyError(f"unknown grid {grid!r}; valid grids: {list(GRIDS)}")
        rng = np.random.default_rng([seed, list(GRIDS).index(grid)])
        return [GRIDS[grid].sample(rng) for _ in range(n)]

    @property
    def grids(self) -> tuple[str, ...]:
        return tuple(GRIDS)

    def episode_metrics(self, infos: list[dict]) -> dict[str, float]:
        """``infos``: the per-step infos of one episode (step infos; a leading reset info is harmless)."""
        successes = [bool(info.get("success", False)) for info in infos]
        solved = any(successes)
        steps = successes.index(True) + 1 if solved else len(infos)
        return {"success": float(solved), "episode_time_s": float(steps * CONTROL.control_period_s)}
