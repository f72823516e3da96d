"""The arm's action space: a Cartesian set-point moved per step (translation, rotation) and a gripper command, held
near the measured tool and inside the workspace."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ControlConfig:
    control_period_s: float = 0.2  # 5 Hz, as in the paper
    episode_steps: int = 225  # 45 s
    max_translation_m: float = 0.04  # per step, at |action| = 1
    max_rotation_rad: float = 0.25  # per step (world-frame rotation vector)
    max_setpoint_lead_m: float = 0.02  # anti-windup: set-point stays this close to the actual TCP
    max_setpoint_lead_rad: float = 0.2
    workspace_low: tuple[float, float, float] = (0.15, -0.55, 0.035)  # pads stay above a lying peg (no crushing)
    workspace_high: tuple[float, float, float] = (0.80, 0.55, 0.45)
    home_tcp_pos: tuple[float, float, float] = (0.40, 0.05, 0.25)
    home_joint_seed: tuple[float, ...] = (-0.213, 0.227, 1.542, 2.944, 1.571, 1.358)  # elbow-up branch


ACTION_DIM = 7  # dx, dy, dz, rx, ry, rz (all scaled to [-1, 1]), gripper (> 0 closes)
GRIPPER_ACTION = 6


def next_setpoint(
    setpoint_pos: np.ndarray, tcp_pos: np.ndarray, action: np.ndarray, control: ControlConfig
) -> np.ndarray:
    """The Cartesian set-point after a (clipped) action: moved by up to `max_translation_m` per axis, held within
    `max_setpoint_lead_m` of the measured TCP (anti-windup), then within the workspace. Also on (..., 3) batches:
    the set-point is the controller's own state, so a robot-side agent can track it from its commands."""
    target = setpoint_pos + action[..., :3] * control.max_translation_m
    lead = control.max_setpoint_lead_m
    target = tcp_pos + np.clip(target - tcp_pos, -lead, lead)
    return np.clip(target, control.workspace_low, control.workspace_high)
