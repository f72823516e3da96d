"""Episode loops used by the critic fit and the measurement script (not by learning code: they read the oracle)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from simdist.tasks.base import PrivilegedPolicy
from simdist.tasks.ur5e.env import UR5eEnv


@dataclass
class Episode:
    privileged: list[np.ndarray] = field(default_factory=list)  # state before each action
    rewards: list[float] = field(default_factory=list)  # dense reward of each step
    success: bool = False
    terminated: bool = False

    @property
    def steps(self) -> int:
        return len(self.rewards)


class NoisyPolicy:
    """Expert with Gaussian action noise of a fixed per-episode scale (for diverse critic training states)."""

    def __init__(self, policy: PrivilegedPolicy, noise_std: float):
        self.policy, self.noise_std = policy, noise_std
        self.name = f"{policy.name}+noise{noise_std:.2f}"
        self._rng = np.random.default_rng(0)

    def reset(self, rng: np.random.Generator) -> None:
        self._rng = rng
        self.policy.reset(rng)

    def act(self, privileged: np.ndarray) -> np.ndarray:
        action = self.policy.act(privileged)
        return np.clip(action + self._rng.normal(0.0, self.noise_std, action.shape), -1.0, 1.0)


def run_episode(
    env: UR5eEnv,
    policies: list[tuple[PrivilegedPolicy, int]],
    rng: np.random.Generator,
    initial_condition=None,
    seed: int | None = None,
) -> Episode:
    """Run ``policies`` in turn, each for its number of steps (the last one until the episode ends).

    Policies read the exact state from the environment's oracle, so this also works in the `real` domain; one that
    also perceives (``observe``) is shown each observation first.
    """
    options = {"initial_condition": initial_condition} if initial_condition is not None else None
    obs, _ = env.reset(seed=seed, options=options)
    for policy, _ in policies:
        policy.reset(rng)
    episode = Episode()
    schedule = [(policy, steps) for policy, steps in policies[:-1]] + [(policies[-1][0], 10**9)]
    for policy, steps in schedule:
        for _ in range(steps):
            privileged = env.oracle_privileged_state()
            if hasattr(policy, "observe"):
                policy.observe(obs)
            obs, reward, terminated, truncated, info = env.step(policy.act(privileged))
            episode.privileged.append(privileged)
            episode.rewards.append(float(info.get("dense_reward", reward)))
            episode.success = episode.success or bool(info["success"])
            if terminated or truncated:
                episode.terminated = bool(terminated)
                return episode
    return episode


def success_rate(
    env: UR5eEnv, policy: PrivilegedPolicy, initial_conditions: list, seed: int = 0
) -> tuple[float, float]:
    """Fraction of successes over ``initial_conditions`` and the measured control steps per second."""
    successes, steps, start = 0, 0, time.perf_counter()
    for index, ic in enumerate(initial_conditions):
        episode = run_episode(env, [(policy, 0)], np.random.default_rng([seed, index]), ic, seed=seed * 1000 + index)
        successes += episode.success
        steps += episode.steps
    return successes / max(1, len(initial_conditions)), steps / (time.perf_counter() - start)
