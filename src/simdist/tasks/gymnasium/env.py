"""A Gymnasium MuJoCo env in simdist's conventions (simdist.tasks.base): observation groups, named privileged
state, dense reward and success in `sim`, sparse reward in `real`, physics written into the MjModel at each reset,
latency as a queue of control steps, and no early termination."""

from __future__ import annotations

import copy
from collections import deque
from typing import Any

import gymnasium as gym
import mujoco
import numpy as np

from simdist.tasks.base import check_domain
from simdist.tasks.gymnasium.spec import GymTaskSpec, PrivilegedLayout
from simdist.tasks.sequences import Sequences, play_controls, queued_then, set_state


def make_gym_env(env_id: str, **kwargs) -> gym.Env:
    """The bare Gymnasium env (no TimeLimit or order checks: simdist counts steps itself), with a clear error
    when its MuJoCo dependencies are missing."""
    try:
        return gym.make(env_id, **kwargs).unwrapped
    except (ModuleNotFoundError, gym.error.DependencyNotInstalled) as err:
        raise ModuleNotFoundError(
            f"Gymnasium env {env_id!r} cannot be built ({err}); install the extra: pip install 'simdist[gym]'"
        ) from None


class Nominal:
    """The model's own values of every parameter's rows, kept to scale from at each reset."""

    def __init__(self, spec: GymTaskSpec, model: mujoco.MjModel):
        self.rows = {p.name: p.rows(model) for p in spec.physics}
        self.values = {p.name: np.array(getattr(model, p.field)[self.rows[p.name]], np.float64) for p in spec.physics}
        self.inertia = {
            p.name: np.array(model.body_inertia[self.rows[p.name]]) for p in spec.physics if p.field == "body_mass"
        }


def write_physics(spec: GymTaskSpec, model: mujoco.MjModel, nominal: Nominal, factors: dict[str, float]) -> None:
    """Set each parameter's rows to the nominal value × ``factors[name]`` (the column of 2-D fields only); a body
    mass carries its inertia along."""
    for p in spec.physics:
        rows, arr = nominal.rows[p.name], getattr(model, p.field)
        values = nominal.values[p.name].copy()
        if values.ndim == 2:
            values[:, p.column] *= factors[p.name]
        else:
            values *= factors[p.name]
        arr[rows] = values
        if p.name in nominal.inertia:
            model.body_inertia[rows] = nominal.inertia[p.name] * factors[p.name]


def physics_factors(spec: GymTaskSpec, nominal: Nominal, physics: Any, rng: np.random.Generator | None) -> dict:
    """Each parameter as a multiplier of the model's first row: its scale or value, times a draw from its
    randomisation range when ``rng`` is given."""
    out = {}
    for p in spec.physics:
        first = nominal.values[p.name][0].reshape(-1)[p.column]
        base = getattr(physics, p.physics_field) / (1.0 if p.mode == "scale" else first)
        low, high = getattr(physics, f"{p.name}_scale_range")
        out[p.name] = base * (rng.uniform(low, high) if rng is not None else 1.0)
    return out


class GymAdapterEnv(gym.Env):
    metadata = {"render_modes": []}

    def __init__(self, spec: GymTaskSpec, layout: PrivilegedLayout, domain: str, physics: Any, seed: int = 0):
        self.spec_, self.layout, self.domain, self.physics = spec, layout, check_domain(domain), physics
        self.env = make_gym_env(spec.env_id, **spec.env_kwargs)
        self.model, self.data = self.env.model, self.env.data
        self.nominal = Nominal(spec, self.model)
        self.action_space = self.env.action_space
        obs = self._gym_obs()
        self.observation_space = gym.spaces.Dict(
            {k: gym.spaces.Box(-np.inf, np.inf, v.shape, np.float32) for k, v in self._groups(obs).items()}
        )
        self._rng = np.random.default_rng(seed)
        self._factors = physics_factors(spec, self.nominal, physics, None)
        write_physics(spec, self.model, self.nominal, self._factors)  # the domain's model even before a reset

    def __deepcopy__(self, memo: dict) -> GymAdapterEnv:
        """A copy in the same state under the same physics. Gymnasium's envs deep-copy by re-running their
        constructor (EzPickle), which would give the copy a fresh model (nominal physics) at its initial state."""
        clone = copy.copy(self)
        memo[id(self)] = clone
        clone.env = copy.copy(self.env)
        clone.model = clone.env.model = copy.deepcopy(self.model, memo)
        clone.data = clone.env.data = copy.deepcopy(self.data, memo)
        clone._rng, clone.nominal = copy.deepcopy(self._rng, memo), copy.deepcopy(self.nominal, memo)
        if hasattr(self, "_pending"):
            clone._pending = copy.deepcopy(self._pending, memo)
        return clone

    def _gym_obs(self) -> np.ndarray:
        return np.asarray(self.env._get_obs(), np.float64)

    def _groups(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        return {k: np.atleast_1d(obs[idx]).astype(np.float32) for k, idx in self.spec_.observation.items()}

    def _obs(self) -> dict[str, np.ndarray]:
        groups = self._groups(self._gym_obs())
        noise = self._noise(groups, self._rng)
        return {k: v + noise[k] for k, v in groups.items()}

    def _noise(self, groups: dict[str, np.ndarray], rng: np.random.Generator) -> dict:
        """One step's sensor noise for each group (0 where the domain has none)."""
        std = self.physics.obs_noise_std
        return {k: rng.normal(0.0, std, v.shape).astype(np.float32) if std else 0.0 for k, v in groups.items()}

    def oracle_privileged_state(self) -> np.ndarray:
        """True state and effective physics in every domain: for the expert only, never for learning code."""
        state = [read(self.data) for read in self.spec_.state.values()]
        phys = [
            np.atleast_1d(getattr(self.model, p.field)[self.nominal.rows[p.name][0]].reshape(-1)[p.column])
            for p in self.spec_.physics
        ]
        return np.concatenate(state + phys).astype(np.float32)

    def named_state(self) -> dict[str, Any]:
        return self.layout.unpack(self.oracle_privileged_state())

    def _info(self) -> dict:
        info = {"success": bool(self.spec_.success(self.named_state()))}
        if self.domain == "sim":
            info["privileged"] = self.oracle_privileged_state()
        return info

    def render_scene(self):
        cam = mujoco.MjvCamera()
        mujoco.mjv_defaultFreeCamera(self.model, cam)
        return self.model, self.data, cam

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._factors = physics_factors(self.spec_, self.nominal, self.physics, self._rng)
        write_physics(self.spec_, self.model, self.nominal, self._factors)
        ic = (options or {}).get("initial_condition")
        if ic is None:
            ic = gym_initial_condition(self.env, int(self._rng.integers(1 << 31)))
        self.env.set_state(np.asarray(ic["qpos"], np.float64), np.asarray(ic["qvel"], np.float64))
        mid = (self.action_space.low + self.action_space.high) / 2
        self._pending: deque = deque([mid] * self.physics.action_delay_steps)  # commands still on their way
        self._t, self._solved = 0, False
        return self._obs(), self._info()

    def step(self, action):
        space = self.action_space
        a = np.asarray(action, np.float64).reshape(-1)
        if a.shape != space.shape or not np.all(np.isfinite(a)):
            raise ValueError(f"action must be {space.shape[0]} finite values, got {action!r}")
        a = np.clip(a, space.low, space.high)
        self._pending.append(a)
        applied = self._pending.popleft()
        _, gym_reward, _, _, _ = self.env.step(applied)  # Gymnasium's termination is dropped (module docstring)
        self._t += 1
        info = self._info()
        first_success, self._solved = info["success"] and not self._solved, self._solved or info["success"]
        if self.domain == "sim":
            dense = gym_reward if self.spec_.dense_reward is None else self.spec_.dense_reward(self.named_state(), a)
            info["dense_reward"] = reward = float(dense)
        else:  # the robot reports success only
            reward = 1.0 if first_success else 0.0
        return self._obs(), reward, False, self._t >= self.spec_.episode_steps, info

    def simulate_sequences(self, actions: np.ndarray) -> Sequences | None:
        """`actions` (N, T, A) played open loop from the current state in native threads (Gymnasium's MuJoCo envs
        hold each action as `ctrl` for `frame_skip` physics steps): what stepping a copy of this env would give,
        sensor noise included; this env is left unchanged. None where the task has no `dense_reward` of its own
        (Gymnasium's reward needs its step)."""
        if self.spec_.dense_reward is None:
            return None
        space = self.action_space
        a = np.clip(np.asarray(actions, np.float64), space.low, space.high)
        N, T = a.shape[:2]
        frames = self.env.frame_skip
        states = play_controls(self.model, self.data, np.repeat(queued_then(list(self._pending), a), frames, axis=1))
        scratch = copy.copy(self)  # the same model and spec, its own MjData and noise stream
        scratch.env = copy.copy(self.env)
        scratch.data = scratch.env.data = mujoco.MjData(self.model)
        scratch._rng = copy.deepcopy(self._rng)
        obs = {k: np.empty((T, N, *v.shape), np.float32) for k, v in self.observation_space.spaces.items()}
        reward, privileged = np.empty((T, N)), []
        for k in range(T):
            # one draw per step, shared by every sequence (as a copy's stream)
            noise = self._noise(self._groups(np.zeros_like(self._gym_obs())), scratch._rng)
            for n in range(N):
                set_state(self.model, scratch.data, states[n, (k + 1) * frames - 1])
                for g, v in scratch._groups(scratch._gym_obs()).items():
                    obs[g][k, n] = v + noise[g]
                reward[k, n] = self.spec_.dense_reward(scratch.named_state(), a[n, k])
                privileged.append(scratch.oracle_privileged_state())
        return Sequences(
            obs={g: np.swapaxes(v, 0, 1) for g, v in obs.items()},
            dense_reward=reward.T,
            privileged=np.stack(privileged).reshape(T, N, -1).swapaxes(0, 1),
            steps_left=self.spec_.episode_steps - self._t,
        )


def gym_initial_condition(env: gym.Env, seed: int) -> dict[str, list[float]]:
    """A start state from the Gymnasium env's own reset distribution, as plain lists (JSON-friendly)."""
    env.reset(seed=seed)
    return {"qpos": env.data.qpos.tolist(), "qvel": env.data.qvel.tolist()}
