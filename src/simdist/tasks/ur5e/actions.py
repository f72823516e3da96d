"""The arm's action space: a Cartesian set-point moved per step (translation, rotation) and a gripper command, held
near the measured tool and inside the workspace.

With ``carry_frame="perceived-target"`` the x/y translation of a step in which the closed pads hold a part is not a
step but an offset from where the robot perceives the part would be over its target (the tool plus the perceived
part-to-target vector): a policy that outputs a constant then follows the current perception with gain 1, instead of
having to learn that correction from millimetre differences of its inputs. The offset is ``sinh``-scaled: 1 mm is
0.02 action units near the target, and ``carry_offset_max_m`` is reached at |a| = 1."""

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
    carry_frame: str = "tool"  # or "perceived-target" (module docstring)
    carry_offset_fine_m: float = 0.01  # sinh scale: the offset grows linearly below it, exponentially above
    carry_offset_max_m: float = 0.6  # offset at |a| = 1: the workspace's reach from any target
    hold_width_m: float = 0.0  # gripper opening below which closed pads hold the part: the task's, from its part

    def __post_init__(self) -> None:
        if self.carry_frame not in CARRY_FRAMES:
            raise ValueError(f"carry_frame must be one of {CARRY_FRAMES}, got {self.carry_frame!r}")
        if self.carry_frame != "tool" and self.hold_width_m <= 0.0:
            raise ValueError("a carry frame needs hold_width_m > 0: the opening below which the pads hold the part")


CARRY_FRAMES = ("tool", "perceived-target")


ACTION_DIM = 7  # dx, dy, dz, rx, ry, rz (all scaled to [-1, 1]), gripper (> 0 closes)
GRIPPER_ACTION = 6


def next_setpoint(
    setpoint_pos: np.ndarray, tcp_pos: np.ndarray, action: np.ndarray, control: ControlConfig
) -> np.ndarray:
    """The Cartesian set-point after a (clipped) action: moved by up to `max_translation_m` per axis, held within
    `max_setpoint_lead_m` of the measured TCP (anti-windup), then within the workspace. Also on (..., 3) batches:
    the set-point is the controller's own state, so a robot-side agent can track it from its commands."""
    target = setpoint_pos + action[..., :3] * control.max_translation_m
    return _within_reach(target, tcp_pos, control)


def _within_reach(target: np.ndarray, tcp_pos: np.ndarray, control: ControlConfig) -> np.ndarray:
    lead = control.max_setpoint_lead_m
    target = tcp_pos + np.clip(target - tcp_pos, -lead, lead)
    return np.clip(target, control.workspace_low, control.workspace_high)


def holds_part(action: np.ndarray, gripper_opening: float, control: ControlConfig) -> bool:
    """Whether a step's x/y translation is an offset from the perceived target: the carry frame is on, the step
    closes the gripper and the observed opening says the pads have closed on something."""
    closes = bool(action[GRIPPER_ACTION] > 0.0)
    return control.carry_frame == "perceived-target" and closes and gripper_opening < control.hold_width_m


def _offset_scale(control: ControlConfig) -> float:
    return float(np.arcsinh(control.carry_offset_max_m / control.carry_offset_fine_m))


def carried_setpoint(
    setpoint_pos: np.ndarray,
    tcp_pos: np.ndarray,
    aligned_tcp_xy: np.ndarray,
    action: np.ndarray,
    control: ControlConfig,
) -> np.ndarray:
    """The set-point after a holding step: x/y move towards ``aligned_tcp_xy`` (where the tool would put the part over
    its target, as perceived) plus the action's offset, by at most ``max_translation_m`` per axis; z moves as a step.
    Then the lead and workspace limits of :func:`next_setpoint`."""
    offset = control.carry_offset_fine_m * np.sinh(np.clip(action[:2], -1.0, 1.0) * _offset_scale(control))
    step_xy = np.clip(aligned_tcp_xy + offset - setpoint_pos[:2], -control.max_translation_m, control.max_translation_m)
    target = setpoint_pos + np.array([*step_xy, action[2] * control.max_translation_m])
    return _within_reach(target, tcp_pos, control)


def carry_action(
    step_action: np.ndarray, setpoint_pos: np.ndarray, aligned_tcp_xy: np.ndarray, control: ControlConfig
) -> np.ndarray:
    """The holding-step action that moves the set-point as ``step_action`` (a step-frame action) does: how a scripted
    policy, which plans set-point steps, acts in the carry frame. Exact for |step| <= 1."""
    out = np.array(step_action, dtype=np.float64)
    wanted = setpoint_pos[:2] + out[:2] * control.max_translation_m - aligned_tcp_xy
    out[:2] = np.clip(np.arcsinh(wanted / control.carry_offset_fine_m) / _offset_scale(control), -1.0, 1.0)
    return out
