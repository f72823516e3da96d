"""Run an agent in a task domain for a set of initial conditions; collect metrics and (optionally) episodes.

Works for every domain through the Task protocol only: it reads observations and `info["success"]`,
never privileged state, so the same code drives the `real` stand-in and a physical robot.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Protocol

import numpy as np

from simdist.data.episodes import Episode
from simdist.progress import progress_bar
from simdist.tasks.base import COMMAND_KEY


def wilson_interval(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a success rate: honest at 0 or n successes and for the 15-45 trials an
    evaluation here has (±0.1-0.25), where the normal approximation's ±1.96·SE leaves [0, 1]."""
    if trials <= 0:
        return 0.0, 1.0
    p, z2 = successes / trials, z * z
    centre, half = p + z2 / (2 * trials), z * np.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return float(max(0.0, (centre - half) / (1 + z2 / trials))), float(min(1.0, (centre + half) / (1 + z2 / trials)))


class Agent(Protocol):
    """An agent with randomness of its own also defines `reseed(seed)`: `rollout` calls it before each episode's
    `reset` with the episode's seed, so that no episode's random numbers depend on the episodes before it (a
    resumed round replays an uninterrupted one)."""

    def reset(self) -> None: ...

    def act(self, obs: dict[str, np.ndarray]) -> np.ndarray: ...


@dataclass
class RolloutResult:
    episodes: list[Episode]
    metrics: list[dict[str, float]]
    initial_conditions: list
    wall_s: float
    plan_ms: list[float] = field(default_factory=list)

    def summary(self, control_period_s: float) -> dict[str, float]:
        keys = sorted({k for m in self.metrics for k in m})
        out = {
            f"mean_{k}" if k != "success" else "success_rate": float(np.mean([m.get(k, 0.0) for m in self.metrics]))
            for k in keys
        }
        steps = sum(len(e) for e in self.episodes)
        minutes = steps * control_period_s / 60.0
        successes = sum(m.get("success", 0.0) for m in self.metrics)
        out.update(
            {
                "success_ci95": wilson_interval(successes, len(self.metrics)),
                "successes": successes,
                "trials": len(self.metrics),
                "steps": steps,
                "robot_minutes": minutes,
                "successes_per_minute": successes / minutes if minutes else 0.0,
                "mean_time_s": float(
                    np.mean([m.get("time_s", len(e) * control_period_s) for m, e in zip(self.metrics, self.episodes)])
                ),
            }
        )
        if self.plan_ms:
            out["median_plan_ms"] = float(np.median(self.plan_ms))
        return out


def episode_seed(stream: int | tuple[int, ...], index: int) -> int:
    """The environment's reset seed for episode `index` of a stream (an evaluation seed, or (seed, round)).
    Streams are independent: evaluation seeds S and S + 1 share no episode, as they did when this was S + index."""
    words = (stream,) if isinstance(stream, int) else tuple(stream)
    # SeedSequence reads its words as one little-endian integer, so trailing zeros vanish: lead with the length.
    return int(np.random.SeedSequence([len(words), *words, index]).generate_state(1)[0])


def rollout(
    task,
    env,
    agent: Agent,
    initial_conditions: list,
    seed: int | tuple[int, ...] = 0,
    progress: bool = False,
    on_episode: Callable[[int, Episode, dict], None] | None = None,
    source: str = "agent",
    first_index: int = 0,
) -> RolloutResult:
    """One episode per initial condition; the i-th is episode `first_index + i` of the stream `seed`
    (`episode_seed`), so a resumed round seeds its episodes as an uninterrupted one would.
    `on_episode(i, episode, metrics)` is called as each one ends (the adaptation loop writes real data then)."""
    spec = task.spec
    episodes, metrics, plan_ms = [], [], []
    start = time.perf_counter()
    for i, ic in enumerate(progress_bar(initial_conditions, disable=not progress, desc=f"{spec.name} rollouts")):
        ep_seed = episode_seed(seed, first_index + i)
        obs, info = env.reset(seed=ep_seed, options={"initial_condition": ic})
        reseed_agent(agent, ep_seed)
        agent.reset()
        rec_obs = {g: [] for g in spec.obs_shapes}
        actions, commands, infos = [], [], []
        for _ in range(spec.episode_steps):
            t0 = time.perf_counter()
            action = np.asarray(agent.act(obs), np.float32)
            plan_ms.append((time.perf_counter() - t0) * 1e3)
            for g in spec.obs_shapes:
                rec_obs[g].append(obs[g])
            if spec.command_dim:
                commands.append(obs[COMMAND_KEY])
            actions.append(action)
            obs, _, terminated, truncated, info = env.step(action)
            infos.append(info)
            if terminated or truncated:
                break
        m = task.episode_metrics(infos)
        if hasattr(agent, "episode_plan_metrics"):  # MPPI: how often the plan, not the BC chunk, acted
            m.update(agent.episode_plan_metrics())
        if infos and "dense_reward" in infos[0]:  # `sim` only: the paper's Table I metric for the quadruped
            m["return"] = float(sum(i["dense_reward"] for i in infos))
        ep = Episode(
            obs={g: np.asarray(v, np.float32) for g, v in rec_obs.items()},
            action=np.asarray(actions, np.float32),
            command=np.asarray(commands, np.float32) if spec.command_dim else None,
            success=bool(m.get("success", 0.0)),
            source_policy=source,
            metrics=m,
        )
        episodes.append(ep)
        metrics.append(m)
        if on_episode is not None:
            on_episode(i, ep, m)
    return RolloutResult(episodes, metrics, list(initial_conditions), time.perf_counter() - start, plan_ms)


def reseed_agent(agent, seed: int) -> None:
    """Restart an agent's own random numbers for the episode of `seed`, where it has any (`Agent.reseed`)."""
    reseed = getattr(agent, "reseed", None)
    if reseed is not None:
        reseed(seed)


class PrivilegedAgent:
    """Runs a privileged policy on the env's true state: the expert in `sim`, or the stand-in for a human
    teleoperator in `real` (which a real robot could not do; used only for expert evaluation and demos)."""

    def __init__(self, policy, env, seed: int = 0):
        self.policy, self.env, self.seed = policy, env, seed
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int) -> None:
        self.rng = np.random.default_rng([self.seed, seed])

    def reset(self) -> None:
        self.policy.reset(self.rng)

    def act(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        return np.asarray(self.policy.act(self.env.oracle_privileged_state()), np.float32)


def evaluate_grids(
    task,
    make_agent: Callable[[object], Agent],
    domain: str,
    grids: tuple[str, ...],
    trials: int,
    seed: int = 0,
    physics=None,
    progress: bool = False,
    source: str = "agent",
) -> dict:
    """`trials` episodes on each grid, each grid in a fresh env seeded with `seed` (`simdist evaluate`'s protocol):
    the per-grid summaries and their means over grids (success_rate, mean_time_s, task metrics such as
    mean_progress_m) and the 95 % interval of the success rate over all trials (`success_ci95`). `make_agent(env)`
    gives the agent for a grid's env (the privileged expert reads its state)."""
    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    out: dict = {"task": task.spec.name, "domain": domain, "grids": {}}
    for grid in grids:
        env = task.make_env(domain, physics, seed=seed)
        res = rollout(
            task,
            env,
            make_agent(env),
            task.initial_conditions(grid, trials, seed=seed),
            seed=seed,
            progress=progress,
            source=source,
        )
        out["grids"][grid] = res.summary(task.spec.control_period_s)
    per_grid = list(out["grids"].values())
    for key in per_grid[0]:
        if key == "success_rate" or key.startswith("mean_"):
            out[key] = sum(g[key] for g in per_grid) / len(per_grid)
    out["success_ci95"] = wilson_interval(sum(g["successes"] for g in per_grid), sum(g["trials"] for g in per_grid))
    return out
