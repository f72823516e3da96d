"""Many open-loop action sequences played from one MuJoCo state in native threads (`mujoco.rollout`).

Envs whose control step is a fixed map from action to `ctrl` over a known number of physics steps offer
`simulate_sequences(actions)`, which `simdist diagnose` calls instead of stepping a copy of the env once per
candidate (the pendulum and every Gymnasium task: 20-40x faster). What they return is `Sequences`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import mujoco
import mujoco.rollout
import numpy as np

FULL = mujoco.mjtState.mjSTATE_FULLPHYSICS


@dataclass
class Sequences:
    """What N action sequences of T control steps did, step by step, as if the episode never ended."""

    obs: dict[str, np.ndarray]  # group -> (N, T, *shape): o_{t+1..t+T}, with the env's own sensor noise
    dense_reward: np.ndarray  # (N, T)
    privileged: np.ndarray  # (N, T, P): the privileged state after each step
    steps_left: int  # control steps before the episode is truncated (the caller masks what comes after)


def full_state(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    state = np.empty(mujoco.mj_stateSize(model, FULL))
    mujoco.mj_getState(model, data, state, FULL)
    return state


def play_controls(model: mujoco.MjModel, data: mujoco.MjData, controls: np.ndarray) -> np.ndarray:
    """Full physics states (N, S, nstate) after each of S physics steps of `controls` (N, S, nu) from `data`'s
    state (and solver warm start); `data` is left as it was."""
    threads = max(1, min(len(os.sched_getaffinity(0)), controls.shape[0]))
    scratch = [mujoco.MjData(model) for _ in range(threads)]
    states, _ = mujoco.rollout.rollout(
        model,
        scratch,
        full_state(model, data)[None],
        np.ascontiguousarray(controls, np.float64),
        initial_warmstart=data.qacc_warmstart[None].copy(),
    )
    return states


def set_state(model: mujoco.MjModel, data: mujoco.MjData, state: np.ndarray) -> None:
    """Put a full physics state into `data` with everything derived from it (positions, forces, sensors)."""
    mujoco.mj_setState(model, data, state, FULL)
    mujoco.mj_forward(model, data)
    mujoco.mj_rnePostConstraint(model, data)


def queued_then(queue: list[np.ndarray], actions: np.ndarray) -> np.ndarray:
    """(N, L, A) what a latency queue applies: its pending entries first, then `actions` (N, T, A), L = T."""
    N, T = actions.shape[:2]
    if not queue:
        return actions
    pending = np.broadcast_to(np.asarray(queue, actions.dtype), (N, len(queue), actions.shape[2]))
    return np.concatenate((pending, actions), axis=1)[:, :T]


__all__ = ["Sequences", "full_state", "play_controls", "queued_then", "set_state"]
