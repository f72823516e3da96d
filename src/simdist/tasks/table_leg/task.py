"""The table-leg Task plug-in: spec, evaluation grids, initial conditions, policies, critic, metrics."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from simdist.tasks.base import PROPRIO_KEY, TaskSpec, apply_physics_overrides, check_domain
from simdist.tasks.table_leg import expert as expert_module
from simdist.tasks.table_leg.env import ACTION_DIM, CONTROL, InitialCondition, TableLegEnv
from simdist.tasks.table_leg.layout import PROPRIO
from simdist.tasks.table_leg.physics import TableLegPhysics, default_physics

TASK_NAME = "table-leg"
PACKAGE_DIR = Path(__file__).resolve().parent  # critic.safetensors + critic.json live here


@dataclass(frozen=True)
class Grid:
    """Rack (leg) start positions: a square of side ``side_m`` centred at ``centre``; leg yaw in +-``yaw_range_rad``."""

    side_m: float
    yaw_range_rad: float = np.pi
    centre: tuple[float, float] = (0.45, 0.12)
    tabletop_offset_m: float = 0.0  # tabletop position jitter (+-), training only
    tabletop_yaw_range_rad: float = 0.0
    home_offset_m: float = 0.0

    def sample(self, rng: np.random.Generator) -> InitialCondition:
        half = self.side_m / 2
        return InitialCondition(
            rack_xy=(float(self.centre[0] + rng.uniform(-half, half)), float(self.centre[1] + rng.uniform(-half, half))),
            leg_yaw=float(rng.uniform(-self.yaw_range_rad, self.yaw_range_rad)),
            tabletop_offset_xy=tuple(float(v) for v in rng.uniform(-self.tabletop_offset_m, self.tabletop_offset_m, 2)),
            tabletop_yaw=float(rng.uniform(-self.tabletop_yaw_range_rad, self.tabletop_yaw_range_rad)),
            home_offset_m=tuple(float(v) for v in rng.uniform(-self.home_offset_m, self.home_offset_m, 3)),
        )


GRIDS: dict[str, Grid] = {
    "narrow": Grid(side_m=0.02),
    "wide": Grid(side_m=0.35),
}
# Training/data-generation resets: wider than the wide grid, with tabletop and start-pose jitter.
TRAINING_GRID = Grid(side_m=0.40, tabletop_offset_m=0.02, tabletop_yaw_range_rad=np.deg2rad(15.0), home_offset_m=0.04)


class TableLegTask:
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
    physics_type = TableLegPhysics

    def default_physics(self, domain: str) -> TableLegPhysics:
        return default_physics(domain)

    def make_env(self, domain: str, physics: TableLegPhysics | dict | str | None = None, seed: int = 0) -> TableLegEnv:
        check_domain(domain)
        if not isinstance(physics, TableLegPhysics):
            physics = apply_physics_overrides(default_physics(domain), physics)
        return TableLegEnv(domain, physics, seed=seed, sample_initial_condition=TRAINING_GRID.sample)

    def expert(self) -> expert_module.ScriptedExpert:
        return expert_module.expert()

    def suboptimal_policies(self) -> Sequence[expert_module.ScriptedExpert]:
        return expert_module.suboptimal_policies()

    def critic(self):
        from simdist.experts.fitted_critic import MLPCritic

        if not (PACKAGE_DIR / "critic.json").exists():
            raise FileNotFoundError("table-leg critic missing; fit it with `python -m simdist.tasks.table_leg.measure critic`")
        return MLPCritic.load(PACKAGE_DIR)

    def initial_conditions(self, grid: str, n: int, seed: int = 0) -> list[InitialCondition]:
        if grid not in GRIDS:
            raise KeyError(f"unknown grid {grid!r}; valid grids: {list(GRIDS)}")
        rng = np.random.default_rng([seed, list(GRIDS).index(grid)])
        return [GRIDS[grid].sample(rng) for _ in range(n)]

    @property
    def grids(self) -> tuple[str, ...]:
        return tuple(GRIDS)

    def episode_metrics(self, infos: list[dict]) -> dict[str, float]:
        successes = [bool(info.get("success", False)) for info in infos]
        solved = any(successes)
        steps = successes.index(True) + 1 if solved else len(infos)
        return {"success": float(solved), "episode_time_s": float(steps * CONTROL.control_period_s)}
