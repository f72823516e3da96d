"""A torque-limited inverted-pendulum recovery task in MuJoCo with `sim` and `real` domains.

The tiny built-in task that exercises generate → pretrain → plan → finetune end to end in seconds.
Angle θ is measured from upright (θ = 0 up, ±π hanging). Episodes start tilted 0.3–1.0 rad from upright
with some velocity; the torque limit is below m·g·l, so large tilts must be caught early and hard.

observation "proprio" = [cos θ, sin θ, θ̇]            (+ noise)
action                = normalised torque in [-1, 1]
privileged (sim only) = [θ, θ̇, mass, length, damping, max_torque]
dense reward          = ½(1 + cos θ) − 0.05 θ̇² − 0.01 a²
success (per step)    = |θ| < UPRIGHT_RAD and |θ̇| < UPRIGHT_RATE; the episode succeeds when the last
                        second is all upright.
"""

from __future__ import annotations

import copy
from collections import deque

import gymnasium as gym
import mujoco
import numpy as np

from simdist.tasks.base import check_domain
from simdist.tasks.pendulum.physics import PendulumPhysics
from simdist.tasks.sequences import Sequences, play_controls, queued_then

UPRIGHT_RAD = 0.3
UPRIGHT_RATE = 1.5
GRAVITY = 9.81

_XML = """
<mujoco model="pendulum">
  <option timestep="{dt}" gravity="0 0 -{g}" integrator="implicitfast"/>
  <visual><headlight ambient="0.4 0.4 0.4" diffuse="0.6 0.6 0.6"/></visual>
  <asset><texture type="skybox" builtin="gradient" rgb1="0.75 0.85 0.95" rgb2="0.3 0.4 0.5" width="32" height="32"/></asset>
  <worldbody>
    <geom name="pivot" type="cylinder" pos="0 0 1" zaxis="0 1 0" size="0.03 0.03" rgba="0.2 0.2 0.2 1"
          contype="0" conaffinity="0" mass="0"/>
    <body name="pole" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0" damping="{damping}"/>
      <geom type="capsule" fromto="0 0 0 0 0 {length}" size="0.02" mass="0.0001" rgba="0.3 0.3 0.35 1"/>
      <geom name="bob" type="sphere" pos="0 0 {length}" size="0.05" mass="{mass}" rgba="0.85 0.35 0.1 1"/>
    </body>
  </worldbody>
  <actuator>
    <motor joint="hinge" gear="{max_torque}" ctrlrange="-1 1" ctrllimited="true"/>
  </actuator>
</mujoco>
"""


def sample_initial_condition(rng: np.random.Generator) -> tuple[float, float]:
    """Tilt 0.3–1.0 rad to either side, angular velocity ±1 rad/s."""
    return float(rng.choice([-1, 1]) * rng.uniform(0.3, 1.0)), float(rng.uniform(-1.0, 1.0))


def proprio(theta, theta_dot) -> np.ndarray:
    """[cos θ, sin θ, θ̇] (float32) for angles and rates of any (matching) shape."""
    return np.stack((np.cos(theta), np.sin(theta), theta_dot), axis=-1).astype(np.float32)


def dense_reward(theta, theta_dot, u):
    """½(1 + cos θ) − 0.05 θ̇² − 0.01 u², elementwise."""
    return 0.5 * (1 + np.cos(theta)) - 0.05 * theta_dot**2 - 0.01 * u**2


def wrap_angle(theta: float) -> float:
    return float((theta + np.pi) % (2 * np.pi) - np.pi)


class PendulumEnv(gym.Env):
    metadata = {"render_modes": []}

    def __init__(self, domain: str, physics: PendulumPhysics, episode_steps: int, seed: int = 0):
        self.domain = check_domain(domain)
        self.physics = physics
        self.episode_steps = episode_steps
        self.substeps = max(1, round(physics.control_period_s / physics.timestep_s))
        self.delay_steps = round(physics.actuator_delay_s / physics.timestep_s)
        self.observation_space = gym.spaces.Dict({"proprio": gym.spaces.Box(-np.inf, np.inf, (3,), np.float32)})
        self.action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
        self._rng = np.random.default_rng(seed)
        self._build(1.0, 1.0, 1.0)

    def _build(self, mass_scale: float, damping_scale: float, torque_scale: float) -> None:
        p = self.physics
        self.mass, self.damping = p.mass * mass_scale, p.damping * damping_scale
        self.max_torque = p.max_torque * torque_scale
        xml = _XML.format(
            dt=p.timestep_s,
            g=GRAVITY,
            damping=self.damping,
            length=p.length,
            mass=self.mass,
            max_torque=self.max_torque,
        )
        self.model = mujoco.MjModel.from_xml_string(xml)
        self.data = mujoco.MjData(self.model)

    # MuJoCo's hinge angle is 0 hanging *up* the +z pole, which is our upright.
    @property
    def theta(self) -> float:
        return wrap_angle(self.data.qpos[0])

    @property
    def theta_dot(self) -> float:
        return float(self.data.qvel[0])

    def _obs(self) -> dict[str, np.ndarray]:
        return {"proprio": proprio(self.theta, self.theta_dot) + self._noise(self._rng)}

    def _noise(self, rng: np.random.Generator) -> np.ndarray:
        return rng.normal(0.0, self.physics.obs_noise_std, 3).astype(np.float32)

    def render_scene(self) -> tuple[mujoco.MjModel, mujoco.MjData, mujoco.MjvCamera]:
        """Model, data and a fixed side camera on the pivot, for rollout videos (simdist.eval.video)."""
        cam = mujoco.MjvCamera()
        cam.type = mujoco.mjtCamera.mjCAMERA_FREE
        cam.lookat[:] = (0.0, 0.0, 1.0)
        cam.distance, cam.azimuth, cam.elevation = 1.6, 90.0, 0.0
        return self.model, self.data, cam

    def oracle_privileged_state(self) -> np.ndarray:
        """True state and physics, in every domain: for expert evaluation only, never for learning code."""
        return self._privileged(np.float64(self.theta), np.float64(self.theta_dot))

    def _privileged(self, theta: np.ndarray, theta_dot: np.ndarray) -> np.ndarray:
        """[θ, θ̇, mass, length, damping, max torque] for angles and rates of any (matching) shape."""
        physics = np.broadcast_to(
            [self.mass, self.physics.length, self.damping, self.max_torque], (*np.shape(theta), 4)
        )
        return np.concatenate((np.asarray(theta)[..., None], np.asarray(theta_dot)[..., None], physics), -1).astype(
            np.float32
        )

    def _info(self) -> dict:
        upright = abs(self.theta) < UPRIGHT_RAD and abs(self.theta_dot) < UPRIGHT_RATE
        info = {"success": bool(upright), "theta": self.theta}
        if self.domain == "sim":
            info["privileged"] = self.oracle_privileged_state()
        return info

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        p, rng = self.physics, self._rng
        self._build(
            rng.uniform(*p.mass_scale_range), rng.uniform(*p.damping_scale_range), rng.uniform(*p.torque_scale_range)
        )
        ic = (options or {}).get("initial_condition")
        theta0, thetadot0 = ic if ic is not None else sample_initial_condition(rng)
        self.data.qpos[0], self.data.qvel[0] = theta0, thetadot0
        mujoco.mj_forward(self.model, self.data)
        self._queue: deque = deque([0.0] * self.delay_steps)
        self._t = 0
        self._solved = False
        return self._obs(), self._info()

    def simulate_sequences(self, actions: np.ndarray) -> Sequences:
        """`actions` (N, T, 1) played open loop from the current state in native threads: what stepping a copy of
        this env would give (its latency queue and sensor-noise stream included), left unchanged."""
        u = np.clip(np.asarray(actions, np.float64)[..., 0], -1.0, 1.0)  # (N, T)
        S, T = self.substeps, u.shape[1]
        controls = queued_then([np.array([q]) for q in self._queue], np.repeat(u, S, axis=1)[..., None])
        states = play_controls(self.model, self.data, controls)[:, S - 1 :: S]  # after each control step
        theta, theta_dot = (states[..., 1] + np.pi) % (2 * np.pi) - np.pi, states[..., 2]  # one hinge: qpos, qvel
        rng = copy.deepcopy(self._rng)  # a copy's noise stream: one draw per step, shared by every sequence
        noise = np.stack([self._noise(rng) for _ in range(T)])
        return Sequences(
            obs={"proprio": proprio(theta, theta_dot) + noise},
            dense_reward=dense_reward(theta, theta_dot, u),
            privileged=self._privileged(theta, theta_dot),
            steps_left=self.episode_steps - self._t,
        )

    def step(self, action):
        a = np.asarray(action, dtype=np.float64).reshape(-1)
        if a.shape != (1,) or not np.all(np.isfinite(a)):
            raise ValueError(f"action must be 1 finite value in [-1, 1], got {action!r}")
        u = float(np.clip(a[0], -1.0, 1.0))
        for _ in range(self.substeps):
            self._queue.append(u)
            self.data.ctrl[0] = self._queue.popleft()
            mujoco.mj_step(self.model, self.data)
        self._t += 1
        dense = dense_reward(self.theta, self.theta_dot, u)
        info = self._info()
        first_success = info["success"] and not self._solved
        self._solved = self._solved or info["success"]
        if self.domain == "sim":
            info["dense_reward"] = float(dense)
            reward = float(dense)
        else:
            reward = 1.0 if first_success else 0.0
        truncated = self._t >= self.episode_steps
        return self._obs(), reward, False, truncated, info
