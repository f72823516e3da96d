"""N quadrupeds stepped together in one process: observations, Table V reward, terminations, DR, auto-reset.

Every env owns its own MjModel (domain randomisation writes into it) and MjData; physics runs env by env
(one ``mj_step(nstep=4)`` call each), everything after it is vectorised numpy over the batch.

Observation groups (paper Table VI), all float32:
  proprio (N, 35)   base linear and angular velocity (body frame), projected gravity, joint positions minus
                    default, joint velocities, cos/sin of the 0.5 s gait phase
  height  (N, 21, 15) base z − ground z − 0.3, clipped to ±2, on a 2.0 × 1.4 m grid at 0.1 m centred 0.5 m
                    ahead of the base (yaw-aligned); [i, j]: x from back to front, y from right to left
  command (N, 3)    (vx, vy, ωz)
Privileged state (paper Table IV, ``PRIVILEGED_DIM`` = 433): the above plus previous action, foot contact
wrenches ×0.1 (4×6), foot heights above ground (4), trunk mass offset, foot friction (static, dynamic),
restitution (always 0: MuJoCo's soft contacts have none), Kp/25, Kd/0.5, joint friction/0.05 (12 each).
Terminations: trunk, head or thigh contact; tilt > 60°. Truncation: 20 s, or leaving the terrain patch.
"""

from __future__ import annotations

import copy
from typing import Callable

import mujoco
import numpy as np

from simdist.tasks.quadruped import robot
from simdist.tasks.quadruped.commands import CommandRanges, RandomCommands
from simdist.tasks.quadruped.physics import QuadrupedPhysics
from simdist.tasks.quadruped.rewards import RewardInputs, dense_reward, desired_stance, gait_phase, reward_weights

PROPRIO_DIM = 35
SCAN_SHAPE = (21, 15)
SCAN_OFFSET_M = 0.3
SCAN_CLIP_M = 2.0
PRIVILEGED_DIM = 35 + 3 + 12 + 315 + 24 + 4 + 1 + 2 + 1 + 36
EPISODE_S = 20.0
MAX_TILT_RAD = 1.0472
ACTION_CLIP = 10.0  # policy units (×0.25 rad); keeps wild exploration noise finite
# The authors' observation-noise stds (go2.yaml), scaled by QuadrupedPhysics.obs_noise_scale.
PROPRIO_NOISE_STD = np.concatenate(
    [np.full(3, 0.05), np.full(3, 0.1), np.full(3, 0.025), np.full(12, 0.01), np.full(12, 0.75), np.full(2, 0.001)]
)
HEIGHT_NOISE_STD = 0.02

_gx, _gy = np.meshgrid(
    0.5 + np.linspace(-1.0, 1.0, SCAN_SHAPE[0]), np.linspace(-0.7, 0.7, SCAN_SHAPE[1]), indexing="ij"
)
SCAN_POINTS_BODY = np.stack([_gx, _gy], -1)  # (21, 15, 2) in the yaw-aligned base frame


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """(N, 4) w-x-y-z quaternions → (N, 3, 3) body-to-world rotations."""
    w, x, y, z = q.T
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
            np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
            np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
        ],
        1,
    )


def yaw_of(q: np.ndarray) -> np.ndarray:
    w, x, y, z = q.T
    return np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


class QuadrupedBatchEnv:
    def __init__(
        self,
        num_envs: int,
        scene,
        physics: QuadrupedPhysics,
        seed: int = 0,
        random_commands: bool = True,
        auto_reset: bool = True,
        episode_s: float = EPISODE_S,
        command_ranges: CommandRanges = CommandRanges(),
        reward_overrides: dict[str, float] | None = None,
    ):
        self.num_envs, self.scene, self.physics, self.auto_reset = num_envs, scene, physics, auto_reset
        self.rng = np.random.default_rng(seed)
        self.reward_weights = reward_weights(reward_overrides)
        self.dt = robot.CONTROL_PERIOD_S
        self.max_steps = int(round(episode_s / self.dt))
        base = mujoco.MjModel.from_xml_string(robot.model_xml(scene.assets_xml, scene.ground_xml))
        self.models = [copy.deepcopy(base) for _ in range(num_envs)]
        self.datas = [mujoco.MjData(m) for m in self.models]
        body = lambda name: mujoco.mj_name2id(base, mujoco.mjtObj.mjOBJ_BODY, name)  # noqa: E731
        self.trunk_id = body("trunk")
        self.foot_body_ids = np.array([body(f"{leg}_foot") for leg in robot.LEG_NAMES])
        self.bad_contact_ids = np.array([self.trunk_id] + [body(f"{leg}_thigh") for leg in robot.LEG_NAMES])
        self.foot_geom_ids = np.array(
            [mujoco.mj_name2id(base, mujoco.mjtObj.mjOBJ_GEOM, f"{leg}_foot") for leg in robot.LEG_NAMES]
        )
        # the course's slippery panels, if the scene has any (their μ may be randomised per env)
        self.panel_geom_ids = np.array(
            [
                mujoco.mj_name2id(base, mujoco.mjtObj.mjOBJ_GEOM, b.name)
                for b in getattr(getattr(scene, "course", None), "boxes", ())
                if b.surface == "panel"
            ],
            dtype=int,
        )
        self.commands = RandomCommands(num_envs, self.dt, self.rng, command_ranges) if random_commands else None
        self.command = np.zeros((num_envs, 3))
        n = num_envs
        self.step_count = np.zeros(n, dtype=int)
        self.action = np.zeros((n, 12))
        self.prev_action = np.zeros((n, 12))
        self.prev_joint_vel = np.zeros((n, 12))
        self.cosine_sum = np.zeros(n)
        self.terminated = np.ones(n, dtype=bool)  # did the last episode end in a fall (for the curriculum)
        self.dr = {
            k: np.zeros(shape)
            for k, shape in [
                ("mass_offset", n),
                ("friction", n),
                ("kp", (n, 12)),
                ("kd", (n, 12)),
                ("joint_friction", (n, 12)),
                ("panel_friction", n),
            ]
        }
        self.reset(np.arange(n))

    # ------------------------------------------------------------------------------------------ reset
    def reset(self, env_ids: np.ndarray, initial_yaw: float | None = None) -> None:
        p, rng = self.physics, self.rng
        if self.scene_has_curriculum and self.step_count[env_ids].any():
            # divided by the full episode length (the authors' rule), so an early fall counts as poor tracking;
            # an episode cut short by leaving the patch (fast walking) is judged on the steps it had
            steps = np.where(self.terminated[env_ids], self.max_steps, np.maximum(self.step_count[env_ids], 1))
            self.scene.curriculum.update(env_ids, self.cosine_sum[env_ids] / steps)
        for i in env_ids:
            m, d = self.models[i], self.datas[i]
            spawn, yaw = self.scene.reset(int(i), m, rng)
            yaw = yaw if initial_yaw is None else initial_yaw
            self._randomise(int(i))
            mujoco.mj_resetData(m, d)
            d.qpos[:3] = spawn + np.array([0.0, 0.0, robot.SPAWN_HEIGHT])
            d.qpos[3:7] = [np.cos(yaw / 2), 0.0, 0.0, np.sin(yaw / 2)]
            d.qpos[7:] = robot.DEFAULT_JOINT_POS * rng.uniform(*p.reset_joint_scale_range, size=12)
            d.ctrl[:] = d.qpos[7:]
            mujoco.mj_forward(m, d)
        self.step_count[env_ids] = 0
        self.action[env_ids] = self.prev_action[env_ids] = 0.0
        self.prev_joint_vel[env_ids] = 0.0
        self.cosine_sum[env_ids] = 0.0
        if self.commands is not None:
            self.commands.resample(np.asarray(env_ids))
            self.command[env_ids] = self.commands.command[env_ids]
        self._read_state()

    @property
    def scene_has_curriculum(self) -> bool:
        return getattr(self.scene, "curriculum", None) is not None

    def _randomise(self, i: int) -> None:
        p, rng, m, dr = self.physics, self.rng, self.models[i], self.dr
        dr["mass_offset"][i] = rng.uniform(*p.trunk_mass_offset_range)
        dr["friction"][i] = rng.uniform(*p.foot_friction_range)
        dr["kp"][i] = robot.KP_NOMINAL * rng.uniform(*p.kp_scale_range)
        dr["kd"][i] = robot.KD_NOMINAL * rng.uniform(*p.kd_scale_range)
        dr["joint_friction"][i] = rng.uniform(*p.joint_friction_range, size=12)
        m.body_mass[self.trunk_id] = robot.NOMINAL_TRUNK_MASS + dr["mass_offset"][i]
        m.geom_friction[self.foot_geom_ids, 0] = dr["friction"][i]
        m.actuator_gainprm[:, 0] = dr["kp"][i]
        m.actuator_biasprm[:, 1] = -dr["kp"][i]
        m.actuator_biasprm[:, 2] = -dr["kd"][i]
        m.dof_frictionloss[6:] = dr["joint_friction"][i]
        if p.panel_friction_range is not None and len(self.panel_geom_ids):
            dr["panel_friction"][i] = rng.uniform(*p.panel_friction_range)
            m.geom_friction[self.panel_geom_ids, 0] = dr["panel_friction"][i]

    # ------------------------------------------------------------------------------------------ state
    def _read_state(self) -> None:
        self.qpos = np.stack([d.qpos for d in self.datas]).copy()
        self.qvel = np.stack([d.qvel for d in self.datas]).copy()
        self.torques = np.stack([d.actuator_force for d in self.datas]).copy()
        self.foot_pos = np.stack([d.xpos[self.foot_body_ids] for d in self.datas])
        wrench = np.stack([d.cfrc_ext for d in self.datas])  # (N, nbody, 6): torque, force
        self.foot_wrench = wrench[:, self.foot_body_ids]
        self.bad_contact = np.linalg.norm(wrench[:, self.bad_contact_ids, 3:], axis=-1).max(1) > 1.0
        rot = quat_to_matrix(self.qpos[:, 3:7])
        self.lin_vel_body = np.einsum("nji,nj->ni", rot, self.qvel[:, :3])
        self.ang_vel_body = self.qvel[:, 3:6].copy()  # MuJoCo free-joint angular velocity is already local
        self.gravity_body = -rot[:, 2, :]  # world −z expressed in the body frame
        self.yaw = yaw_of(self.qpos[:, 3:7])

    def ground_under(self, xy: np.ndarray) -> np.ndarray:
        return self.scene.heights(xy)

    def height_scan(self) -> np.ndarray:
        c, s = np.cos(self.yaw)[:, None, None], np.sin(self.yaw)[:, None, None]
        px, py = SCAN_POINTS_BODY[..., 0], SCAN_POINTS_BODY[..., 1]
        world = np.stack(
            [self.qpos[:, None, None, 0] + c * px - s * py, self.qpos[:, None, None, 1] + s * px + c * py], -1
        )
        ground = self.ground_under(world)
        return np.clip(self.qpos[:, 2, None, None] - ground - SCAN_OFFSET_M, -SCAN_CLIP_M, SCAN_CLIP_M)

    def foot_heights(self) -> np.ndarray:
        return self.foot_pos[..., 2] - self.ground_under(self.foot_pos[..., :2]) - robot.FOOT_RADIUS

    def phase(self) -> np.ndarray:
        return gait_phase(self.step_count * self.dt)

    def proprio(self) -> np.ndarray:
        angle = 2 * np.pi * self.phase()
        return np.concatenate(
            [
                self.lin_vel_body,
                self.ang_vel_body,
                self.gravity_body,
                self.qpos[:, 7:] - robot.DEFAULT_JOINT_POS,
                self.qvel[:, 6:],
                np.cos(angle)[:, None],
                np.sin(angle)[:, None],
            ],
            1,
        )

    def observations(self) -> dict[str, np.ndarray]:
        proprio, height = self.proprio(), self.height_scan()
        scale = self.physics.obs_noise_scale
        if scale > 0:
            proprio = proprio + self.rng.normal(0.0, scale * PROPRIO_NOISE_STD, proprio.shape)
            height = height + self.rng.normal(0.0, scale * HEIGHT_NOISE_STD, height.shape)
        return {
            "proprio": proprio.astype(np.float32),
            "height": height.astype(np.float32),
            "command": self.command.astype(np.float32),
        }

    def privileged(self) -> np.ndarray:
        """Exact state and physics (paper Table IV) — simulation only, never an observation."""
        dr, n, proprio = self.dr, self.num_envs, self.proprio()
        return np.concatenate(
            [
                proprio[:, :33],
                self.command,
                self.action,
                proprio[:, 33:],
                self.height_scan().reshape(n, -1),
                0.1 * self.foot_wrench.reshape(n, -1),
                self.foot_heights(),
                dr["mass_offset"][:, None],
                dr["friction"][:, None],
                dr["friction"][:, None],
                np.zeros((n, 1)),
                dr["kp"] / robot.KP_NOMINAL,
                dr["kd"] / robot.KD_NOMINAL,
                dr["joint_friction"] / 0.05,
            ],
            1,
        ).astype(np.float32)

    # ------------------------------------------------------------------------------------------- step
    def set_command(self, command: np.ndarray) -> None:
        self.command[:] = command

    def step(
        self,
        actions: np.ndarray,
        before_reset: Callable[[np.ndarray], None] | None = None,
        observe: bool = True,
        with_privileged: bool = True,
    ):
        """Advance every env one control step. Returns (obs, reward, terminated, truncated, info).

        ``observe=False`` skips the (noisy) observation groups and returns None for them — PPO reads only
        ``info["privileged"]``; ``with_privileged=False`` skips that (single-env wrappers recompute it later).

        With ``auto_reset``, finished envs are reset after their terminal reward is computed; their returned
        observation is the first of the new episode and ``info["terminal_privileged"]`` holds the last state.
        """
        actions = np.clip(np.nan_to_num(np.asarray(actions, np.float64)), -ACTION_CLIP, ACTION_CLIP)
        self.prev_action, self.action = self.action, actions
        targets = robot.DEFAULT_JOINT_POS + robot.ACTION_SCALE * actions
        for i, (m, d) in enumerate(zip(self.models, self.datas)):
            d.ctrl[:] = targets[i]
            mujoco.mj_step(m, d, nstep=robot.SUBSTEPS)
            mujoco.mj_rnePostConstraint(m, d)  # fills cfrc_ext with contact wrenches
        self.step_count += 1
        self._read_state()
        if self.commands is not None:
            self.command = self.commands.update(self.yaw)
        joint_vel = self.qvel[:, 6:]
        inputs = RewardInputs(
            command=self.command,
            lin_vel_body=self.lin_vel_body,
            ang_vel_body=self.ang_vel_body,
            projected_gravity=self.gravity_body,
            joint_pos_rel=self.qpos[:, 7:] - robot.DEFAULT_JOINT_POS,
            joint_acc=(joint_vel - self.prev_joint_vel) / self.dt,
            torques=self.torques,
            action=self.action,
            prev_action=self.prev_action,
            foot_contact=self.foot_contact(),
            foot_height=self.foot_heights(),
            phase=self.phase(),
        )
        reward, terms = dense_reward(inputs, self.dt, self.reward_weights)
        self.prev_joint_vel = joint_vel.copy()
        self._accumulate_tracking()
        tilt = np.arccos(np.clip(-self.gravity_body[:, 2], -1.0, 1.0))
        terminated = self.bad_contact | (tilt > MAX_TILT_RAD) | ~np.isfinite(self.qpos).all(1)
        truncated = (self.step_count >= self.max_steps) | self.scene.off_limits(self.qpos[:, :2])
        truncated &= ~terminated
        self.terminated = terminated.copy()
        info = {"reward_terms": terms}
        if with_privileged:
            info["privileged"] = self.privileged()
        done = np.flatnonzero(terminated | truncated)
        if self.auto_reset and len(done):
            if before_reset is not None:
                before_reset(done)
            self.reset(done)
            if with_privileged:
                info["terminal_privileged"] = info["privileged"]
                info["privileged"] = self.privileged()
        return (self.observations() if observe else None), reward, terminated, truncated, info

    def foot_contact(self) -> np.ndarray:
        return np.linalg.norm(self.foot_wrench[..., 3:], axis=-1) > 1.0

    def desired_stance(self) -> np.ndarray:
        return desired_stance(self.phase())

    def _accumulate_tracking(self) -> None:
        cmd, vel = self.command[:, :2], self.lin_vel_body[:, :2]
        norms = np.linalg.norm(cmd, axis=1) * np.linalg.norm(vel, axis=1)
        self.cosine_sum += np.where(norms > 1e-6, np.sum(cmd * vel, 1) / np.maximum(norms, 1e-6), 0.0)
