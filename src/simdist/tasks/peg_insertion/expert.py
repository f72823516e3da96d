"""Privileged scripted expert and its degraded (sub-optimal) variants.

Why scripted and not PPO: the paper trains its experts with PPO in IsaacLab on a GPU; PPO on this 2-core CPU box
would need hours of 5 Hz rollouts per seed. A state machine on exact poses reaches >= 95 % in `sim` in a few hundred
lines, and degrading its knobs gives a controllable ladder of sub-optimal "checkpoints" for Alg. 2.

The phase is re-derived from the state at every step (reactive), so the expert recovers after noise windows or
hand-overs from other policies; the only memory is a stall counter driving the insertion search.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from simdist.tasks.peg_insertion.env import ACTION_DIM, CONTROL
from simdist.tasks.peg_insertion.layout import PRIVILEGED
from simdist.tasks.peg_insertion.model import SCENE
from simdist.tasks.peg_insertion.reward import PegState
from simdist.tasks.peg_insertion.rotations import square_yaw_error
from simdist.tasks.ur5e.expert import CLOSE, OPEN, Goal, goal_to_action, settling_grip
from simdist.tasks.ur5e.rotations import cross3, rotation_error, rotvec_to_matrix, tool_down_rotation, yaw_of


@dataclass(frozen=True)
class ExpertTuning:
    name: str = "expert"
    hover_m: float = 0.05  # approach height of the pads above the grasp point
    carry_clearance_m: float = 0.015  # peg bottom above the hole mouth while aligning
    grasp_tolerance_m: float = 0.003  # xy error allowed before descending on the peg
    align_tolerance_m: float = 0.0005  # peg-hole xy error allowed before inserting
    yaw_tolerance_rad: float = 0.02
    fine_gain: float = 0.7  # fraction of the measured error corrected per step near a goal
    insert_push_m: float = 0.008  # set-point lead below the TCP while inserting (sets the push force)
    search_radius_m: float = 0.0006  # search amplitude once stalled on the rim
    # > 0: the search radius grows this much per stalled step up to search_max_radius_m (a spiral that can find a
    # hole the expert only knows to a millimetre or two; benchmarks/peg_perceiving_expert.py at commit 28cbc45). 0: a
    # fixed circle.
    search_growth_m: float = 0.0
    search_max_radius_m: float = 0.003
    stall_steps: int = 3
    # --- degradations used by the sub-optimal policies ------------------------------------------------------
    hole_bias_m: tuple[float, float] = (0.0, 0.0)  # constant error in the believed hole position
    yaw_bias_rad: float = 0.0
    action_scale: float = 1.0  # < 1: sluggish
    align_yaw: bool = True
    release_above_hole_m: float | None = None  # open the gripper this high above the mouth (premature release)
    release_xy_tolerance_m: float = 0.003  # ... once the peg is this close to the hole axis
    search: bool = True
    random_action_prob: float = 0.0


class ScriptedExpert:
    """A :class:`~simdist.tasks.base.PrivilegedPolicy` for the peg-insertion task."""

    def __init__(self, tuning: ExpertTuning = ExpertTuning()):
        self.tuning = tuning
        self.name = tuning.name
        self._rng = np.random.default_rng(0)
        self._stalled = 0

    def reset(self, rng: np.random.Generator) -> None:
        self._rng = rng
        self._stalled = 0

    def act(self, privileged: np.ndarray) -> np.ndarray:
        t = self.tuning
        if t.random_action_prob > 0 and self._rng.random() < t.random_action_prob:
            return self._rng.uniform(-1.0, 1.0, ACTION_DIM)
        state = PegState.from_privileged(privileged)
        setpoint_pos = PRIVILEGED.get(privileged, "setpoint_pos")
        closing_on_peg = state.gripper_closing and self._closing_on_peg(state)
        if settling_grip(closing_on_peg, state.grasped, state.gripper_opening, SCENE.peg_side):
            goal = Goal(state.tcp_pos.copy(), state.tcp_rot, CLOSE)
        elif state.grasped or closing_on_peg:
            goal = self._carry_and_insert(state)
        else:
            self._stalled = 0
            goal = self._pick(state)
        return self._to_action(state, setpoint_pos, goal)

    # ------------------------------------------------------------------------------------------------ phases
    def _closing_on_peg(self, state: PegState) -> bool:
        """Pads around the peg and still closing: keep closing rather than re-opening."""
        offset = state.tcp_pos - state.grasp_point
        return bool(np.linalg.norm(offset[:2]) < 0.006 and abs(offset[2]) < 0.006)

    @staticmethod
    def _tool_yaw_towards(state: PegState, square_yaw: float) -> float:
        """Tool yaw aligning the fingers with a square of heading ``square_yaw`` with the least rotation."""
        tool_yaw = yaw_of(state.tcp_rot)
        return tool_yaw + square_yaw_error(square_yaw, tool_yaw)

    def _pick(self, state: PegState) -> Goal:
        t = self.tuning
        grasp = state.grasp_point
        tool_rot = tool_down_rotation(self._tool_yaw_towards(state, yaw_of(state.peg_rot)))
        xy_error = float(np.linalg.norm(grasp[:2] - state.tcp_pos[:2]))
        yaw_error = float(np.linalg.norm(rotation_error(tool_rot, state.tcp_rot)))
        if state.gripper_closing or state.gripper_opening < SCENE.peg_side + 0.02:
            # Closed on nothing (missed) or not yet open: open, and back off upwards if low.
            up = np.array([*state.tcp_pos[:2], max(state.tcp_pos[2], grasp[2] + 0.02)])
            return Goal(up, tool_rot, OPEN)
        if xy_error > t.grasp_tolerance_m or yaw_error > 0.05:
            height = grasp[2] + t.hover_m
            if xy_error < 0.02:  # close above the peg: a gentler descent keeps the pads clear of it
                height = max(grasp[2] + 0.02, min(state.tcp_pos[2], height))
            return Goal(np.array([grasp[0], grasp[1], height]), tool_rot, OPEN)
        at_height = abs(state.tcp_pos[2] - grasp[2]) < 0.003
        return Goal(grasp, tool_rot, CLOSE if at_height else OPEN)

    def _carry_and_insert(self, state: PegState) -> Goal:
        t = self.tuning
        hole = state.hole_pos + np.array([t.hole_bias_m[0], t.hole_bias_m[1], 0.0])
        peg_error_xy = hole[:2] - state.peg_pos[:2]
        xy_error = float(np.linalg.norm(peg_error_xy))
        hole_yaw = state.hole_yaw + t.yaw_bias_rad
        yaw_error = square_yaw_error(hole_yaw, yaw_of(state.peg_rot)) if t.align_yaw else 0.0
        tool_rot = _upright_peg_rotation(state) @ rotvec_to_matrix(np.array([0.0, 0.0, yaw_error])) @ state.tcp_rot
        bottom_above_mouth = state.peg_bottom_z - hole[2]
        carry_z = state.tcp_pos[2] + (t.carry_clearance_m - bottom_above_mouth)
        if xy_error > 0.01:
            if bottom_above_mouth < 0.5 * t.carry_clearance_m:  # lift clear of the fixture before travelling
                return Goal(np.array([*state.tcp_pos[:2], carry_z]), tool_rot, CLOSE)
            return Goal(np.array([*(state.tcp_pos[:2] + peg_error_xy), carry_z]), tool_rot, CLOSE)
        fine_xy = state.tcp_pos[:2] + peg_error_xy
        if (
            t.release_above_hole_m is not None
            and bottom_above_mouth < t.release_above_hole_m
            and xy_error < t.release_xy_tolerance_m
        ):
            return Goal(np.array([*fine_xy, state.tcp_pos[2]]), tool_rot, OPEN)
        upright = abs(yaw_error) < t.yaw_tolerance_rad and state.peg_tilt < t.yaw_tolerance_rad
        aligned = self._aligned(xy_error) and upright
        inserting = state.insertion_depth > 0.002 and state.lateral_to_hole < 0.002
        if not (aligned or inserting):
            self._stalled = 0
            # Above the mouth: wait at carry height; below it: back out if wedged on the rim.
            z = self._waiting_height(state, carry_z) if bottom_above_mouth > 0 else state.tcp_pos[2] + 0.005
            return Goal(np.array([*fine_xy, z]), tool_rot, CLOSE)
        # Insert: push down with a bounded set-point lead; spiral around the hole axis if stalled on the rim.
        stuck_on_rim = state.insertion_depth < 0.001
        self._stalled = self._stalled + 1 if stuck_on_rim else 0
        if t.search and self._stalled >= t.stall_steps:
            fine_xy = fine_xy + self.search_offset(self._stalled)
        return Goal(np.array([*fine_xy, state.tcp_pos[2]]), tool_rot, CLOSE, push_m=t.insert_push_m)

    def _aligned(self, xy_error: float) -> bool:
        """Whether the peg is over the hole enough to insert (yaw and tilt are checked beside it)."""
        return xy_error < self.tuning.align_tolerance_m

    def _waiting_height(self, state: PegState, carry_z: float) -> float:
        """The tool height to hold while the peg is over the mouth but not aligned: back up to carry clearance."""
        return carry_z

    def search_offset(self, stalled: int) -> np.ndarray:
        """xy offset of the set-point from the believed hole axis after ``stalled`` steps on the rim."""
        t = self.tuning
        radius = min(t.search_radius_m + t.search_growth_m * (stalled - t.stall_steps), t.search_max_radius_m)
        angle = 1.3 * stalled
        return radius * np.array([np.cos(angle), np.sin(angle)])

    # ------------------------------------------------------------------------------------------------ action
    def _to_action(self, state: PegState, setpoint_pos: np.ndarray, goal: Goal) -> np.ndarray:
        t = self.tuning
        return goal_to_action(goal, state.tcp_pos, state.tcp_rot, setpoint_pos, CONTROL, t.fine_gain, t.action_scale)


def _upright_peg_rotation(state: PegState) -> np.ndarray:
    """Rotation turning the held peg's long axis to vertical."""
    axis = state.peg_rot[:, 2] * np.sign(state.peg_rot[2, 2] or 1.0)
    return rotvec_to_matrix(cross3(axis, [0.0, 0.0, 1.0]) * _angle_factor(axis))


def _angle_factor(axis: np.ndarray) -> float:
    sin_angle = float(np.linalg.norm(cross3(axis, [0.0, 0.0, 1.0])))
    return float(np.arcsin(np.clip(sin_angle, 0.0, 1.0)) / sin_angle) if sin_angle > 1e-9 else 0.0


def expert() -> ScriptedExpert:
    return ScriptedExpert(ExpertTuning())


# The teleoperation stand-in for `real` demonstrations: the same controller correcting 0.4 instead of 0.7 of the
# measured error per step. A human operator moves carefully near the hole; the expert's faster loop, against the
# real arm's 50 ms latency and soft servo, limit-cycles at the hole mouth (`real`: 0.00 vs 1.00 Narrow;
# docs/tasks/peg-insertion.md). Never used for simulation data.
TELEOPERATOR = ExpertTuning(name="teleoperator", fine_gain=0.4)


def teleoperator() -> ScriptedExpert:
    return ScriptedExpert(TELEOPERATOR)


def suboptimal_tunings() -> list[ExpertTuning]:
    """A ladder of degraded experts, from about the expert's success rate down to about zero."""
    base = ExpertTuning()
    return [
        replace(base, name="no_search", search=False),
        replace(base, name="sluggish", action_scale=0.35),  # succeeds, but slowly (lower return)
        replace(base, name="hole_bias_1mm", hole_bias_m=(0.0007, 0.0007)),
        replace(base, name="yaw_bias", yaw_bias_rad=0.06),
        replace(base, name="random_mix_30", random_action_prob=0.3),
        replace(base, name="skip_yaw_alignment", align_yaw=False),
        replace(base, name="hole_bias_4mm", hole_bias_m=(0.003, -0.0025)),
        replace(base, name="premature_release", release_above_hole_m=0.03, release_xy_tolerance_m=0.008),
        replace(base, name="random_mix_15", random_action_prob=0.15),
        replace(base, name="random_mix_70", random_action_prob=0.7),
        replace(base, name="random", random_action_prob=1.0),
    ]


def suboptimal_policies() -> list[ScriptedExpert]:
    return [ScriptedExpert(tuning) for tuning in suboptimal_tunings()]
