"""Success detector and dense reward, both pure functions of exact state (the privileged vector)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simdist.tasks.table_leg.layout import PRIVILEGED
from simdist.tasks.table_leg.model import LEG, RACK, TABLETOP
from simdist.tasks.table_leg.thread import SEATED_TURN_TOLERANCE
from simdist.tasks.ur5e.robot import GRIPPER
from simdist.tasks.ur5e.rotations import rot6_to_matrix


@dataclass(frozen=True)
class RewardWeights:
    """Per-step shaping terms sum to at most ``time_cost``, so every step before success costs >= 0 net;
    success ends the episode with a bonus, so finishing sooner is always better."""

    reach: float = 0.05
    grasp: float = 0.1
    lift: float = 0.1
    align: float = 0.2
    insert: float = 0.15
    thread: float = 0.4
    time_cost: float = 1.0
    success: float = 50.0
    action_l2: float = 0.01
    lift_height_m: float = 0.03  # stud tip above the rack top at which "lift" saturates
    reach_scale_m: float = 0.1
    align_scale_m: float = 0.01


WEIGHTS = RewardWeights()


@dataclass(frozen=True)
class LegState:
    """Task-relevant geometric quantities, derived from the privileged vector."""

    tcp_pos: np.ndarray
    tcp_rot: np.ndarray
    wrist_angle: float  # wrist 3 joint angle: how much turning is left before its limit
    gripper_opening: float
    gripper_closing: bool
    leg_pos: np.ndarray  # shoulder (top of the stud)
    leg_rot: np.ndarray
    hole_pos: np.ndarray
    engaged: bool
    cross_threaded: bool
    turns: float

    @classmethod
    def from_privileged(cls, privileged: np.ndarray) -> "LegState":
        get = lambda name: PRIVILEGED.get(privileged, name)  # noqa: E731
        return cls(
            tcp_pos=get("tcp_pos"),
            tcp_rot=rot6_to_matrix(get("tcp_rot6")),
            wrist_angle=float(get("joint_pos")[5]),
            gripper_opening=float(get("gripper_opening")[0]),
            gripper_closing=bool(get("gripper_closing")[0] > 0.5),
            leg_pos=get("leg_pos"),
            leg_rot=rot6_to_matrix(get("leg_rot6")),
            hole_pos=get("hole_pos"),
            engaged=bool(get("thread_engaged")[0] > 0.5),
            cross_threaded=bool(get("thread_cross_threaded")[0] > 0.5),
            turns=float(get("thread_turns")[0]),
        )

    @property
    def axis(self) -> np.ndarray:
        return self.leg_rot[:, 2]

    @property
    def stud_tip(self) -> np.ndarray:
        return self.leg_pos - self.axis * LEG.stud_length

    @property
    def tilt(self) -> float:
        return float(np.arccos(np.clip(self.axis[2], -1.0, 1.0)))

    @property
    def lateral_to_hole(self) -> float:
        return float(np.linalg.norm(self.stud_tip[:2] - self.hole_pos[:2]))

    @property
    def stud_depth(self) -> float:
        """Stud tip below the hole mouth (lead-in floor at TABLETOP.lead_in_depth; seated deeper by the thread)."""
        return float(self.hole_pos[2] - self.stud_tip[2])

    @property
    def grasp_point(self) -> np.ndarray:
        """Where the pad centre should be to hold the leg: on its axis, one pad half-height below its top."""
        top = self.leg_pos + self.axis * LEG.length
        return top - self.axis * (GRIPPER.pad_half_size[2] + 0.004)

    @property
    def grasped(self) -> bool:
        offset = self.tcp_rot.T @ (self.leg_pos + self.axis * LEG.length / 2 - self.tcp_pos)
        width = 2 * LEG.radius
        held = self.gripper_closing and GRIPPER.holds_width(self.gripper_opening, width)
        return bool(held and np.linalg.norm(offset[:2]) < 0.006 and abs(offset[2]) < LEG.length / 2)


def is_seated(state: LegState, seated_turns: float) -> bool:
    """Seated: the thread caught cleanly and the leg was turned to the end of the thread (``seated_turns``)."""
    return bool(state.engaged and not state.cross_threaded and state.turns >= seated_turns - SEATED_TURN_TOLERANCE)


def reward_terms(state: LegState, seated_turns: float, weights: RewardWeights = WEIGHTS) -> dict[str, float]:
    """Each term in [0, 1] (before weighting); later stages count the earlier ones as complete."""
    engaged = state.engaged and not state.cross_threaded
    in_lead_in = engaged or (state.lateral_to_hole < 0.002 and state.stud_depth > 0.0)
    held = state.grasped or engaged
    reach = 1.0 if held else 1.0 - np.tanh(np.linalg.norm(state.grasp_point - state.tcp_pos) / weights.reach_scale_m)
    lifted = np.clip((state.stud_tip[2] - RACK.height) / weights.lift_height_m, 0.0, 1.0)
    lift = 1.0 if in_lead_in else float(held) * float(lifted)
    upright = max(0.0, 1.0 - state.tilt / 0.3)
    align = 1.0 if engaged else float(held) * (1.0 - np.tanh(state.lateral_to_hole / weights.align_scale_m)) * upright
    insert = (
        1.0 if engaged else float(in_lead_in and held) * float(np.clip(state.stud_depth / TABLETOP.lead_in_depth, 0, 1))
    )
    thread = float(engaged) * float(np.clip(state.turns / seated_turns, 0.0, 1.0))
    return {
        "reach": float(reach),
        "grasp": float(held),
        "lift": lift,
        "align": float(align),
        "insert": insert,
        "thread": thread,
    }


def dense_reward(
    state: LegState, action: np.ndarray, success: bool, seated_turns: float, weights: RewardWeights = WEIGHTS
) -> float:
    terms = reward_terms(state, seated_turns, weights)
    shaping = sum(getattr(weights, name) * value for name, value in terms.items())
    penalty = weights.action_l2 * float(np.sum(np.square(action[:6])))
    return float(shaping - weights.time_cost + weights.success * float(success) - penalty)
