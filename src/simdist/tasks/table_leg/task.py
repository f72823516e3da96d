"""The table-leg Task plug-in: spec, evaluation grids, initial conditions, policies, critic, metrics."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simdist.experts.fitted_critic import MLPCritic
from simdist.tasks.table_leg import expert as expert_module
from simdist.tasks.table_leg.env import CONTROL, InitialCondition, TableLegEnv
from simdist.tasks.table_leg.layout import PROPRIO
from simdist.tasks.table_leg.physics import GAP_GROUPS, TableLegPhysics, default_physics
from simdist.tasks.ur5e.task import UR5eTask, ur5e_task_spec

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
            rack_xy=(
                float(self.centre[0] + rng.uniform(-half, half)),
                float(self.centre[1] + rng.uniform(-half, half)),
            ),
            leg_yaw=float(rng.uniform(-self.yaw_range_rad, self.yaw_range_rad)),
            tabletop_offset_xy=tuple(float(v) for v in rng.uniform(-self.tabletop_offset_m, self.tabletop_offset_m, 2)),
            tabletop_yaw=float(rng.uniform(-self.tabletop_yaw_range_rad, self.tabletop_yaw_range_rad)),
            home_offset_m=tuple(float(v) for v in rng.uniform(-self.home_offset_m, self.home_offset_m, 3)),
        )


GRIDS: dict[str, Grid] = {"narrow": Grid(side_m=0.02), "wide": Grid(side_m=0.35)}
# Training/data-generation resets: wider than the wide grid, with tabletop and start-pose jitter.
TRAINING_GRID = Grid(side_m=0.40, tabletop_offset_m=0.02, tabletop_yaw_range_rad=np.deg2rad(15.0), home_offset_m=0.04)


class TableLegTask(UR5eTask):
    spec = ur5e_task_spec(TASK_NAME, PROPRIO, CONTROL)
    physics_type = TableLegPhysics
    env_type = TableLegEnv
    physics_defaults = staticmethod(default_physics)
    gap_groups = GAP_GROUPS
    grid_table = GRIDS
    training_grid = TRAINING_GRID
    expert_module = expert_module

    def critic(self):
        if not (PACKAGE_DIR / "critic.json").exists():
            raise FileNotFoundError(
                "table-leg critic missing; fit it with `python -m simdist.tasks.table_leg.measure critic`"
            )
        return MLPCritic.load(PACKAGE_DIR)
