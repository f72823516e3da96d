"""The perceiving teacher: Alg. 2's expert slot filled by an expert that aims at the hole the robot perceives
(`--set data.teacher=perceiving`).

The privileged expert aligns the peg on the true hole, below the wrist camera's noise, so near the hole the
perceived offset predicts only half of its correction and a regression head learns that half (docs/findings.md,
"Near the hole, the perceived offset predicts only half"). This teacher is the same expert, with the same pick,
carry, recovery from noise windows and push, except that it aims at the hole as the observation controller
estimates it (the wrist camera's readings averaged, from above once it is there; observation_controller.py) and
searches in a growing spiral once stalled on the rim, as a robot that knows the hole only to the camera's error must.
Its aim then follows what the robot sees; measured at the same budget, it teaches the head less than the privileged
expert, its near-hole actions being mostly the search (docs/findings.md, "A teacher that aims at the perceived hole").
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from simdist.tasks.base import PROPRIO_KEY
from simdist.tasks.peg_insertion.expert import ExpertTuning, ScriptedExpert
from simdist.tasks.peg_insertion.layout import PROPRIO
from simdist.tasks.peg_insertion.observation_controller import Estimate, mean_square_yaw
from simdist.tasks.peg_insertion.perception import camera_pose
from simdist.tasks.peg_insertion.reward import PegState
from simdist.tasks.ur5e.rotations import rot6_to_matrix

# The spiral covers the camera's error on the hole (sim: about 1 mm; the capture width is 1.4 mm).
PERCEIVING_TUNING = ExpertTuning(name="perceiving_teacher", search_growth_m=0.0003, search_max_radius_m=0.003)


class PerceivingTeacher(ScriptedExpert):
    """A privileged policy that also observes: the data loop calls `observe(obs)` before each `act(privileged)`."""

    def __init__(self, tuning: ExpertTuning = PERCEIVING_TUNING):
        super().__init__(tuning)
        self._hole = Estimate()
        self._hole_yaw_sum = np.zeros(2)

    def reset(self, rng: np.random.Generator) -> None:
        super().reset(rng)
        self._hole = Estimate()
        self._hole_yaw_sum = np.zeros(2)

    def observe(self, obs: dict) -> None:
        proprio = np.asarray(obs[PROPRIO_KEY], dtype=np.float64)
        get = lambda name: PROPRIO.get(proprio, name)  # noqa: E731
        camera = camera_pose(get("tcp_pos"), rot6_to_matrix(get("tcp_rot6")))
        self._hole.add(get("hole_pos_est"), camera)
        self._hole_yaw_sum += get("hole_yaw_est")

    def _carry_and_insert(self, state: PegState):
        if self._hole.weight == 0:
            raise RuntimeError("the perceiving teacher aims at the perceived hole: call observe(obs) before act()")
        if state.insertion_depth > 0.002 and state.lateral_to_hole < 0.002:
            return super()._carry_and_insert(state)  # in the hole: the walls, felt, say where it is
        perceived = replace(state, hole_pos=self._hole.mean, hole_yaw=mean_square_yaw(self._hole_yaw_sum))
        return super()._carry_and_insert(perceived)


def perceiving_teacher() -> PerceivingTeacher:
    return PerceivingTeacher()


# Half-width of the perceived offset within which the gated teacher descends: the chamfer's capture (1.4 mm) plus a
# little: it seats as often as the expert (docs/findings.md, "A teacher whose descent the head can see").
DESCENT_GATE_M = 0.0015


class GatedTeacher(ScriptedExpert):
    """The privileged expert, aiming at the true hole, that descends only while the wrist camera's current reading
    puts the peg within `gate_m` of the hole axis. The expert's own gate (0.5 mm of true offset) lies below the
    camera's noise, so a head cannot see when it opens and learns to descend from its own past actions instead
    (docs/findings.md, "The head learns the expert's correction over the mouth on the data's states"); this gate is a
    function of one observation."""

    def __init__(self, gate_m: float = DESCENT_GATE_M, hold: bool = False):
        super().__init__(ExpertTuning(name="gated_hold_teacher" if hold else "gated_teacher"))
        self.gate_m, self.hold = gate_m, hold
        self._perceived_offset_m = np.inf

    def reset(self, rng: np.random.Generator) -> None:
        super().reset(rng)
        self._perceived_offset_m = np.inf

    def observe(self, obs: dict) -> None:
        offset = PROPRIO.get(np.asarray(obs[PROPRIO_KEY], dtype=np.float64), "peg_to_hole_est")[:2]
        self._perceived_offset_m = float(np.linalg.norm(offset))

    def _aligned(self, xy_error: float) -> bool:
        return self._perceived_offset_m < self.gate_m

    def _waiting_height(self, state: PegState, carry_z: float) -> float:
        # With `hold`, a closed gate stops the descent where it is instead of backing up to carry height: the gate
        # flickers with the camera's noise near its edge, and a head regressing on push-down-or-back-up labels
        # averages them into a hover on the rim (docs/findings.md, "A teacher whose descent the head can see").
        return min(carry_z, state.tcp_pos[2]) if self.hold else carry_z


def gated_teacher() -> GatedTeacher:
    return GatedTeacher()


def gated_hold_teacher() -> GatedTeacher:
    return GatedTeacher(hold=True)
