"""Common Gymnasium machinery of the UR5e tasks: 5 Hz Cartesian set-point control of the arm and gripper.

A task subclasses :class:`UR5eEnv` and supplies its scene (objects, their placement and physics), its
observation/privileged vectors and its success and reward; stepping the controller, the robot's physics draw,
the robot blocks of both vectors and the domain rules for rewards/infos live here, once.
"""

from __future__ import annotations

import gymnasium as gym
import mujoco
import numpy as np

from simdist.tasks.base import PROPRIO_KEY, WRENCH_KEY, check_domain
from simdist.tasks.ur5e import controller as ctl
from simdist.tasks.ur5e.actions import (
    ACTION_DIM,
    GRIPPER_ACTION,
    ControlConfig,
    carried_setpoint,
    holds_part,
    next_setpoint,
)
from simdist.tasks.ur5e.layout import VectorLayout
from simdist.tasks.ur5e.robot import (
    ARM,
    ARM_JOINTS,
    FINGER_JOINTS,
    FT_FORCE_SENSOR,
    FT_SITE,
    FT_TORQUE_SENSOR,
    GRIPPER,
    PAD_GEOMS,
    PAD_JOINTS,
    TCP_SITE,
)
from simdist.tasks.ur5e.rotations import cross3, rot6, rotation_error, rotvec_to_matrix, tool_down_rotation

GRIPPER_CLOSE, GRIPPER_OPEN = 1.0, -1.0  # finger motor commands
PERCEIVED_OBJECTS = 2  # the part and the hole each get a per-episode perception bias
WRENCH_DIM = 6  # force (N) and torque (N m) at the tool flange, in the flange frame
# UR5e e-Series tool-flange F/T sensor range: readings saturate at +-50 N and +-10 N m.
WRENCH_RANGE = np.array([50.0, 50.0, 50.0, 10.0, 10.0, 10.0])


class UR5eEnv(gym.Env):
    """Subclasses set the class attributes and implement the ``_task_*``/``_place_objects`` hooks below."""

    metadata = {"render_modes": []}
    proprio_layout: VectorLayout
    initial_condition_type: type  # dataclass an evaluation file's dict is turned into
    default_control: ControlConfig = ControlConfig()
    # True: the observation has a "wrench" group (the flange F/T sensor); the physics then needs wrench_* fields.
    observes_wrench: bool = False
    # True: `_observation` sets `seen_aligned_tcp_xy` and `seen_gripper_opening` (ControlConfig.carry_frame).
    perceives_alignment: bool = False

    def __init__(
        self,
        domain: str,
        physics,
        seed: int = 0,
        sample_initial_condition=None,
        control: ControlConfig | None = None,
        controller: ctl.ControllerConfig = ctl.ControllerConfig(),
    ):
        control = control or self.default_control
        if control.carry_frame != "tool" and not self.perceives_alignment:
            raise ValueError(f"{type(self).__name__} perceives no part-to-target offset: carry_frame must be 'tool'")
        self.domain = check_domain(domain)
        self.physics = physics
        self.control = control
        self.controller = controller
        self._sample_initial_condition = sample_initial_condition
        self.max_episode_steps = control.episode_steps  # data tools may lengthen it (e.g. critic targets)
        self.model = self._build_model(physics)
        self.data = mujoco.MjData(self.model)
        self.n_substeps = int(round(control.control_period_s / physics.timestep_s))
        max_latency = (1.0 - controller.ramp_fraction) * control.control_period_s
        if physics.actuation_latency_range_s[1] > max_latency + 1e-9:
            raise ValueError(
                f"actuation latency must be <= {max_latency:.3f} s (the set-point ramp must finish in a step)"
            )
        self.ik = ctl.DifferentialIK(self.model, controller)
        self._index_robot()
        self._index_objects()
        m = self.model
        object_bodies = set(self._object_bodies())
        self.robot_bodies = np.array([b for b in range(1, m.nbody) if b not in object_bodies])
        self.home_q = self.ik.solve(
            np.array(control.home_joint_seed), np.array(control.home_tcp_pos), tool_down_rotation(0.0), iterations=100
        )
        self._inertia_diag = ctl.joint_inertia_diagonal(self.model, self.home_q)
        self._nominal = {"body_mass": self.model.body_mass.copy(), "body_inertia": self.model.body_inertia.copy()}
        self.action_space = gym.spaces.Box(-1.0, 1.0, (ACTION_DIM,), np.float64)
        size = self.proprio_layout.size
        spaces = {PROPRIO_KEY: gym.spaces.Box(-np.inf, np.inf, (size,), np.float64)}
        if self.observes_wrench:
            spaces[WRENCH_KEY] = gym.spaces.Box(-WRENCH_RANGE, WRENCH_RANGE, (WRENCH_DIM,), np.float64)
            self._payload = self._nominal_payload()
        self.observation_space = gym.spaces.Dict(spaces)
        self._rng = np.random.default_rng(seed)
        self._reset_done = False

    # ------------------------------------------------------------------------------------------------ task hooks
    def _build_model(self, physics) -> mujoco.MjModel:
        raise NotImplementedError

    def _sample_physics(self, rng: np.random.Generator):
        raise NotImplementedError

    def _index_objects(self) -> None:
        raise NotImplementedError

    def _object_bodies(self) -> list[int]:
        raise NotImplementedError  # every non-robot body but the world

    def _apply_object_physics(self) -> None:
        raise NotImplementedError

    def _place_objects(self, ic) -> None:
        raise NotImplementedError  # after mj_resetData, before mj_forward

    def _after_control_step(self) -> None:
        pass

    def _draw_perception_errors(self) -> None:
        """The episode's constant errors of the pose estimates: by default one offset per perceived object."""
        bias_std = self.draw["perception_position_bias_range_m"]
        self.perception_bias = self._rng.normal(0.0, bias_std, size=(PERCEIVED_OBJECTS, 3))  # part, hole

    def _privileged(self) -> np.ndarray:
        raise NotImplementedError

    def _observation(self) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def _task_state(self, privileged: np.ndarray):
        raise NotImplementedError

    def _is_success(self, state) -> bool:
        raise NotImplementedError

    def _dense_reward(self, state, action: np.ndarray, success: bool) -> float:
        raise NotImplementedError

    # ------------------------------------------------------------------------------------------------ setup
    def _index_robot(self) -> None:
        m = self.model
        self.arm_qpos = np.array([m.joint(j).qposadr[0] for j in ARM_JOINTS])
        self.arm_dofs = np.array([m.joint(j).dofadr[0] for j in ARM_JOINTS])
        self.arm_actuators = np.array([m.actuator(j).id for j in ARM_JOINTS])
        self.finger_qpos = np.array([m.joint(j).qposadr[0] for j in FINGER_JOINTS])
        self.finger_actuators = np.array([m.actuator(j).id for j in FINGER_JOINTS])
        self.finger_dofs = np.array([m.joint(j).dofadr[0] for j in FINGER_JOINTS])
        self.pad_joints = np.array([m.joint(j).id for j in PAD_JOINTS])
        self.tcp_site = m.site(TCP_SITE).id
        self.ft_site = m.site(FT_SITE).id
        self.pad_geoms = np.array([m.geom(g).id for g in PAD_GEOMS])

    def _apply_physics(self) -> None:
        """Write this episode's physics draw into the model (masses, friction, gains, compliance)."""
        m, p, nominal = self.model, self.draw, self._nominal
        m.geom_friction[self.pad_geoms, 0] = p["finger_friction_range"]
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
        self._apply_object_physics()

    def _set_body_mass(self, body: int, mass: float) -> None:
        """Set a part's mass, scaling its inertia with it (same shape, different density)."""
        nominal = self._nominal
        scale = mass / nominal["body_mass"][body]
        self.model.body_mass[body] = mass
        self.model.body_inertia[body] = nominal["body_inertia"][body] * scale

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
            ic = self.initial_condition_type(**ic)
        self.initial_condition = ic
        self.draw = self._sample_physics(self._rng)
        self._apply_physics()
        m, d = self.model, self.data
        mujoco.mj_resetData(m, d)
        self._place_objects(ic)
        start_pos = np.array(self.control.home_tcp_pos) + np.array(ic.home_offset_m)
        q0 = self.ik.solve(self.home_q, start_pos, tool_down_rotation(0.0), iterations=50)
        d.qpos[self.arm_qpos] = q0
        d.ctrl[self.arm_actuators] = q0
        self.q_target = q0.copy()
        self.gripper_closing = False
        d.ctrl[self.finger_actuators] = GRIPPER_OPEN
        mujoco.mj_forward(m, d)
        self.setpoint_pos = d.site_xpos[self.tcp_site].copy()
        self.setpoint_rot = d.site_xmat[self.tcp_site].reshape(3, 3).copy()
        self._draw_perception_errors()
        if self.observes_wrench:  # the sensor's offset for this episode (the datasheet's accuracy)
            p = self.physics
            self.wrench_bias = self._rng.normal(0.0, [p.wrench_force_bias_n] * 3 + [p.wrench_torque_bias_nm] * 3)
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
        self.gripper_closing = bool(action[GRIPPER_ACTION] > 0.0)
        self.data.ctrl[self.finger_actuators] = GRIPPER_CLOSE if self.gripper_closing else GRIPPER_OPEN
        ctl.step_with_ramp(
            self.model,
            self.data,
            self.arm_actuators,
            self.q_target,
            q_new,
            self.n_substeps,
            self.latency_steps,
            self.controller,
        )
        self.q_target = q_new
        self.steps += 1
        self._after_control_step()
        privileged = self._privileged()
        state = self._task_state(privileged)
        success = self._is_success(state)
        first_success = success and not self.solved
        self.solved = self.solved or success
        truncated = self.steps >= self.max_episode_steps
        if self.domain == "real":  # a real robot only knows whether the task got done
            reward = 1.0 if first_success else 0.0
        else:
            reward = self._dense_reward(state, action, success)
        return self._observation(), reward, success, truncated, self._info(privileged, reward, success)

    # ------------------------------------------------------------------------------------------------ internals
    def _move_setpoint(self, action: np.ndarray) -> None:
        c, tcp = self.control, self.data.site_xpos[self.tcp_site]
        if self.perceives_alignment and holds_part(action, self.seen_gripper_opening, c):
            self.setpoint_pos = carried_setpoint(self.setpoint_pos, tcp, self.seen_aligned_tcp_xy, action, c)
        else:
            self.setpoint_pos = next_setpoint(self.setpoint_pos, tcp, action, c)
        rot = rotvec_to_matrix(action[3:6] * c.max_rotation_rad) @ self.setpoint_rot
        tcp_rot = self.data.site_xmat[self.tcp_site].reshape(3, 3)
        lead = rotation_error(rot, tcp_rot)
        lead_norm = float(np.linalg.norm(lead))
        if lead_norm > c.max_setpoint_lead_rad:  # anti-windup: pull the set-point back towards the tool
            rot = rotvec_to_matrix(lead * (c.max_setpoint_lead_rad / lead_norm)) @ tcp_rot
        # Re-orthonormalise so rounding never accumulates over an episode.
        u, _, vt = np.linalg.svd(rot)
        self.setpoint_rot = u @ vt

    def _part_contact_forces(self, part_geoms: np.ndarray, holder_body: int) -> tuple[float, float]:
        """Total normal force on the part from ``holder_body`` (fixture, tabletop) and from the pads, N."""
        d, m = self.data, self.model
        holder_force = pad_force = 0.0
        wrench = np.zeros(6)
        part, pads = set(part_geoms.tolist()), set(self.pad_geoms.tolist())  # `in` on an array costs µs
        for i in range(d.ncon):
            contact = d.contact[i]
            part1, part2 = contact.geom1 in part, contact.geom2 in part
            if not (part1 or part2):
                continue
            other = contact.geom2 if part1 else contact.geom1
            mujoco.mj_contactForce(m, d, i, wrench)
            if m.geom_bodyid[other] == holder_body:
                holder_force += abs(wrench[0])
            elif other in pads:
                pad_force += abs(wrench[0])
        return holder_force, pad_force

    def _gripper_opening(self) -> float:
        return float(GRIPPER.stroke - np.sum(self.data.qpos[self.finger_qpos]))

    def _robot_privileged(self) -> dict[str, np.ndarray | float]:
        """The robot blocks of the privileged vector (``layout.ROBOT_PRIVILEGED_BLOCKS``)."""
        d = self.data
        return {
            "joint_pos": d.qpos[self.arm_qpos],
            "joint_vel": d.qvel[self.arm_dofs],
            "tcp_pos": d.site_xpos[self.tcp_site],
            "tcp_rot6": rot6(d.site_xmat[self.tcp_site].reshape(3, 3)),
            "setpoint_pos": self.setpoint_pos,
            "setpoint_rot6": rot6(self.setpoint_rot),
            "gripper_opening": self._gripper_opening(),
            "gripper_closing": float(self.gripper_closing),
        }

    def _robot_proprio(self) -> dict[str, np.ndarray | float]:
        """The robot blocks of the observation (``layout.ROBOT_PROPRIO_BLOCKS``); draws the encoder noise."""
        d, rng = self.data, self._rng
        return {
            "joint_pos": d.qpos[self.arm_qpos]
            + rng.normal(0.0, self.physics.joint_position_noise_rad, len(ARM_JOINTS)),
            "joint_vel": d.qvel[self.arm_dofs]
            + rng.normal(0.0, self.physics.joint_velocity_noise_rad_s, len(ARM_JOINTS)),
            "tcp_pos": d.site_xpos[self.tcp_site],  # forward kinematics of the encoders: as good as the joints
            "tcp_rot6": rot6(d.site_xmat[self.tcp_site].reshape(3, 3)),
            "gripper_opening": self._gripper_opening(),
        }

    def _nominal_payload(self) -> tuple[float, np.ndarray]:
        """Mass and centre of mass (flange frame) of everything beyond the sensor at the nominal masses: the payload
        an operator enters on the UR teach pendant, whose weight the controller removes from the reading."""
        m, d = self.model, mujoco.MjData(self.model)
        d.qpos[self.arm_qpos] = self.home_q
        mujoco.mj_forward(m, d)
        flange = m.site_bodyid[self.ft_site]
        bodies = [b for b in range(m.nbody) if self._descends_from(b, flange)]
        mass = float(np.sum(m.body_mass[bodies]))
        com = np.sum(m.body_mass[bodies, None] * d.xipos[bodies], axis=0) / mass
        rot = d.site_xmat[self.ft_site].reshape(3, 3)
        return mass, rot.T @ (com - d.site_xpos[self.ft_site])

    def _descends_from(self, body: int, ancestor: int) -> bool:
        while body > 0:
            if body == ancestor:
                return True
            body = self.model.body_parentid[body]
        return False

    def _wrench(self) -> np.ndarray:
        """The flange F/T sensor as a UR5e reports it: the external wrench on the tool in the flange frame, the
        nominal payload's weight removed (the held part's is not), plus the episode's offset and per-reading noise,
        saturated at the sensor's range. Draws the noise."""
        d, p = self.data, self.physics
        mass, com = self._payload
        rot = d.site_xmat[self.ft_site].reshape(3, 3)
        support = rot.T @ (-mass * self.model.opt.gravity)  # what the wrist exerts to hold the payload still
        force = -(d.sensor(FT_FORCE_SENSOR).data - support)
        torque = -(d.sensor(FT_TORQUE_SENSOR).data - cross3(com, support))
        noise = self._rng.normal(0.0, [p.wrench_force_noise_n] * 3 + [p.wrench_torque_noise_nm] * 3)
        return np.clip(np.concatenate([force, torque]) + self.wrench_bias + noise, -WRENCH_RANGE, WRENCH_RANGE)

    def _info(self, privileged: np.ndarray, reward: float, success: bool) -> dict:
        info = {"success": bool(success)}
        if self.domain != "real":
            info["privileged"] = privileged
            info["dense_reward"] = float(reward)
        return info

    def render_scene(self) -> tuple[mujoco.MjModel, mujoco.MjData, mujoco.MjvCamera]:
        """Model, data and a fixed camera for rollout videos: close on the fixture where the task has one (its
        ``hole_site``: a part is millimetres from seated, which a view of the whole arm cannot show), else over
        the whole workspace."""
        cam = mujoco.MjvCamera()
        cam.type = mujoco.mjtCamera.mjCAMERA_FREE
        hole = getattr(self, "hole_site", None)
        if hole is None:
            cam.lookat[:] = (0.42, 0.0, 0.2)
            cam.distance, cam.azimuth, cam.elevation = 1.4, 150.0, -30.0
        else:
            cam.lookat[:] = self.data.site_xpos[hole] + (0.0, 0.0, 0.1)
            cam.distance, cam.azimuth, cam.elevation = 0.8, 150.0, -20.0
        return self.model, self.data, cam

    def oracle_privileged_state(self) -> np.ndarray:
        """Exact state in ANY domain, for evaluating privileged policies (`simdist expert eval`) and the
        teleoperation stand-in in `real` (a physical robot has no such oracle); learning code must not call it."""
        return self._privileged()

    privileged = oracle_privileged_state  # the name the table-leg tests use
