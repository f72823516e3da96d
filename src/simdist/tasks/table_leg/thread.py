"""The thread: when the stud sits upright in the lead-in, weld the leg to the helical nut; report turns and seating.

Checked once per control step (5 Hz). Before engagement the stud rests on the lead-in's floor (a real contact);
on engagement the leg's contacts with the static scene are switched off and a weld ties it to the nut, whose hinge
and slide are coupled by the pitch, so the only motion left to the leg is the helix. The weld snaps the leg onto
the hole axis (it is already within the lead-in's clearance and the engagement tilt). Engaging more tilted than
``cross_thread_tilt`` cross-threads: the nut's friction jumps to ``JAM_TORQUE_NM`` and the leg binds.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from simdist.tasks.table_leg.model import (
    LEG,
    LEG_BODY,
    NUT_BODY,
    TABLETOP,
    THREAD_ADVANCE_JOINT,
    THREAD_TURN_JOINT,
    THREAD_WELD,
)
from simdist.tasks.ur5e.rotations import wrap_angle

JAM_TORQUE_NM = 5.0
SEATED_TURN_TOLERANCE = 0.05  # seated once within this many turns of the end of the thread
LEAD_IN_SLACK_M = 0.0007  # the stud counts as resting on the lead-in floor within this height
LATERAL_TOLERANCE_M = 0.0015  # stud axis to hole axis (the lead-in itself allows about 0.5 mm)


@dataclass(frozen=True)
class ThreadGeometry:
    """Where the stud is relative to the hole, from the leg's shoulder pose."""

    stud_tip_depth: float  # below the hole mouth (positive = inside)
    lateral: float  # stud tip to the hole axis, horizontal
    tilt: float  # leg axis to vertical, rad
    yaw: float  # heading of the leg's x axis


def thread_geometry(leg_pos: np.ndarray, leg_rot: np.ndarray, hole_pos: np.ndarray) -> ThreadGeometry:
    tip = leg_pos - leg_rot[:, 2] * LEG.stud_length
    return ThreadGeometry(
        stud_tip_depth=float(hole_pos[2] - tip[2]),
        lateral=float(np.linalg.norm(tip[:2] - hole_pos[:2])),
        tilt=float(np.arccos(np.clip(leg_rot[2, 2], -1.0, 1.0))),
        yaw=float(np.arctan2(leg_rot[1, 0], leg_rot[0, 0])),
    )


class Thread:
    """Engagement state machine of one env; ``update`` runs after each control step."""

    def __init__(self, model: mujoco.MjModel):
        self.model = model
        self.weld = model.equality(THREAD_WELD).id
        self.turn_qpos = model.joint(THREAD_TURN_JOINT).qposadr[0]
        self.advance_qpos = model.joint(THREAD_ADVANCE_JOINT).qposadr[0]
        self.turn_dof = model.joint(THREAD_TURN_JOINT).dofadr[0]
        self.nut_dofs = [self.turn_dof, model.joint(THREAD_ADVANCE_JOINT).dofadr[0]]
        self.leg_geoms = np.flatnonzero(model.geom_bodyid == model.body(LEG_BODY).id)
        self.leg_conaffinity = model.geom_conaffinity[self.leg_geoms].copy()
        self.nut_body = model.body(NUT_BODY).id

    def reset(
        self,
        data: mujoco.MjData,
        friction_torque: float,
        engage_tilt: float,
        cross_tilt: float,
        start_turns: float,
        seated_turns: float,
    ) -> None:
        self.friction_torque, self.engage_tilt, self.cross_tilt = friction_torque, engage_tilt, cross_tilt
        self.seated_turns = seated_turns
        self.start_angle_left = 2 * np.pi * start_turns
        self.engaged = self.cross_threaded = False
        self._last_yaw: float | None = None
        self._turns = 0.0
        data.eq_active[self.weld] = 0
        data.qpos[[self.turn_qpos, self.advance_qpos]] = 0.0
        data.qvel[self.nut_dofs] = 0.0
        self.model.geom_conaffinity[self.leg_geoms] = self.leg_conaffinity
        self.model.dof_frictionloss[self.turn_dof] = friction_torque

    @property
    def turns(self) -> float:
        return self._turns

    def read_turns(self, data: mujoco.MjData) -> float:
        self._turns = float(data.qpos[self.turn_qpos] / (2 * np.pi)) if self.engaged else 0.0
        return self._turns

    def seated(self, data: mujoco.MjData) -> bool:
        return (
            self.engaged
            and not self.cross_threaded
            and self.read_turns(data) >= self.seated_turns - SEATED_TURN_TOLERANCE
        )

    def update(self, data: mujoco.MjData, geometry: ThreadGeometry, tabletop_yaw: float) -> None:
        if self.engaged:
            return
        resting = (
            geometry.stud_tip_depth >= TABLETOP.lead_in_depth - LEAD_IN_SLACK_M
            and geometry.lateral < LATERAL_TOLERANCE_M
        )
        if not resting:
            self._last_yaw = None
            return
        if self._last_yaw is not None:  # tightening turns the leg clockwise seen from above (yaw decreases)
            self.start_angle_left = max(0.0, self.start_angle_left + wrap_angle(geometry.yaw - self._last_yaw))
        self._last_yaw = geometry.yaw
        if geometry.tilt <= self.engage_tilt and self.start_angle_left <= 0.0:
            self._engage(data, geometry, tabletop_yaw)

    def _engage(self, data: mujoco.MjData, geometry: ThreadGeometry, tabletop_yaw: float) -> None:
        self.engaged = True
        self.cross_threaded = geometry.tilt > self.cross_tilt
        relative_yaw = geometry.yaw - tabletop_yaw
        # relpose of the leg in the nut frame: same origin (the nut sits where the shoulder rests), yaw kept.
        self.model.eq_data[self.weld, 3:6] = 0.0
        self.model.eq_data[self.weld, 6:10] = [np.cos(relative_yaw / 2), 0.0, 0.0, np.sin(relative_yaw / 2)]
        self.model.eq_data[self.weld, 10] = 1.0
        data.qpos[[self.turn_qpos, self.advance_qpos]] = 0.0
        data.qvel[self.nut_dofs] = 0.0
        data.eq_active[self.weld] = 1
        self.model.geom_conaffinity[self.leg_geoms] = (
            0  # the helix now carries the leg; its hole contacts would fight it
        )
        if self.cross_threaded:
            self.model.dof_frictionloss[self.turn_dof] = JAM_TORQUE_NM
