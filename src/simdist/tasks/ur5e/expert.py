"""Goal-to-action step shared by the UR5e tasks' scripted experts (their phase logic stays in each task)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simdist.tasks.ur5e.actions import ACTION_DIM, GRIPPER_ACTION, ControlConfig
from simdist.tasks.ur5e.robot import GRIPPER
from simdist.tasks.ur5e.rotations import rotation_error

CLOSE, OPEN = 1.0, -1.0  # gripper action values (> 0 closes)
FINE_ZONE_M = 0.015  # within this TCP distance of a goal the expert corrects by the measured error


def settling_grip(closing_on_part: bool, grasped: bool, opening: float, part_width: float) -> bool:
    """Pads closing around the part but not yet on it: the expert holds still. Lifting while they close grips the
    part by its top, where contact later pivots it out of the pads; waiting makes the lift follow an observation (the
    opening at the part's width), which a learner can time, instead of the step after the close command."""
    return closing_on_part and not grasped and opening >= part_width + GRIPPER.hold_band_above_m


@dataclass(frozen=True)
class Goal:
    tcp_pos: np.ndarray
    tool_rot: np.ndarray
    gripper: float
    push_m: float = 0.0  # > 0: hold the set-point this far below the TCP (insertion force)


def goal_to_action(
    goal: Goal,
    tcp_pos: np.ndarray,
    tcp_rot: np.ndarray,
    setpoint_pos: np.ndarray,
    control: ControlConfig,
    fine_gain: float,
    action_scale: float,
    turn_rz: float = 0.0,
) -> np.ndarray:
    """Far from the goal, jump the set-point to it; near it, correct the set-point by the *measured* error
    (integral action that removes tracking offsets such as sag). ``turn_rz`` adds a world-z rotation command."""
    error = goal.tcp_pos - tcp_pos
    if np.linalg.norm(error) > FINE_ZONE_M:
        setpoint_goal = goal.tcp_pos.copy()
    else:
        setpoint_goal = setpoint_pos + fine_gain * error
    if goal.push_m > 0:
        setpoint_goal[2] = tcp_pos[2] - goal.push_m
    action = np.zeros(ACTION_DIM)
    action[:3] = (setpoint_goal - setpoint_pos) / control.max_translation_m
    action[3:6] = fine_gain * rotation_error(goal.tool_rot, tcp_rot) / control.max_rotation_rad
    if turn_rz:  # adding +-0.0 would change nothing, so a zero turn is skipped
        action[5] += turn_rz
    action[:6] = np.clip(action[:6] * action_scale, -1.0, 1.0)
    action[GRIPPER_ACTION] = goal.gripper
    return action
