"""The quadruped's dense reward: paper Table V terms and weights, with the authors' term definitions.

Each term is multiplied by its weight and by the control period (0.02 s), as IsaacLab's reward manager does,
so returns are comparable with the authors'. The two mantissas lost from the paper's table are taken from
the IsaacLab Go2 rough config that SimDist inherits (−2e−4 torques, −2.5e−7 joint accelerations).
Gait: trot with period 0.5 s, per-foot phase offsets FR 0, FL 0.5, RR 0.5, RL 0, stance for the first half of
each foot's cycle; a foot is in contact when its contact force exceeds 1 N.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simdist.tasks.quadruped.robot import HIP_INDICES

WEIGHTS = {
    "track_lin_vel_xy": 1.5,
    "track_ang_vel_z": 0.75,
    "gait": 0.05,
    "gait_foot_height": 0.2,
    "lin_vel_z": -2.0,
    "ang_vel_xy": -0.05,
    "flat_orientation": -4.0,
    "hip_deviation": -0.25,
    "joint_torque": -2e-4,
    "joint_acc": -2.5e-7,
    "action_rate": -0.01,
}
TRACKING_SIGMA_SQ = 0.25
GAIT_PERIOD_S = 0.5
GAIT_OFFSETS = np.array([0.0, 0.5, 0.5, 0.0])
STANCE_RATIO = 0.5
CONTACT_FORCE_N = 1.0
SWING_HEIGHT_M = 0.09
SWING_HEIGHT_STD = SWING_HEIGHT_M / 4
GAIT_MIN_COMMAND = 0.1


def gait_phase(time_s: np.ndarray) -> np.ndarray:
    """Phase in [0, 1) of the 0.5 s gait clock."""
    return (time_s / GAIT_PERIOD_S) % 1.0


def desired_stance(phase: np.ndarray) -> np.ndarray:
    """(N, 4) bool: which feet the trot wants on the ground."""
    return ((phase[:, None] + GAIT_OFFSETS) % 1.0) < STANCE_RATIO


@dataclass
class RewardInputs:
    command: np.ndarray  # (N, 3)
    lin_vel_body: np.ndarray  # (N, 3)
    ang_vel_body: np.ndarray  # (N, 3)
    projected_gravity: np.ndarray  # (N, 3)
    joint_pos_rel: np.ndarray  # (N, 12) relative to default
    joint_acc: np.ndarray  # (N, 12)
    torques: np.ndarray  # (N, 12)
    action: np.ndarray  # (N, 12)
    prev_action: np.ndarray  # (N, 12)
    foot_contact: np.ndarray  # (N, 4) bool
    foot_height: np.ndarray  # (N, 4) m above the ground (foot bottom)
    phase: np.ndarray  # (N,)


def reward_terms(x: RewardInputs) -> dict[str, np.ndarray]:
    """Unweighted per-env term values."""
    walking = np.linalg.norm(x.command, axis=1) > GAIT_MIN_COMMAND
    stance = desired_stance(x.phase)
    height_match = np.exp(-((x.foot_height - SWING_HEIGHT_M) ** 2) / (2 * SWING_HEIGHT_STD**2))
    return {
        "track_lin_vel_xy": np.exp(-np.sum((x.command[:, :2] - x.lin_vel_body[:, :2]) ** 2, 1) / TRACKING_SIGMA_SQ),
        "track_ang_vel_z": np.exp(-((x.command[:, 2] - x.ang_vel_body[:, 2]) ** 2) / TRACKING_SIGMA_SQ),
        "gait": walking * np.sum(stance == x.foot_contact, axis=1),
        "gait_foot_height": walking * np.sum(~stance * height_match, axis=1),
        "lin_vel_z": x.lin_vel_body[:, 2] ** 2,
        "ang_vel_xy": np.sum(x.ang_vel_body[:, :2] ** 2, 1),
        "flat_orientation": np.sum(x.projected_gravity[:, :2] ** 2, 1),
        "hip_deviation": np.sum(np.abs(x.joint_pos_rel[:, HIP_INDICES]), 1),
        "joint_torque": np.sum(x.torques**2, 1),
        "joint_acc": np.sum(x.joint_acc**2, 1),
        "action_rate": np.sum((x.action - x.prev_action) ** 2, 1),
    }


def reward_weights(overrides: dict[str, float] | None = None) -> dict[str, float]:
    """Table V weights with some replaced (PPO training runs may reweight terms); unknown names raise."""
    unknown = set(overrides or {}) - set(WEIGHTS)
    if unknown:
        raise KeyError(f"unknown reward terms {sorted(unknown)}; valid terms: {list(WEIGHTS)}")
    return {**WEIGHTS, **(overrides or {})}


def dense_reward(
    x: RewardInputs, control_period_s: float, weights: dict[str, float] = WEIGHTS
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(N,) weighted reward and the weighted, dt-scaled terms (for logging)."""
    terms = {k: weights[k] * v * control_period_s for k, v in reward_terms(x).items()}
    return sum(terms.values()), terms
