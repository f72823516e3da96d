"""The physics-override files the benchmarks and checkpoint READMEs use (benchmarks/physics/*.json) fit their task's
documented physics parameters: one schema check per task over all of its files (names and value shapes, through the
same `domain_physics` the CLI's `--physics` uses), and one env built and reset per task from one of them, so a
misspelt field or a value the simulator refuses fails here, not minutes into an evaluation or an Alg. 1 run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simdist.tasks import get_task
from simdist.tasks.base import domain_physics

PHYSICS = Path(__file__).resolve().parents[1] / "benchmarks" / "physics"
TASK_BY_PREFIX = {
    "peg_": "peg-insertion",
    "table_leg_": "table-leg",
    "foam_": "foam",
    "slope_": "slippery-slope",
    "sim_": "slippery-slope",
    "pendulum_": "pendulum",
}  # sim_*: the slope's simulator panels and feet
FILES = sorted(PHYSICS.glob("*.json"))


def task_and_domain(name: str) -> tuple[str, str]:
    """A file names its task by prefix and its domain by `_real_` (else `sim` where the name says so, else `real`)."""
    task = next((t for prefix, t in TASK_BY_PREFIX.items() if name.startswith(prefix)), None)
    assert task is not None, f"{name}: start the name with one of {sorted(TASK_BY_PREFIX)} to name its task"
    domain = "real" if "_real_" in name else ("sim" if "sim" in name else "real")
    return task, domain


def files_of(task: str) -> list[Path]:
    return [p for p in FILES if task_and_domain(p.name)[0] == task]


TASKS = sorted({task_and_domain(p.name)[0] for p in FILES})


def test_every_physics_file_names_its_task():
    assert FILES and all(task_and_domain(p.name) for p in FILES)


@pytest.mark.parametrize("task", TASKS)
def test_physics_files_fit_their_tasks_parameters(task: str):
    t = get_task(task)
    bad = []
    for path in files_of(task):
        try:
            physics = domain_physics(t, task_and_domain(path.name)[1], path)
            assert isinstance(physics, t.physics_type)
        except (KeyError, ValueError, TypeError) as err:
            bad.append(f"{path.name}: {err}")
    assert not bad, bad


@pytest.mark.parametrize("task", TASKS)
def test_one_physics_file_per_task_builds_its_env(task: str):
    path = files_of(task)[0]
    t = get_task(task)
    env = t.make_env(task_and_domain(path.name)[1], path, seed=0)
    try:
        obs, _ = env.reset(seed=0)
        # the observation the world model reads: every group of the task's spec, finite
        assert set(t.spec.obs_shapes) <= set(obs), (sorted(obs), sorted(t.spec.obs_shapes))
        assert all(np.isfinite(np.asarray(obs[g])).all() for g in t.spec.obs_shapes)
        obs, reward, *_ = env.step(np.zeros(t.spec.action_dim))
        assert np.isfinite(reward)
    finally:
        env.close()
