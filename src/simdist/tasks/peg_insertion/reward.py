"""Success detector and dense reward, both pure functions of exact state (the privileged vector)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simdist.tasks.peg_insertion.layout import PRIVILEGED
from simdist.tasks.peg_insertion.model import SCENE
from simdist.tasks.peg_insertion.rotations import square_yaw_error
from simdist.tasks.ur5e.robot import GRIPPER
from simdist.tasks.ur5e.rotations import rot6_to_matrix, yaw_of


@dataclass(frozen=True)
class SuccessCriteria:
    seated_depth_m: float = 0.025  # peg bottom at least this far below the hole mouth (hole is 30 mm deep)
    max_lateral_m: float = 0.004  # peg axis within this distance of the hole axis (i.e. inside the hole)
    max_tilt_rad: float = 0.2


@dataclass(frozen=True)
class RewardWeights:
    """Per-step shaping terms sum to at most ``time_cost``, so every step before success costs >= 0 net;
    success ends the episode with a bonus, so finishing sooner is always better."""

    reach: float = 0.1
    grasp: float = 0.15
    lift: float = 0.15
    align: float = 0.25
    insert: float = 0.35
    time_cost: float = 1.0
    success: float = 50.0
    action_l2: float = 0.01
    carry_height_m: float = 0.06  # peg bottom height at which "lift" saturates (fixture is 40 mm tall)
    reach_scale_m: float = 0.1
    align_scale_m: float = 0.01


SUCCESS = SuccessCriteria()
WEIGHTS = RewardWeights()


@dataclass(frozen=True)
class PegState:
    """Task-relevant geometric quantities, derived from the privileged vector."""

    tcp_pos: np.ndarray
    tcp_rot: np.ndarray
    gripper_opening: float
    gripper_closing: bool
    peg_pos: np.ndarray
    peg_rot: np.ndarray
    hole_pos: np.ndarray
    hole_yaw: float

    @classmethod
    def from_privileged(cls, privileged: np.ndarray) -> "PegState":
        get = lambda name: PRIVILEGED.get(privileged, name)  # noqa: E731
        hole_yaw = get("hole_yaw")
        return cls(
            tcp_pos=get("tcp_pos"),
            tcp_rot=rot6_to_matrix(get("tcp_rot6")),
            gripper_opening=float(get("gripper_opening")[0]),
            gripper_closing=bool(get("gripper_closing")[0] > 0.5),
            peg_pos=get("peg_pos"),
            peg_rot=rot6_to_matrix(get("peg_rot6")),
            hole_pos=get("hole_pos"),
            hole_yaw=float(np.arctan2(hole_yaw[1], hole_yaw[0])),
        )

    @property
    def peg_bottom_z(self) -> float:
        half_axis = self.peg_rot[:, 2] * SCENE.peg_length / 2
        return float(min(self.peg_pos[2] - half_axis[2], self.peg_pos[2] + half_axis[2]))

    @property
    def peg_tilt(self) -> float:
        return float(np.arccos(np.clip(abs(self.peg_rot[2, 2]), 0.0, 1.0)))

    @property
    def lateral_to_hole(self) -> float:
        return float(np.linalg.norm(self.peg_pos[:2] - self.hole_pos[:2]))

    @property
    def insertion_depth(self) -> float:
        return float(self.hole_pos[2] - self.peg_bottom_z)

    @property
    def yaw_error(self) -> float:
        return square_yaw_error(self.hole_yaw, yaw_of(self.peg_rot))

    @property
    def grasp_point(self) -> np.ndarray:
        """Where the pad centre should be to hold the peg: on its axis, one pad half-height below its top."""
        top = self.peg_pos + self.peg_rot[:, 2] * SCENE.peg_length / 2
        return top - np.array([0.0, 0.0, GRIPPER.pad_half_size[2] + 0.004])

    @property
    def peg_in_tool(self) -> np.ndarray:
        """Peg centre in the tool frame."""
        return self.tcp_rot.T @ (self.peg_pos - self.tcp_pos)

    @property
    def grasped(self) -> bool:
        offset = self.peg_in_tool
        width = SCENE.peg_side
        held = self.gripper_closing and GRIPPER.holds_width(self.gripper_opening, width)
        return bool(
            held and abs(offset[0]) < 0.004 and abs(offset[1]) < 0.012 and abs(offset[2]) < SCENE.peg_length / 2
        )

    @property
    def in_hole_column(self) -> bool:
        return self.lateral_to_hole < SUCCESS.max_lateral_m and self.insertion_depth > 0.0


def is_seated(state: PegState, criteria: SuccessCriteria = SUCCESS) -> bool:
    return bool(
        state.insertion_depth >= criteria.seated_depth_m
        and state.lateral_to_hole <= criteria.max_lateral_m
        and state.peg_tilt <= criteria.max_tilt_rad
    )


def reward_terms(state: PegState, weights: RewardWeights = WEIGHTS) -> dict[str, float]:
    """Each term in [0, 1] (before weighting); later stages count as the earlier ones being complete."""
    grasped, in_hole = state.grasped, state.in_hole_column
    reach = (
        1.0
        if (grasped or in_hole)
        else 1.0 - np.tanh(np.linalg.norm(state.grasp_point - state.tcp_pos) / weights.reach_scale_m)
    )
    lift = 1.0 if in_hole else float(grasped) * float(np.clip(state.peg_bottom_z / weights.carry_height_m, 0.0, 1.0))
    yaw_factor = max(0.0, 1.0 - abs(state.yaw_error) / (np.pi / 4))
    align = float(grasped or in_hole) * (1.0 - np.tanh(state.lateral_to_hole / weights.align_scale_m)) * yaw_factor
    insert = float(in_hole) * float(np.clip(state.insertion_depth / SUCCESS.seated_depth_m, 0.0, 1.0))
    return {
        "reach": float(reach),
        "grasp": float(grasped or in_hole),
        "lift": lift,
        "align": float(align),
        "insert": insert,
    }


def dense_reward(state: PegState, action: np.ndarray, success: bool, weights: RewardWeights = WEIGHTS) -> float:
    terms = reward_terms(state, weights)
    shaping = sum(getattr(weights, name) * value for name, value in terms.items())
    penalty = weights.action_l2 * float(np.sum(np.square(action[:6])))
    return float(shaping - weights.time_cost + weights.success * float(success) - penalty)
