"""Gymnasium environment of the table-leg task (5 Hz Cartesian set-point control, as peg insertion)."""

from __future__ import annotations

from dataclasses import dataclass

import gymnasium as gym
import mujoco
import numpy as np

from simdist.tasks.base import PROPRIO_KEY, check_domain
from simdist.tasks.peg_insertion.env import ControlConfig
from simdist.tasks.table_leg.layout import PRIVILEGED, PROPRIO
from simdist.tasks.table_leg.model import HOLE_SITE, LEG_BODY, RACK, RACK_BODY, TABLETOP, TABLETOP_BODY, build_model
from simdist.tasks.table_leg.physics import TableLegPhysics, sample_physics
from simdist.tasks.table_leg.reward import LegState, dense_reward, is_seated
from simdist.tasks.table_leg.thread import Thread, thread_geometry
from simdist.tasks.ur5e import controller as ctl
from simdist.tasks.ur5e.robot import ARM, ARM_JOINTS, FINGER_JOINTS, GRIPPER, PAD_JOINTS, TCP_SITE
from simdist.tasks.ur5e.rotations import rot6, rotation_error, rotvec_to_matrix, tool_down_rotation, yaw_of

# Peg insertion's controller settings; the workspace floor keeps the pads above the tabletop and the rack.
CONTROL = ControlConfig(workspace_low=(0.15, -0.55, 0.05))
ACTION_DIM = 7  # dx, dy, dz, rx, ry, rz (all scaled to [-1, 1]), gripper (> 0 closes)


@dataclass(frozen=True)
class InitialCondition:
    """Where an episode starts: the leg standing in its rack, the tabletop (offset from nominal), the arm at home."""

    rack_xy: tuple[float, float]
    leg_yaw: float
    tabletop_offset_xy: tuple[float, float] = (0.0, 0.0)
    tabletop_yaw: float = 0.0
    home_offset_m: tuple[float, float, float] = (0.0, 0.0, 0.0)


class TableLegEnv(gym.Env):
    metadata = {"render_modes": []}

    def __init__(self, domain: str, physics: TableLegPhysics, seed: int = 0, sample_initial_condition=None,
                 control: ControlConfig = CONTROL, controller: ctl.ControllerConfig = ctl.ControllerConfig()):
        self.domain = check_domain(domain)
        self.physics = physics
        self.control = control
        self.controller = controller
        self._sample_initial_condition = sample_initial_condition
        self.max_episode_steps = control.episode_steps
        self.model = build_model(physics)
        self.data = mujoco.MjData(self.model)
        self.n_substeps = int(round(control.control_period_s / physics.timestep_s))
        max_latency = (1.0 - controller.ramp_fraction) * control.control_period_s
        if physics.actuation_latency_range_s[1] > max_latency + 1e-9:
            raise ValueError(f"actuation latency must be <= {max_latency:.3f} s (the set-point ramp must finish in a step)")
        self.ik = ctl.DifferentialIK(self.model, controller)
        self._index_model()
        self.thread = Thread(self.model)
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
        self.leg_body = m.body(LEG_BODY).id
        self.leg_qpos = m.joint(LEG_BODY).qposadr[0]
        self.leg_dof = m.joint(LEG_BODY).dofadr[0]
        self.leg_geoms = np.flatnonzero(m.geom_bodyid == self.leg_body)
        self.tabletop_body = m.body(TABLETOP_BODY).id
        self.rack_body = m.body(RACK_BODY).id
        self.hole_site = m.site(HOLE_SITE).id
        self.tcp_site = m.site(TCP_SITE).id
        self.tabletop_geoms = np.flatnonzero(m.geom_bodyid == self.tabletop_body)
        self.pad_geoms = np.array([m.geom(f"pad_{s}").id for s in ("left", "right")])
        excluded = {self.leg_body, self.tabletop_body, self.rack_body, m.body("nut").id}
        self.robot_bodies = np.array([b for b in range(1, m.nbody) if b not in excluded])

    def _apply_physics(self) -> None:
        """Write this episode's physics draw into the model (masses, friction, gains, compliance)."""
        m, p, nominal = self.model, self.draw, self._nominal
        m.geom_friction[self.tabletop_geoms, 0] = p["tabletop_friction_range"]
        m.geom_friction[self.pad_geoms, 0] = p["finger_friction_range"]
        leg_scale = p["leg_mass_range_kg"] / nominal["body_mass"][self.leg_body]
        m.body_mass[self.leg_body] = p["leg_mass_range_kg"]
        m.body_inertia[self.leg_body] = nominal["body_inertia"][self.leg_body] * leg_scale
        arm_scale = p["arm_mass_scale_range"]
        m.body_mass[self.robot_bodies] = nominal["body_mass"][self.robot_bodies] * arm_scale
        m.body_inertia[self.robot_bodies] = nominal["body_inertia"][self.robot_bodies] * arm_scale
        m.body_gravcomp[self.robot_bodies] = p["gravity_compensation_range"] / arm_scale  # controller knows nominal mass
        kp = np.array(ARM.nominal_kp) * p["joint_stiffness_scale_range"]
        kv = 2.0 * p["joint_damping_ratio_range"] * np.sqrt(kp * self._inertia_diag)
        ctl.set_joint_gains(m, self.arm_actuators, kp, kv)
        force = p["gripper_force_range_n"]
        m.actuator_gear[self.finger_actuators, 0] = force
        m.dof_damping[self.finger_dofs] = force / GRIPPER.finger_speed
        m.jnt_stiffness[self.pad_joints] = p["pad_rotational_stiffness_range"]
        self.latency_steps = int(round(p["actuation_latency_range_s"] / self.physics.timestep_s))

    # ------------------------------------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        ic = (options or {}).get("initial_condition")
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
        m.body_pos[self.tabletop_body, :2] = np.array(TABLETOP.centre_xy) + np.array(ic.tabletop_offset_xy)
        m.body_quat[self.tabletop_body] = [np.cos(ic.tabletop_yaw / 2), 0.0, 0.0, np.sin(ic.tabletop_yaw / 2)]
        m.body_pos[self.rack_body, :2] = ic.rack_xy
        p = self.draw
        self.thread.reset(d, p["thread_friction_torque_range_nm"], p["engage_max_tilt_range_rad"],
                          p["cross_thread_tilt_range_rad"], p["thread_start_turns_range"], self.physics.seated_turns)
        start_pos = np.array(self.control.home_tcp_pos) + np.array(ic.home_offset_m)
        q0 = self.ik.solve(self.home_q, start_pos, tool_down_rotation(0.0), iterations=50)
        d.qpos[self.arm_qpos] = q0
        d.ctrl[self.arm_actuators] = q0
        self.q_target = q0.copy()
        d.qpos[self.leg_qpos:self.leg_qpos + 3] = [ic.rack_xy[0], ic.rack_xy[1], RACK.height + 1e-4]
        d.qpos[self.leg_qpos + 3:self.leg_qpos + 7] = [np.cos(ic.leg_yaw / 2), 0.0, 0.0, np.sin(ic.leg_yaw / 2)]
        self.gripper_closing = False
        d.ctrl[self.finger_actuators] = -1.0
        mujoco.mj_forward(m, d)
        self.setpoint_pos = d.site_xpos[self.tcp_site].copy()
        self.setpoint_rot = d.site_xmat[self.tcp_site].reshape(3, 3).copy()
        self.perception_bias = self._rng.normal(0.0, p["perception_position_bias_range_m"], size=(2, 3))  # leg, hole
        self.steps = 0
        self.solved = False
        self._reset_done = True
        return self._observation(), self._info(self._privileged(), 0.0, False)

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
        self._update_thread()
        privileged = self._privileged()
        state = LegState.from_privileged(privileged)
        success = is_seated(state, self.physics.seated_turns)
        first_success = success and not self.solved
        self.solved = self.solved or success
        truncated = self.steps >= self.max_episode_steps
        if self.domain == "real":
            reward = 1.0 if first_success else 0.0
        else:
            reward = dense_reward(state, action, success, self.physics.seated_turns)
        return self._observation(), reward, success, truncated, self._info(privileged, reward, success)

    # ------------------------------------------------------------------------------------------------ internals
    def _update_thread(self) -> None:
        d = self.data
        geometry = thread_geometry(d.xpos[self.leg_body], d.xmat[self.leg_body].reshape(3, 3), d.site_xpos[self.hole_site])
        self.thread.update(d, geometry, yaw_of(d.xmat[self.tabletop_body].reshape(3, 3)))

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
        if lead_norm > c.max_setpoint_lead_rad:  # anti-windup: pull the set-point back towards the tool
            rot = rotvec_to_matrix(lead * (c.max_setpoint_lead_rad / lead_norm)) @ tcp_rot
        u, _, vt = np.linalg.svd(rot)  # re-orthonormalise so rounding never accumulates
        self.setpoint_rot = u @ vt

    def _contact_forces(self) -> tuple[float, float]:
        d, m = self.data, self.model
        tabletop_force = pad_force = 0.0
        wrench = np.zeros(6)
        for i in range(d.ncon):
            contact = d.contact[i]
            leg1, leg2 = contact.geom1 in self.leg_geoms, contact.geom2 in self.leg_geoms
            if not (leg1 or leg2):
                continue
            other = contact.geom2 if leg1 else contact.geom1
            mujoco.mj_contactForce(m, d, i, wrench)
            if m.geom_bodyid[other] == self.tabletop_body:
                tabletop_force += abs(wrench[0])
            elif other in self.pad_geoms:
                pad_force += abs(wrench[0])
        return tabletop_force, pad_force

    def _gripper_opening(self) -> float:
        return float(GRIPPER.stroke - np.sum(self.data.qpos[self.finger_qpos]))

    def _privileged(self) -> np.ndarray:
        d, thread = self.data, self.thread
        tabletop_yaw = yaw_of(d.xmat[self.tabletop_body].reshape(3, 3))
        tabletop_force, pad_force = self._contact_forces()
        return PRIVILEGED.pack({
            "joint_pos": d.qpos[self.arm_qpos], "joint_vel": d.qvel[self.arm_dofs],
            "tcp_pos": d.site_xpos[self.tcp_site], "tcp_rot6": rot6(d.site_xmat[self.tcp_site].reshape(3, 3)),
            "setpoint_pos": self.setpoint_pos, "setpoint_rot6": rot6(self.setpoint_rot),
            "gripper_opening": self._gripper_opening(), "gripper_closing": float(self.gripper_closing),
            "leg_pos": d.xpos[self.leg_body], "leg_rot6": rot6(d.xmat[self.leg_body].reshape(3, 3)),
            "leg_linvel": d.qvel[self.leg_dof:self.leg_dof + 3], "leg_angvel": d.qvel[self.leg_dof + 3:self.leg_dof + 6],
            "hole_pos": d.site_xpos[self.hole_site], "hole_yaw": [np.cos(tabletop_yaw), np.sin(tabletop_yaw)],
            "thread_engaged": float(thread.engaged), "thread_cross_threaded": float(thread.cross_threaded),
            "thread_turns": thread.read_turns(d), "thread_start_turns_left": thread.start_angle_left / (2 * np.pi),
            "leg_tabletop_force": tabletop_force, "leg_pad_force": pad_force,
            "physics": self.draw.as_vector(),
        })

    def _observation(self) -> dict[str, np.ndarray]:
        d, p, rng = self.data, self.draw, self._rng
        pos_noise, angle_noise = p["perception_position_noise_range_m"], p["perception_angle_noise_range_rad"]
        leg_rot = d.xmat[self.leg_body].reshape(3, 3)
        leg_axis = leg_rot[:, 2] + rng.normal(0.0, angle_noise, 3)
        leg_yaw = yaw_of(leg_rot) + rng.normal(0.0, angle_noise)
        tabletop_yaw = yaw_of(d.xmat[self.tabletop_body].reshape(3, 3)) + rng.normal(0.0, angle_noise)
        proprio = PROPRIO.pack({
            "joint_pos": d.qpos[self.arm_qpos] + rng.normal(0.0, self.physics.joint_position_noise_rad, 6),
            "joint_vel": d.qvel[self.arm_dofs] + rng.normal(0.0, self.physics.joint_velocity_noise_rad_s, 6),
            "tcp_pos": d.site_xpos[self.tcp_site],
            "tcp_rot6": rot6(d.site_xmat[self.tcp_site].reshape(3, 3)),
            "gripper_opening": self._gripper_opening(),
            "leg_pos_est": d.xpos[self.leg_body] + self.perception_bias[0] + rng.normal(0.0, pos_noise, 3),
            "leg_axis_est": leg_axis / np.linalg.norm(leg_axis),
            "leg_yaw_est": [np.cos(leg_yaw), np.sin(leg_yaw)],
            "hole_pos_est": d.site_xpos[self.hole_site] + self.perception_bias[1] + rng.normal(0.0, pos_noise, 3),
            "tabletop_yaw_est": [np.cos(tabletop_yaw), np.sin(tabletop_yaw)],
        })
        return {PROPRIO_KEY: proprio}

    def _info(self, privileged: np.ndarray, reward: float, success: bool) -> dict:
        info = {"success": bool(success)}
        if self.domain != "real":
            info["privileged"] = privileged
            info["dense_reward"] = float(reward)
        return info

    def privileged(self) -> np.ndarray:
        """Exact state in ANY domain, for evaluating privileged policies (`simdist expert eval`) and the
        teleoperation stand-in in `real` (a physical robot has no such oracle); learning code must not call it."""
        return self._privileged()

    oracle_privileged_state = privileged  # the name peg insertion's episode loops use
