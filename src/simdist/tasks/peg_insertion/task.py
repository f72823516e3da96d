"""The peg-insertion Task plug-in: spec, evaluation grids, initial conditions, policies, critic, metrics."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simdist.tasks.peg_insertion import expert as expert_module
from simdist.tasks.peg_insertion.carry_frame import CarryFramePolicy
from simdist.tasks.peg_insertion.critic import load_critic
from simdist.tasks.peg_insertion.env import (
    CARRY_FRAME_CONTROL,
    CONTROL,
    InitialCondition,
    PegInsertionCarryFrameEnv,
    PegInsertionEnv,
)
from simdist.tasks.peg_insertion.layout import PROPRIO
from simdist.tasks.peg_insertion.physics import GAP_GROUPS, PegPhysics, default_physics
from simdist.tasks.peg_insertion.starters import misaligned_starter
from simdist.tasks.peg_insertion.teacher import gated_hold_teacher, gated_teacher, perceiving_teacher
from simdist.tasks.ur5e.task import UR5eTask, ur5e_task_spec

TASK_NAME = "peg-insertion"
TOOL_FRAME_TASK_NAME = "peg-insertion-tool-frame"


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
TRAINING_GRID = Grid(
    side_m=0.40,
    yaw_range_rad=np.deg2rad(45.0),
    hole_offset_m=0.02,
    hole_yaw_range_rad=np.deg2rad(10.0),
    home_offset_m=0.04,
)


class PegInsertionToolFrameTask(UR5eTask):
    """Peg Insertion with the paper's action interface throughout: set-point steps in the tool's frame. The
    scripted policies act in it, and the models trained before the carry frame."""

    spec = ur5e_task_spec(TOOL_FRAME_TASK_NAME, PROPRIO, CONTROL, wrench=True)
    physics_type = PegPhysics
    env_type = PegInsertionEnv
    physics_defaults = staticmethod(default_physics)
    gap_groups = GAP_GROUPS
    grid_table = GRIDS
    training_grid = TRAINING_GRID
    expert_module = expert_module

    def teachers(self) -> dict:
        """Alternatives to the privileged expert for Alg. 2's expert slot (`--set data.teacher=NAME`)."""
        return {"perceiving": perceiving_teacher, "gated": gated_teacher, "gated-hold": gated_hold_teacher}

    def starters(self) -> dict:
        """Policies whose runs mid-task starts may be taken from (`--set data.mid_task_starter=NAME`)."""
        return {"misaligned": misaligned_starter}

    def teleoperator(self):
        """Stand-in for a human teleoperator in `real` (demonstrations for the baselines); see expert.TELEOPERATOR."""
        return expert_module.teleoperator()

    def critic(self):
        return load_critic()


class PegInsertionTask(PegInsertionToolFrameTask):
    """Peg Insertion whose x/y actions, while the peg is held, are offsets from the perceived alignment point (the
    carry frame, ur5e/actions.py): a head whose output is constant over the mouth follows the camera with gain 1."""

    spec = ur5e_task_spec(TASK_NAME, PROPRIO, CARRY_FRAME_CONTROL, wrench=True)
    env_type = PegInsertionCarryFrameEnv

    def _carried(self, policy):
        return CarryFramePolicy(policy, CARRY_FRAME_CONTROL)

    def expert(self):
        return self._carried(super().expert())

    def suboptimal_policies(self):
        return [self._carried(p) for p in super().suboptimal_policies()]

    def teachers(self) -> dict:
        return {name: (lambda f=f: self._carried(f())) for name, f in super().teachers().items()}

    def starters(self) -> dict:
        return {name: (lambda f=f: self._carried(f())) for name, f in super().starters().items()}

    def teleoperator(self):
        return self._carried(super().teleoperator())
