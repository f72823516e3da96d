"""Privileged scripted expert and its degraded (sub-optimal) variants (scripted for the reasons given in
simdist.tasks.peg_insertion.expert: PPO on this CPU box would take hours per seed).

Phases, re-derived from the state at every step (reactive, so it recovers after noise windows and hand-overs):
pick the leg from its rack while winding the wrist back (a right-hand thread needs about 1.5 wrist turns and the
UR5e wrist has +-2 pi), carry the stud over the hole, straighten the leg, lower the stud into the lead-in, then
press lightly and turn clockwise (seen from above) until seated.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from simdist.tasks.table_leg.env import ACTION_DIM, CONTROL
from simdist.tasks.table_leg.layout import PRIVILEGED
from simdist.tasks.table_leg.model import LEG, RACK, TABLETOP
from simdist.tasks.table_leg.reward import LegState
from simdist.tasks.ur5e.expert import CLOSE, OPEN, Goal, goal_to_action, settling_grip
from simdist.tasks.ur5e.robot import ARM
from simdist.tasks.ur5e.rotations import cross3, rotvec_to_matrix

TIGHTEN_RZ = -1.0  # sign of the world-z rotation that tightens (clockwise from above); it increases wrist 3
WRIST_LIMIT_RAD = ARM.joint_limit  # UR5e wrist 3: +-360 deg


@dataclass(frozen=True)
class ExpertTuning:
    name: str = "expert"
    hover_m: float = 0.05
    carry_clearance_m: float = 0.01  # stud tip above the hole mouth while aligning
    grasp_tolerance_m: float = 0.003
    align_tolerance_m: float = 0.0005  # stud-hole xy error allowed before lowering into the lead-in
    tilt_tolerance_rad: float = 0.015
    fine_gain: float = 0.7
    insert_push_m: float = 0.004  # set-point lead below the TCP while lowering/turning (sets the press force)
    turn_rate: float = 0.8  # |action rz| while turning (0.2 rad per step at 1.0)
    windup_wrist_rad: float = -5.0  # wrist-3 angle to reach before grasping, leaving room for 1.5+ turns
    windup_tolerance_rad: float = 0.3
    wrist_margin_rad: float = 0.35  # regrasp this close to the wrist limit
    regrasp_unwind_rad: float = 3.0
    # --- degradations used by the sub-optimal policies ------------------------------------------------------
    hole_bias_m: tuple[float, float] = (0.0, 0.0)
    straighten: bool = True  # correct the leg's tilt in the grasp before inserting
    windup: bool = True
    action_scale: float = 1.0
    release_when_engaged: bool = False  # lets go once the thread catches (never turns)
    random_action_prob: float = 0.0


class ScriptedExpert:
    """A :class:`~simdist.tasks.base.PrivilegedPolicy` for the table-leg task."""

    def __init__(self, tuning: ExpertTuning = ExpertTuning()):
        self.tuning = tuning
        self.name = tuning.name
        self._rng = np.random.default_rng(0)
        self._unwind_to: float | None = None  # wrist angle to turn back to during a regrasp

    def reset(self, rng: np.random.Generator) -> None:
        self._rng = rng
        self._unwind_to = None

    def act(self, privileged: np.ndarray) -> np.ndarray:
        t = self.tuning
        if t.random_action_prob > 0 and self._rng.random() < t.random_action_prob:
            return self._rng.uniform(-1.0, 1.0, ACTION_DIM)
        state = LegState.from_privileged(privileged)
        setpoint_pos = PRIVILEGED.get(privileged, "setpoint_pos")
        closing_on_leg = state.gripper_closing and self._closing_on_leg(state)
        if state.engaged:
            goal, turn = self._turn(state)
        elif settling_grip(closing_on_leg, state.grasped, state.gripper_opening, 2 * LEG.radius):
            goal, turn = Goal(state.tcp_pos.copy(), state.tcp_rot, CLOSE), 0.0
        elif state.grasped or closing_on_leg:
            goal, turn = self._carry_and_insert(state)
        else:
            goal, turn = self._pick(state), 0.0
        return self._to_action(state, setpoint_pos, goal, turn)

    # ------------------------------------------------------------------------------------------------ phases
    @staticmethod
    def _closing_on_leg(state: LegState) -> bool:
        offset = state.tcp_pos - state.grasp_point
        return bool(np.linalg.norm(offset[:2]) < 0.006 and abs(offset[2]) < 0.006)

    def _windup_rotation(self, state: LegState) -> np.ndarray:
        """Tool rotation target: pointing down, and wrist 3 turned back towards the wind-up angle."""
        remaining = state.wrist_angle - self.tuning.windup_wrist_rad if self.tuning.windup else 0.0
        step = float(np.clip(remaining, -0.2, 0.2))  # loosening direction is +z, which lowers wrist 3
        down = _upright_rotation(-state.tcp_rot[:, 2])  # tool z to straight down
        return rotvec_to_matrix(np.array([0.0, 0.0, step])) @ down @ state.tcp_rot

    def _pick(self, state: LegState) -> Goal:
        t = self.tuning
        grasp = state.grasp_point
        tool_rot = self._windup_rotation(state)
        xy_error = float(np.linalg.norm(grasp[:2] - state.tcp_pos[:2]))
        wound = not t.windup or abs(state.wrist_angle - t.windup_wrist_rad) < t.windup_tolerance_rad
        if state.gripper_closing or state.gripper_opening < 2 * LEG.radius + 0.02:
            up = np.array([*state.tcp_pos[:2], max(state.tcp_pos[2], grasp[2] + 0.02)])
            return Goal(up, tool_rot, OPEN)
        if xy_error > t.grasp_tolerance_m or not wound:
            height = grasp[2] + t.hover_m
            if xy_error < 0.02:
                height = max(grasp[2] + 0.02, min(state.tcp_pos[2], height))
            return Goal(np.array([grasp[0], grasp[1], height]), tool_rot, OPEN)
        at_height = abs(state.tcp_pos[2] - grasp[2]) < 0.003
        return Goal(grasp, tool_rot, CLOSE if at_height else OPEN)

    def _carry_and_insert(self, state: LegState) -> tuple[Goal, float]:
        t = self.tuning
        hole = state.hole_pos + np.array([*t.hole_bias_m, 0.0])
        tip = state.stud_tip
        error_xy = hole[:2] - tip[:2]
        xy_error = float(np.linalg.norm(error_xy))
        tool_rot = (_upright_rotation(state.axis) if t.straighten else np.eye(3)) @ state.tcp_rot
        tip_above_mouth = tip[2] - hole[2]
        carry_z = state.tcp_pos[2] + (t.carry_clearance_m - tip_above_mouth)
        if xy_error > 0.01:
            clear_of_rack = tip[2] > RACK.height + 0.005 and tip_above_mouth > 0.5 * t.carry_clearance_m
            if not clear_of_rack:  # lift straight up first (out of the rack, or off the tabletop)
                lift_z = state.tcp_pos[2] + max(0.0, RACK.height + 0.01 - tip[2], t.carry_clearance_m - tip_above_mouth)
                return Goal(np.array([*state.tcp_pos[:2], lift_z]), tool_rot, CLOSE), 0.0
            return Goal(np.array([*(state.tcp_pos[:2] + error_xy), carry_z]), tool_rot, CLOSE), 0.0
        fine_xy = state.tcp_pos[:2] + error_xy
        in_lead_in = tip_above_mouth < -0.5 * TABLETOP.lead_in_depth and xy_error < 0.0015
        aligned = xy_error < t.align_tolerance_m and state.tilt < t.tilt_tolerance_rad
        if (
            in_lead_in
        ):  # resting in the lead-in: press and turn (regrasping at the wrist limit) until the thread catches
            return self._turn(state)
        if not aligned:
            z = carry_z if tip_above_mouth > 0 else state.tcp_pos[2] + 0.004  # back out if caught on the rim
            return Goal(np.array([*fine_xy, z]), tool_rot, CLOSE), 0.0
        return Goal(np.array([*fine_xy, state.tcp_pos[2]]), tool_rot, CLOSE, push_m=t.insert_push_m), 0.0

    def _turn(self, state: LegState) -> tuple[Goal, float]:
        """Turn the engaged leg; near the wrist limit let go, turn the wrist back by ``regrasp_unwind_rad`` and
        grip again (the thread holds the leg meanwhile), as a person screwing with one hand would."""
        t = self.tuning
        tool_rot = _upright_rotation(-state.tcp_rot[:, 2]) @ state.tcp_rot
        hold = state.tcp_pos.copy()
        if t.release_when_engaged:
            return Goal(hold, tool_rot, OPEN), 0.0
        at_limit = state.wrist_angle > WRIST_LIMIT_RAD - t.wrist_margin_rad
        if state.gripper_closing and not at_limit:
            self._unwind_to = None
            holding = state.gripper_opening < 2 * LEG.radius + 0.003
            return Goal(hold, tool_rot, CLOSE, push_m=0.5 * t.insert_push_m), (t.turn_rate if holding else 0.0)
        if self._unwind_to is None:
            self._unwind_to = state.wrist_angle - t.regrasp_unwind_rad
        if state.gripper_closing or state.gripper_opening < 2 * LEG.radius + 0.01:
            return Goal(hold, tool_rot, OPEN), 0.0  # open first, without turning the leg back
        if state.wrist_angle > self._unwind_to:
            return Goal(hold, tool_rot, OPEN), -t.turn_rate  # loosening direction, fingers clear of the leg
        return Goal(hold, tool_rot, CLOSE), 0.0

    # ------------------------------------------------------------------------------------------------ action
    def _to_action(self, state: LegState, setpoint_pos: np.ndarray, goal: Goal, turn: float) -> np.ndarray:
        t = self.tuning
        return goal_to_action(
            goal,
            state.tcp_pos,
            state.tcp_rot,
            setpoint_pos,
            CONTROL,
            t.fine_gain,
            t.action_scale,
            turn_rz=TIGHTEN_RZ * turn,
        )


def _upright_rotation(axis: np.ndarray) -> np.ndarray:
    """Smallest rotation taking unit vector ``axis`` to world +z."""
    cross = cross3(axis, [0.0, 0.0, 1.0])
    sin_angle = float(np.linalg.norm(cross))
    if sin_angle < 1e-9:
        return np.eye(3)
    angle = float(np.arctan2(sin_angle, axis[2]))
    return rotvec_to_matrix(cross / sin_angle * angle)


def expert() -> ScriptedExpert:
    return ScriptedExpert(ExpertTuning())


def suboptimal_tunings() -> list[ExpertTuning]:
    """A ladder of degraded experts, from about the expert's success rate down to about zero."""
    base = ExpertTuning()
    return [
        replace(base, name="sluggish", action_scale=0.7),
        replace(base, name="random_mix_5", random_action_prob=0.05),
        replace(base, name="hole_bias_1mm", hole_bias_m=(0.0008, 0.0006)),
        replace(base, name="random_mix_15", random_action_prob=0.15),
        replace(base, name="no_straightening", straighten=False),
        replace(base, name="no_windup", windup=False),
        replace(base, name="random_mix_30", random_action_prob=0.3),
        replace(base, name="hole_bias_3mm", hole_bias_m=(0.0025, -0.002)),
        replace(base, name="release_when_engaged", release_when_engaged=True),
        replace(base, name="random_mix_70", random_action_prob=0.7),
        replace(base, name="random", random_action_prob=1.0),
    ]


def suboptimal_policies() -> list[ScriptedExpert]:
    return [ScriptedExpert(tuning) for tuning in suboptimal_tunings()]
