"""Teleoperated demonstrations in a task's `real` domain, for the baselines that use them (paper §8).

A privileged controller acting on exact state stands in for the human operator: the task's `teleoperator()` where
it has one, else its expert. Only successful attempts are kept, as an operator discards failed takes.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from pathlib import Path

from simdist.adaptation.rounds import round_initial_conditions
from simdist.data.episodes import DatasetInfo, Episode, create_dataset, load_episodes, write_episodes
from simdist.rollout import PrivilegedAgent, rollout

log = logging.getLogger(__name__)
DEMO_SEED_OFFSET = 10_007  # demonstration initial conditions never coincide with the evaluation ones


def write_real_episodes(data_dir: Path, task, episodes: list[Episode], prefix: str, notes: str) -> None:
    """Append `episodes` to the real-domain dataset at `data_dir` (created on first use)."""
    spec = task.spec
    create_dataset(data_dir, DatasetInfo.of_task(spec, "real", notes))
    for i, ep in enumerate(episodes):
        write_episodes(data_dir, [ep], name=f"{prefix}_{i:03d}")


def teleoperator(task):
    """The stand-in for a human teleoperator: a privileged controller acting on exact state in `real`. A task may
    offer a more careful one than its data-generation expert (`task.teleoperator()`); otherwise the expert."""
    return task.teleoperator() if hasattr(task, "teleoperator") else task.expert()


def collect_demonstrations(
    task, n: int, grid: str, seed: int, out: Path | None = None, max_attempts: int | None = None, physics=None
) -> list[Episode]:
    """`n` successful teleoperated demonstrations in the real domain (failed attempts are discarded, as a human
    operator would; at most `max_attempts`, default 5n, after which fewer are returned with a warning). `physics`
    overrides the real domain's physics, as for the runs the demonstrations serve."""
    if n <= 0:
        return []
    max_attempts = max_attempts or 5 * n
    env = task.make_env("real", physics, seed=seed + DEMO_SEED_OFFSET)
    agent = PrivilegedAgent(teleoperator(task), env, seed=seed)
    kept, attempts, batch, need = [], 0, 0, None
    while len(kept) < n and attempts < max_attempts:
        # Each batch holds n initial conditions split over the grids as a round's are; a failed attempt is
        # retried on a fresh initial condition of the same grid in the next batch.
        batch_seed = seed + DEMO_SEED_OFFSET + batch * 7919
        ics, labels = round_initial_conditions(task, grid, n, seed=batch_seed)
        need = Counter(labels) if need is None else need
        chosen, quota = [], Counter(need)
        for ic, g in zip(ics, labels):
            if quota[g] > 0 and len(chosen) < max_attempts - attempts:
                chosen.append((ic, g))
                quota[g] -= 1
        res = rollout(task, env, agent, [ic for ic, _ in chosen], seed=batch_seed, source="demonstration")
        attempts, batch = attempts + len(chosen), batch + 1
        for episode, (_, g) in zip(res.episodes, chosen):
            if episode.success:
                kept.append(episode)
                need[g] -= 1
    if len(kept) < n:
        log.warning("only %d of %d teleoperated demonstrations succeeded in %d attempts", len(kept), n, attempts)
    if out is not None:
        write_real_episodes(
            out, task, kept, "demo", "teleoperated demonstrations (privileged stand-in; successful attempts only)"
        )
    log.info("collected %d successful demonstrations in %d attempts", len(kept), attempts)
    return kept


def run_demonstrations(task, n: int, grid: str, seed: int, out: Path, physics=None) -> list[Episode]:
    """A run's demonstrations: the `n` already in `out` when a run resumes (they are real-robot data, collected
    once), else freshly collected there. An incomplete set (a crash while writing it) is moved aside, not deleted."""
    if n > 0 and (out / "dataset.json").exists():
        _, kept = load_episodes(out)
        if len(kept) == n:
            log.info("reusing the %d demonstrations in %s", n, out)
            return kept
        aside = out.with_name(f"{out.name}.incomplete-{time.time_ns()}")
        out.rename(aside)
        log.warning("%s held %d of %d demonstrations; moved to %s, collecting again", out, len(kept), n, aside)
    return collect_demonstrations(task, n, grid, seed, out, physics=physics)
