"""Gymnasium environment of the peg-insertion task (5 Hz Cartesian set-point control of a UR5e-like arm).

The robot, controller and episode rules are :class:`simdist.tasks.ur5e.env.UR5eEnv`'s; this adds the peg and
the fixture: where they start, their physics draw, their blocks of the two vectors, success and reward.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from simdist.tasks.base import PROPRIO_KEY, WRENCH_KEY
from simdist.tasks.peg_insertion.layout import PRIVILEGED, PROPRIO, aligned_tcp_xy, relative_features
from simdist.tasks.peg_insertion.model import FIXTURE_BODY, PEG_BODY, SCENE, build_model
from simdist.tasks.peg_insertion.perception import camera_pose, handeye_offset, noise_std
from simdist.tasks.peg_insertion.physics import PegPhysics, sample_physics
from simdist.tasks.peg_insertion.reward import PegState, dense_reward, is_seated
from simdist.tasks.peg_insertion.rotations import yaw_features
from simdist.tasks.ur5e.actions import ACTION_DIM, ControlConfig
from simdist.tasks.ur5e.env import UR5eEnv
from simdist.tasks.ur5e.robot import TABLE_GEOM
from simdist.tasks.ur5e.rotations import rot6, yaw_of, yaw_quat

__all__ = ["ACTION_DIM", "CARRY_FRAME_CONTROL", "CONTROL", "ControlConfig", "InitialCondition", "PegInsertionEnv"]

PEG_REST_CLEARANCE_M = 1e-4  # the peg starts this far above the table, so it never starts in penetration


@dataclass(frozen=True)
class InitialCondition:
    """Where an episode starts: the peg on the table, the fixture (offset from nominal), the arm at home."""

    peg_xy: tuple[float, float]
    peg_yaw: float
    hole_offset_xy: tuple[float, float] = (0.0, 0.0)
    hole_yaw: float = 0.0
    home_offset_m: tuple[float, float, float] = (0.0, 0.0, 0.0)  # start pose of the TCP relative to home


CONTROL = ControlConfig()
# The pads hold the peg when the gripper, closing, is open less than the peg's side plus 5 mm.
CARRY_FRAME_CONTROL = ControlConfig(carry_frame="perceived-target", hold_width_m=SCENE.peg_side + 0.005)


class PegInsertionEnv(UR5eEnv):
    proprio_layout = PROPRIO
    observes_wrench = True
    perceives_alignment = True
    initial_condition_type = InitialCondition
    default_control = CONTROL

    # ------------------------------------------------------------------------------------------------ scene
    def _build_model(self, physics: PegPhysics) -> mujoco.MjModel:
        return build_model(physics)

    def _sample_physics(self, rng: np.random.Generator):
        return sample_physics(self.physics, rng)

    def _index_objects(self) -> None:
        m = self.model
        self.peg_body = m.body(PEG_BODY).id
        self.peg_qpos = m.joint("peg").qposadr[0]
        self.peg_dof = m.joint("peg").dofadr[0]
        self.peg_geoms = np.array([m.geom("peg").id])
        self.fixture_body = m.body(FIXTURE_BODY).id
        self.hole_site = m.site("hole_top").id
        self.fixture_geoms = np.flatnonzero(m.geom_bodyid == self.fixture_body)
        self.table_geom = m.geom(TABLE_GEOM).id

    def _object_bodies(self) -> list[int]:
        return [self.peg_body, self.fixture_body]

    def _apply_object_physics(self) -> None:
        m, p = self.model, self.draw
        m.geom_friction[self.fixture_geoms, 0] = p["peg_hole_friction_range"]
        m.geom_friction[self.table_geom, 0] = p["table_friction_range"]
        self._set_body_mass(self.peg_body, p["peg_mass_range_kg"])

    def _place_objects(self, ic: InitialCondition) -> None:
        m, d = self.model, self.data
        m.body_pos[self.fixture_body, :2] = np.array(SCENE.fixture_xy) + np.array(ic.hole_offset_xy)
        m.body_quat[self.fixture_body] = yaw_quat(ic.hole_yaw)
        d.qpos[self.peg_qpos : self.peg_qpos + 3] = [
            ic.peg_xy[0],
            ic.peg_xy[1],
            SCENE.peg_length / 2 + PEG_REST_CLEARANCE_M,
        ]
        d.qpos[self.peg_qpos + 3 : self.peg_qpos + 7] = yaw_quat(ic.peg_yaw)

    @property
    def _hole_offset(self) -> np.ndarray:
        return np.array([self.physics.hole_estimate_offset_x_m, self.physics.hole_estimate_offset_y_m, 0.0])

    # ------------------------------------------------------------------------------------------------ vectors
    def _privileged(self) -> np.ndarray:
        d = self.data
        hole_yaw = yaw_of(d.xmat[self.fixture_body].reshape(3, 3))
        fixture_force, pad_force = self._part_contact_forces(self.peg_geoms, self.fixture_body)
        return PRIVILEGED.pack(
            {
                **self._robot_privileged(),
                "peg_pos": d.xpos[self.peg_body],
                "peg_rot6": rot6(d.xmat[self.peg_body].reshape(3, 3)),
                "peg_linvel": d.qvel[self.peg_dof : self.peg_dof + 3],
                "peg_angvel": d.qvel[self.peg_dof + 3 : self.peg_dof + 6],
                "hole_pos": d.site_xpos[self.hole_site],
                "hole_yaw": [np.cos(hole_yaw), np.sin(hole_yaw)],
                "peg_fixture_force": fixture_force,
                "peg_pad_force": pad_force,
                "physics": self.draw.as_vector(),
            }
        )

    def _draw_perception_errors(self) -> None:
        """The wrist camera's hand-eye calibration error for the episode: translation and rotation, flange frame."""
        self.handeye = (
            self._rng.normal(0.0, self.draw["perception_position_bias_range_m"], 3),
            self._rng.normal(0.0, self.physics.perception_handeye_rotation_rad, 3),
        )

    def _estimate(self, true_pos: np.ndarray, camera: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        std = noise_std(self.draw["perception_position_noise_range_m"], float(np.linalg.norm(true_pos - camera[0])))
        return true_pos + handeye_offset(*self.handeye, *camera, true_pos) + self._rng.normal(0.0, std, 3)

    def _observation(self) -> dict[str, np.ndarray]:
        d, p, rng = self.data, self.draw, self._rng
        yaw_noise = p["perception_yaw_noise_range_rad"]
        camera = camera_pose(d.site_xpos[self.tcp_site], d.site_xmat[self.tcp_site].reshape(3, 3))
        peg_rot = d.xmat[self.peg_body].reshape(3, 3)
        fixture_rot = d.xmat[self.fixture_body].reshape(3, 3)
        peg_axis = peg_rot[:, 2] + rng.normal(0.0, yaw_noise, 3)
        # Dict order is the order of the random draws: keep it (reproducible observations for a seed).
        parts = {
            **self._robot_proprio(),
            "peg_pos_est": self._estimate(d.xpos[self.peg_body], camera),
            "peg_axis_est": peg_axis / np.linalg.norm(peg_axis),
            "peg_yaw_est": yaw_features(yaw_of(peg_rot) + rng.normal(0.0, yaw_noise)),
            "hole_pos_est": self._estimate(d.site_xpos[self.hole_site], camera) + self._hole_offset,
            "hole_yaw_est": yaw_features(yaw_of(fixture_rot) + rng.normal(0.0, yaw_noise)),
        }
        parts.update(
            relative_features(
                parts["tcp_pos"],
                parts["peg_pos_est"],
                np.asarray(parts["peg_yaw_est"]),
                parts["hole_pos_est"],
                np.asarray(parts["hole_yaw_est"]),
            )
        )
        # Where the tool would put the peg over the hole, as perceived: the carry frame's origin (ur5e/actions.py).
        self.seen_aligned_tcp_xy = aligned_tcp_xy(parts["tcp_pos"], parts["peg_to_hole_est"])
        self.seen_gripper_opening = float(parts["gripper_opening"])
        return {PROPRIO_KEY: PROPRIO.pack(parts), WRENCH_KEY: self._wrench()}

    # ------------------------------------------------------------------------------------------------ outcome
    def _task_state(self, privileged: np.ndarray) -> PegState:
        return PegState.from_privileged(privileged)

    def _is_success(self, state: PegState) -> bool:
        return is_seated(state)

    def _dense_reward(self, state: PegState, action: np.ndarray, success: bool) -> float:
        return dense_reward(state, action, success)


class PegInsertionCarryFrameEnv(PegInsertionEnv):
    """The task with the carry frame: while the pads hold the peg, x/y actions are offsets from the perceived
    alignment point (simdist.tasks.ur5e.actions)."""

    default_control = CARRY_FRAME_CONTROL
