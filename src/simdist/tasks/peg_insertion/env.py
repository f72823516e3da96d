"""Gymnasium environment of the peg-insertion task (5 Hz Cartesian set-point control of a UR5e-like arm)."""

from __future__ import annotations

from dataclasses import dataclass

import gymnasium as gym
import mujoco
import numpy as np

from simdist.tasks.base import PROPRIO_KEY, check_domain
from simdist.tasks.peg_insertion.layout import PRIVILEGED, PROPRIO
from simdist.tasks.peg_insertion.model import FIXTURE_BODY, PEG_BODY, SCENE, build_model
from simdist.tasks.peg_insertion.physics import PegPhysics, sample_physics
from simdist.tasks.peg_insertion.reward import PegState, dense_reward, is_seated
from simdist.tasks.peg_insertion.rotations import yaw_features
from simdist.tasks.ur5e import controller as ctl
from simdist.tasks.ur5e.robot import ARM, ARM_JOINTS, FINGER_JOINTS, GRIPPER, PAD_JOINTS, TCP_SITE
from simdist.tasks.ur5e.rotations import rot6, rotation_error, rotvec_to_matrix, tool_down_rotation, yaw_of


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


@dataclass(frozen=True)
class InitialCondition:
    """Where an episode starts: the peg on the table, the fixture (offset from nominal), the arm at home."""

    peg_xy: tuple[float, float]
    peg_yaw: float
    hole_offset_xy: tuple[float, float] = (0.0, 0.0)
    hole_yaw: float = 0.0
    home_offset_m: tuple[float, float, float] = (0.0, 0.0, 0.0)  # start pose of the TCP relative to home


CONTROL = ControlConfig()
ACTION_DIM = 7  # dx, dy, dz, rx, ry, rz (all scaled to [-1, 1]), gripper (> 0 closes)


class PegInsertionEnv(gym.Env):
    metadata = {"render_modes": []}

    def __init__(self, domain: str, physics: PegPhysics, seed: int = 0, sample_initial_condition=None,
                 control: ControlConfig = CONTROL, controller: ctl.ControllerConfig = ctl.ControllerConfig()):
        self.domain = check_domain(domain)
        self.physics = physics
        self.control = control
        self.controller = controller
        self._sample_initial_condition = sample_initial_condition
        self.max_episode_steps = control.episode_steps  # data tools may lengthen it (e.g. critic targets)
        self.model = build_model(physics)
        self.data = mujoco.MjData(self.model)
        self.n_substeps = int(round(control.control_period_s / physics.timestep_s))
        max_latency = (1.0 - controller.ramp_fraction) * control.control_period_s
        if physics.actuation_latency_range_s[1] > max_latency + 1e-9:
            raise ValueError(f"actuation latency must be <= {max_latency:.3f} s (the set-point ramp must finish in a step)")
        self.ik = ctl.DifferentialIK(self.model, controller)
        self._index_model()
        self.home_q = self.ik.solve(np.array(control.home_joint_seed), np.array(control.home_tcp_pos),
                                    tool_down_rotation(0.0), iterations=100)
        self._inertia_diag = ctl.joint_inertia_diagonal(self.model, self.home_q)
        self._nominal = {"body_mass": self.model.body_mass.copy(), "body_inertia": self.model.body_inertia.copy()}
        self.action_space = gym.spaces.Box(-1.0, 1.0, (ACTION_DIM,), np.float64)
        self.observation_space = gym.spaces.Dict({PROPRIO_KEY: gym.spaces.Box(-np.inf, np.inf, (PROPRIO.size,), np.float64)})
        self._rng = np.random.default_rng(seed)
        self._reset_done = False

    # ------------------------------------------------------------------------------------------------ setup
    def _index_model(self) -> None:
        m = self.model
        self.arm_qpos = np.array([m.joint(j).qposadr[0] for j in ARM_JOINTS])
        self.arm_dofs = np.array([m.joint(j).dofadr[0] for j in ARM_JOINTS])
        self.arm_actuators = np.array([m.actuator(j).id for j in ARM_JOINTS])
        self.finger_qpos = np.array([m.joint(j).qposadr[0] for j in FINGER_JOINTS])
        self.finger_actuators = np.array([m.actuator(j).id for j in FINGER_JOINTS])
        self.finger_dofs = np.array([m.joint(j).dofadr[0] for j in FINGER_JOINTS])
        self.pad_joints = np.array([m.joint(j).id for j in PAD_JOINTS])
        self.peg_body = m.body(PEG_BODY).id
        self.peg_qpos = m.joint("peg").qposadr[0]
        self.peg_dof = m.joint("peg").dofadr[0]
        self.peg_geom = m.geom("peg").id
        self.fixture_body = m.body(FIXTURE_BODY).id
        self.hole_site = m.site("hole_top").id
        self.tcp_site = m.site(TCP_SITE).id
        self.fixture_geoms = np.flatnonzero(m.geom_bodyid == self.fixture_body)
        self.pad_geoms = np.array([m.geom(f"pad_{s}").id for s in ("left", "right")])
        self.table_geom = m.geom("table").id
        peg_id = self.peg_body
        self.robot_bodies = np.array([b for b in range(1, m.nbody) if b != peg_id and b != self.fixture_body])

    def _apply_physics(self) -> None:
        """Write this episode's physics draw into the model (masses, friction, gains, compliance)."""
        m, p, nominal = self.model, self.draw, self._nominal
        m.geom_friction[self.fixture_geoms, 0] = p["peg_hole_friction_range"]
        m.geom_friction[self.pad_geoms, 0] = p["finger_friction_range"]
        m.geom_friction[self.table_geom, 0] = p["table_friction_range"]
        peg_scale = p["peg_mass_range_kg"] / nominal["body_mass"][self.peg_body]
        m.body_mass[self.peg_body] = p["peg_mass_range_kg"]
        m.body_inertia[self.peg_body] = nominal["body_inertia"][self.peg_body] * peg_scale
        arm_scale = p["arm_mass_scale_range"]
        m.body_mass[self.robot_bodies] = nominal["body_mass"][self.robot_bodies] * arm_scale
        m.body_inertia[self.robot_bodies] = nominal["body_inertia"][self.robot_bodies] * arm_scale
        # gravcomp is a fraction of the actual mass; the controller only knows the nominal mass.
        m.body_gravcomp[self.robot_bodies] = p["gravity_compensation_range"] / arm_scale
        kp = np.array(ARM.nominal_kp) * p["joint_stiffness_scale_range"]
        kv = 2.0 * p["joint_damping_ratio_range"] * np.sqrt(kp * self._inertia_diag)
        ctl.set_joint_gains(m, self.arm_actuators, kp, kv)
        force = p["gripper_force_range_n"]
        m.actuator_gear[self.finger_actuators, 0] = force
        m.dof_damping[self.finger_dofs] = force / GRIPPER.finger_speed  # free closing speed = force / damping
        m.jnt_stiffness[self.pad_joints] = p["pad_rotational_stiffness_range"]
        self.latency_steps = int(round(p["actuation_latency_range_s"] / self.physics.timestep_s))

    # ------------------------------------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        options = options or {}
        ic = options.get("initial_condition")
        if ic is None:
            if self._sample_initial_condition is None:
                raise ValueError("no initial_condition given and the env has no training sampler")
            ic = self._sample_initial_condition(self._rng)
        elif isinstance(ic, dict):  # e.g. read from a JSON/YAML evaluation file
            ic = InitialCondition(**ic)
        self.initial_condition = ic
        self.draw = sample_physics(self.physics, self._rng)
        self._apply_physics()
        m, d = self.model, self.data
        mujoco.mj_resetData(m, d)
        m.body_pos[self.fixture_body, :2] = np.array(SCENE.fixture_xy) + np.array(ic.hole_offset_xy)
        m.body_quat[self.fixture_body] = [np.cos(ic.hole_yaw / 2), 0.0, 0.0, np.sin(ic.hole_yaw / 2)]
        start_pos = np.array(self.control.home_tcp_pos) + np.array(ic.home_offset_m)
        q0 = self.ik.solve(self.home_q, start_pos, tool_down_rotation(0.0), iterations=50)
        d.qpos[self.arm_qpos] = q0
        d.ctrl[self.arm_actuators] = q0
        self.q_target = q0.copy()
        d.qpos[self.peg_qpos:self.peg_qpos + 3] = [ic.peg_xy[0], ic.peg_xy[1], SCENE.peg_length / 2 + 1e-4]
        d.qpos[self.peg_qpos + 3:self.peg_qpos + 7] = [np.cos(ic.peg_yaw / 2), 0.0, 0.0, np.sin(ic.peg_yaw / 2)]
        self.gripper_closing = False
        d.ctrl[self.finger_actuators] = -1.0
        mujoco.mj_forward(m, d)
        self.setpoint_pos = d.site_xpos[self.tcp_site].copy()
        self.setpoint_rot = d.site_xmat[self.tcp_site].reshape(3, 3).copy()
        bias_std = self.draw["perception_position_bias_range_m"]
        self.perception_bias = self._rng.normal(0.0, bias_std, size=(2, 3))  # peg, hole
        self.steps = 0
        self.solved = False
        self._reset_done = True
        privileged = self._privileged()
        return self._observation(), self._info(privileged, 0.0, False)

    def step(self, action):
        if not self._reset_done:
            raise RuntimeError("call reset() before step()")
        action = np.asarray(action, dtype=np.float64).reshape(-1)
        if action.shape != (ACTION_DIM,):
            raise ValueError(f"action must have {ACTION_DIM} entries, got shape {action.shape}")
        if not np.all(np.isfinite(action)):
            raise ValueError(f"action contains NaN or Inf: {action}")
        action = np.clip(action, -1.0, 1.0)
        self._move_setpoint(action)
        q_new = self.ik.solve(self.q_target, self.setpoint_pos, self.setpoint_rot)
        max_step = ctl.max_joint_step(self.control.control_period_s)
        q_new = self.q_target + np.clip(q_new - self.q_target, -max_step, max_step)
        self.gripper_closing = bool(action[6] > 0.0)
        self.data.ctrl[self.finger_actuators] = 1.0 if self.gripper_closing else -1.0
        ctl.step_with_ramp(self.model, self.data, self.arm_actuators, self.q_target, q_new, self.n_substeps,
                           self.latency_steps, self.controller)
        self.q_target = q_new
        self.steps += 1
        privileged = self._privileged()
        state = PegState.from_privileged(privileged)
        success = is_seated(state)
        first_success = success and not self.solved
        self.solved = self.solved or success
        terminated = success
        truncated = self.steps >= self.max_episode_steps
        if self.domain == "real":
            reward = 1.0 if first_success else 0.0
        else:
            reward = dense_reward(state, action, success)
        return self._observation(), reward, terminated, truncated, self._info(privileged, reward, success)

    # ------------------------------------------------------------------------------------------------ internals
    def _move_setpoint(self, action: np.ndarray) -> None:
        c = self.control
        tcp_pos = self.data.site_xpos[self.tcp_site]
        target = self.setpoint_pos + action[:3] * c.max_translation_m
        target = tcp_pos + np.clip(target - tcp_pos, -c.max_setpoint_lead_m, c.max_setpoint_lead_m)
        self.setpoint_pos = np.clip(target, c.workspace_low, c.workspace_high)
        rot = rotvec_to_matrix(action[3:6] * c.max_rotation_rad) @ self.setpoint_rot
        tcp_rot = self.data.site_xmat[self.tcp_site].reshape(3, 3)
        lead = rotation_error(rot, tcp_rot)
        lead_norm = float(np.linalg.norm(lead))
        if lead_norm > c.max_setpoint_lead_rad:  # pull the set-point back towards the actual orientation
            rot = rotvec_to_matrix(lead * (c.max_setpoint_lead_rad / lead_norm)) @ tcp_rot
        # Re-orthonormalise so rounding never accumulates over an episode.
        u, _, vt = np.linalg.svd(rot)
        self.setpoint_rot = u @ vt

    def _contact_forces(self) -> tuple[float, float]:
        d, m = self.data, self.model
        fixture_force = pad_force = 0.0
        wrench = np.zeros(6)
        for i in range(d.ncon):
            contact = d.contact[i]
            if contact.geom1 != self.peg_geom and contact.geom2 != self.peg_geom:
                continue
            other = contact.geom2 if contact.geom1 == self.peg_geom else contact.geom1
            mujoco.mj_contactForce(m, d, i, wrench)
            if m.geom_bodyid[other] == self.fixture_body:
                fixture_force += abs(wrench[0])
            elif other in self.pad_geoms:
                pad_force += abs(wrench[0])
        return fixture_force, pad_force

    def _gripper_opening(self) -> float:
        return float(GRIPPER.stroke - np.sum(self.data.qpos[self.finger_qpos]))

    def _privileged(self) -> np.ndarray:
        d = self.data
        peg_rot = d.xmat[self.peg_body].reshape(3, 3)
        fixture_rot = d.xmat[self.fixture_body].reshape(3, 3)
        hole_yaw = yaw_of(fixture_rot)
        fixture_force, pad_force = self._contact_forces()
        return PRIVILEGED.pack({
            "joint_pos": d.qpos[self.arm_qpos], "joint_vel": d.qvel[self.arm_dofs],
            "tcp_pos": d.site_xpos[self.tcp_site], "tcp_rot6": rot6(d.site_xmat[self.tcp_site].reshape(3, 3)),
            "setpoint_pos": self.setpoint_pos, "setpoint_rot6": rot6(self.setpoint_rot),
            "gripper_opening": self._gripper_opening(), "gripper_closing": float(self.gripper_closing),
            "peg_pos": d.xpos[self.peg_body], "peg_rot6": rot6(peg_rot),
            "peg_linvel": d.qvel[self.peg_dof:self.peg_dof + 3], "peg_angvel": d.qvel[self.peg_dof + 3:self.peg_dof + 6],
            "hole_pos": d.site_xpos[self.hole_site], "hole_yaw": [np.cos(hole_yaw), np.sin(hole_yaw)],
            "peg_fixture_force": fixture_force, "peg_pad_force": pad_force,
            "physics": self.draw.as_vector(),
        })

    def _observation(self) -> dict[str, np.ndarray]:
        d, p, rng = self.data, self.draw, self._rng
        pos_noise, yaw_noise = p["perception_position_noise_range_m"], p["perception_yaw_noise_range_rad"]
        peg_rot = d.xmat[self.peg_body].reshape(3, 3)
        fixture_rot = d.xmat[self.fixture_body].reshape(3, 3)
        peg_axis = peg_rot[:, 2] + rng.normal(0.0, yaw_noise, 3)
        proprio = PROPRIO.pack({
            "joint_pos": d.qpos[self.arm_qpos] + rng.normal(0.0, self.physics.joint_position_noise_rad, 6),
            "joint_vel": d.qvel[self.arm_dofs] + rng.normal(0.0, self.physics.joint_velocity_noise_rad_s, 6),
            "tcp_pos": d.site_xpos[self.tcp_site],  # forward kinematics of the encoders: as good as the joints
            "tcp_rot6": rot6(d.site_xmat[self.tcp_site].reshape(3, 3)),
            "gripper_opening": self._gripper_opening(),
            "peg_pos_est": d.xpos[self.peg_body] + self.perception_bias[0] + rng.normal(0.0, pos_noise, 3),
            "peg_axis_est": peg_axis / np.linalg.norm(peg_axis),
            "peg_yaw_est": yaw_features(yaw_of(peg_rot) + rng.normal(0.0, yaw_noise)),
            "hole_pos_est": d.site_xpos[self.hole_site] + self.perception_bias[1] + rng.normal(0.0, pos_noise, 3),
            "hole_yaw_est": yaw_features(yaw_of(fixture_rot) + rng.normal(0.0, yaw_noise)),
        })
        return {PROPRIO_KEY: proprio}

    def _info(self, privileged: np.ndarray, reward: float, success: bool) -> dict:
        info = {"success": bool(success)}
        if self.domain != "real":
            info["privileged"] = privileged
            info["dense_reward"] = float(reward)
        return info

    def oracle_privileged_state(self) -> np.ndarray:
        """Exact state in ANY domain. For evaluating privileged policies in `real` only (a physical robot has
        no such oracle); learning code must never call it."""
        return self._privileged()
