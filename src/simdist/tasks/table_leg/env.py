"""Gymnasium environment of the table-leg task (5 Hz Cartesian set-point control, as peg insertion).

The robot, controller and episode rules are :class:`simdist.tasks.ur5e.env.UR5eEnv`'s; this adds the leg, its
rack, the tabletop and the thread: where they start, their physics draw, their vector blocks, success and reward.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from simdist.tasks.base import PROPRIO_KEY
from simdist.tasks.table_leg.layout import PRIVILEGED, PROPRIO
from simdist.tasks.table_leg.model import (
    HOLE_SITE,
    LEG_BODY,
    NUT_BODY,
    RACK,
    RACK_BODY,
    TABLETOP,
    TABLETOP_BODY,
    build_model,
)
from simdist.tasks.table_leg.physics import TableLegPhysics, sample_physics
from simdist.tasks.table_leg.reward import LegState, dense_reward, is_seated
from simdist.tasks.table_leg.thread import Thread, thread_geometry
from simdist.tasks.ur5e.actions import ACTION_DIM, ControlConfig
from simdist.tasks.ur5e.env import UR5eEnv
from simdist.tasks.ur5e.rotations import rot6, yaw_of, yaw_quat

__all__ = ["ACTION_DIM", "CONTROL", "InitialCondition", "TableLegEnv"]

# Peg insertion's controller settings; the workspace floor keeps the pads above the tabletop and the rack.
CONTROL = ControlConfig(workspace_low=(0.15, -0.55, 0.05))
LEG_REST_CLEARANCE_M = 1e-4  # the leg starts this far above the rack, so it never starts in penetration


@dataclass(frozen=True)
class InitialCondition:
    """Where an episode starts: the leg standing in its rack, the tabletop (offset from nominal), the arm at home."""

    rack_xy: tuple[float, float]
    leg_yaw: float
    tabletop_offset_xy: tuple[float, float] = (0.0, 0.0)
    tabletop_yaw: float = 0.0
    home_offset_m: tuple[float, float, float] = (0.0, 0.0, 0.0)


class TableLegEnv(UR5eEnv):
    proprio_layout = PROPRIO
    initial_condition_type = InitialCondition
    default_control = CONTROL

    # ------------------------------------------------------------------------------------------------ scene
    def _build_model(self, physics: TableLegPhysics) -> mujoco.MjModel:
        return build_model(physics)

    def _sample_physics(self, rng: np.random.Generator):
        return sample_physics(self.physics, rng)

    def _index_objects(self) -> None:
        m = self.model
        self.leg_body = m.body(LEG_BODY).id
        self.leg_qpos = m.joint(LEG_BODY).qposadr[0]
        self.leg_dof = m.joint(LEG_BODY).dofadr[0]
        self.leg_geoms = np.flatnonzero(m.geom_bodyid == self.leg_body)
        self.tabletop_body = m.body(TABLETOP_BODY).id
        self.rack_body = m.body(RACK_BODY).id
        self.hole_site = m.site(HOLE_SITE).id
        self.tabletop_geoms = np.flatnonzero(m.geom_bodyid == self.tabletop_body)
        self.thread = Thread(m)

    def _object_bodies(self) -> list[int]:
        return [self.leg_body, self.tabletop_body, self.rack_body, self.model.body(NUT_BODY).id]

    def _apply_object_physics(self) -> None:
        m, p = self.model, self.draw
        m.geom_friction[self.tabletop_geoms, 0] = p["tabletop_friction_range"]
        self._set_body_mass(self.leg_body, p["leg_mass_range_kg"])

    def _place_objects(self, ic: InitialCondition) -> None:
        m, d, p = self.model, self.data, self.draw
        m.body_pos[self.tabletop_body, :2] = np.array(TABLETOP.centre_xy) + np.array(ic.tabletop_offset_xy)
        m.body_quat[self.tabletop_body] = yaw_quat(ic.tabletop_yaw)
        m.body_pos[self.rack_body, :2] = ic.rack_xy
        self.thread.reset(
            d,
            p["thread_friction_torque_range_nm"],
            p["engage_max_tilt_range_rad"],
            p["cross_thread_tilt_range_rad"],
            p["thread_start_turns_range"],
            self.physics.seated_turns,
        )
        d.qpos[self.leg_qpos : self.leg_qpos + 3] = [ic.rack_xy[0], ic.rack_xy[1], RACK.height + LEG_REST_CLEARANCE_M]
        d.qpos[self.leg_qpos + 3 : self.leg_qpos + 7] = yaw_quat(ic.leg_yaw)

    def _after_control_step(self) -> None:
        self._update_thread()

    def _update_thread(self) -> None:
        """Catch, advance or jam the thread from the leg's pose (tests call it on constructed states)."""
        d = self.data
        geometry = thread_geometry(
            d.xpos[self.leg_body], d.xmat[self.leg_body].reshape(3, 3), d.site_xpos[self.hole_site]
        )
        self.thread.update(d, geometry, yaw_of(d.xmat[self.tabletop_body].reshape(3, 3)))

    # ------------------------------------------------------------------------------------------------ vectors
    def _privileged(self) -> np.ndarray:
        d, thread = self.data, self.thread
        tabletop_yaw = yaw_of(d.xmat[self.tabletop_body].reshape(3, 3))
        tabletop_force, pad_force = self._part_contact_forces(self.leg_geoms, self.tabletop_body)
        return PRIVILEGED.pack(
            {
                **self._robot_privileged(),
                "leg_pos": d.xpos[self.leg_body],
                "leg_rot6": rot6(d.xmat[self.leg_body].reshape(3, 3)),
                "leg_linvel": d.qvel[self.leg_dof : self.leg_dof + 3],
                "leg_angvel": d.qvel[self.leg_dof + 3 : self.leg_dof + 6],
                "hole_pos": d.site_xpos[self.hole_site],
                "hole_yaw": [np.cos(tabletop_yaw), np.sin(tabletop_yaw)],
                "thread_engaged": float(thread.engaged),
                "thread_cross_threaded": float(thread.cross_threaded),
                "thread_turns": thread.read_turns(d),
                "thread_start_turns_left": thread.start_angle_left / (2 * np.pi),
                "leg_tabletop_force": tabletop_force,
                "leg_pad_force": pad_force,
                "physics": self.draw.as_vector(),
            }
        )

    def _observation(self) -> dict[str, np.ndarray]:
        d, p, rng = self.data, self.draw, self._rng
        pos_noise, angle_noise = p["perception_position_noise_range_m"], p["perception_angle_noise_range_rad"]
        leg_rot = d.xmat[self.leg_body].reshape(3, 3)
        leg_axis = leg_rot[:, 2] + rng.normal(0.0, angle_noise, 3)
        leg_yaw = yaw_of(leg_rot) + rng.normal(0.0, angle_noise)
        tabletop_yaw = yaw_of(d.xmat[self.tabletop_body].reshape(3, 3)) + rng.normal(0.0, angle_noise)
        # Dict order is the order of the random draws: keep it (reproducible observations for a seed).
        proprio = PROPRIO.pack(
            {
                **self._robot_proprio(),
                "leg_pos_est": d.xpos[self.leg_body] + self.perception_bias[0] + rng.normal(0.0, pos_noise, 3),
                "leg_axis_est": leg_axis / np.linalg.norm(leg_axis),
                "leg_yaw_est": [np.cos(leg_yaw), np.sin(leg_yaw)],
                "hole_pos_est": d.site_xpos[self.hole_site] + self.perception_bias[1] + rng.normal(0.0, pos_noise, 3),
                "tabletop_yaw_est": [np.cos(tabletop_yaw), np.sin(tabletop_yaw)],
            }
        )
        return {PROPRIO_KEY: proprio}

    # ------------------------------------------------------------------------------------------------ outcome
    def _task_state(self, privileged: np.ndarray) -> LegState:
        return LegState.from_privileged(privileged)

    def _is_success(self, state: LegState) -> bool:
        return is_seated(state, self.physics.seated_turns)

    def _dense_reward(self, state: LegState, action: np.ndarray, success: bool) -> float:
        return dense_reward(state, action, success, self.physics.seated_turns)
