"""LQR design for adapted Gymnasium tasks: the discrete-time linear model of one control step about a state, for
the physics the privileged state names (so an expert on true state also uses the true masses, gears, ...)."""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np

from simdist.tasks.gymnasium.env import Nominal, make_gym_env, write_physics


class Linearizer:
    """Its own copy of the task's MjModel, re-linearised whenever the named physics change."""

    def __init__(self, task: Any):
        self.spec = task.gym_spec
        env = make_gym_env(self.spec.env_id, **self.spec.env_kwargs)
        self.model, self.data, self.frame_skip = env.model, mujoco.MjData(env.model), env.frame_skip
        self.nominal = Nominal(self.spec, self.model)
        self._cache: dict[tuple, np.ndarray] = {}

    def linearize(self, state: dict[str, Any], qpos: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(A, B) of x' = A x + B u over one control step (Gymnasium's frame_skip physics steps), x = [qpos, qvel]
        deviations, about ``qpos`` (default the model's qpos0) at rest."""
        factors = {
            p.name: state[p.name] / self.nominal.values[p.name][0].reshape(-1)[p.column] for p in self.spec.physics
        }
        write_physics(self.spec, self.model, self.nominal, factors)
        m = self.model
        if m.nq != m.nv or m.na:
            raise ValueError("Linearizer handles hinge and slide joints without actuator state (nq == nv, na == 0)")
        x0 = np.concatenate([self.model.qpos0 if qpos is None else qpos, np.zeros(m.nv)])
        u0, eps = np.zeros(m.nu), 1e-5
        a = np.stack([(self._step(x0 + e, u0) - self._step(x0 - e, u0)) / (2 * eps) for e in eps * np.eye(len(x0))], 1)
        b = np.stack([(self._step(x0, u0 + e) - self._step(x0, u0 - e)) / (2 * eps) for e in eps * np.eye(m.nu)], 1)
        return a, b

    def _step(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        """One control step (frame_skip physics steps, any integrator) from state x with control u held."""
        m, d = self.model, self.data
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:], d.ctrl[:] = x[: m.nq], x[m.nq :], u
        for _ in range(self.frame_skip):
            mujoco.mj_step(m, d)
        return np.concatenate([d.qpos, d.qvel])

    def lqr_gain(self, state: dict[str, Any], q: np.ndarray, r: np.ndarray) -> np.ndarray:
        """K of u = -K x for the physics in ``state`` (cached by their values)."""
        key = tuple(round(float(state[p.name]), 6) for p in self.spec.physics)
        if key not in self._cache:
            if len(self._cache) > 256:  # sim redraws the physics each episode
                self._cache.clear()
            self._cache[key] = lqr(*self.linearize(state), q, r)
        return self._cache[key]


def lqr(a: np.ndarray, b: np.ndarray, q: np.ndarray, r: np.ndarray, iters: int = 2000) -> np.ndarray:
    """The infinite-horizon discrete LQR gain, by Riccati iteration (numpy only)."""
    p = q.copy()
    for _ in range(iters):
        k = np.linalg.solve(r + b.T @ p @ b, b.T @ p @ a)
        p_next = q + a.T @ p @ (a - b @ k)
        if np.allclose(p_next, p, rtol=1e-9, atol=1e-9):
            break
        p = p_next
    return k
