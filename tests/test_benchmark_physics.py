"""Every physics-override file the benchmarks use (benchmarks/physics/*.json) builds and resets its task's env: a
misspelt field or a value the simulator refuses fails here, not minutes into an evaluation or an Alg. 1 run."""

from __future__ import annotations

from pathlib import Path

import pytest

from simdist.tasks import get_task

PHYSICS = Path(__file__).resolve().parents[1] / "benchmarks" / "physics"
TASK_BY_PREFIX = {"peg_": "peg-insertion", "table_leg_": "table-leg", "foam_": "foam", "slope_": "slippery-slope",
                  "sim_": "slippery-slope"}  # sim_*: the slope's simulator panels


def task_and_domain(name: str) -> tuple[str, str]:
    """A file names its task by prefix and its domain by `_real_` (else `sim` where the name says so, else `real`)."""
    task = next((t for prefix, t in TASK_BY_PREFIX.items() if name.startswith(prefix)), None)
    assert task is not None, f"{name}: start the name with one of {sorted(TASK_BY_PREFIX)} to name its task"
    domain = "real" if "_real_" in name else ("sim" if "sim" in name else "real")
    return task, domain


def test_the_benchmarks_have_physics_files():
    assert len(list(PHYSICS.glob("*.json"))) > 10


@pytest.mark.parametrize("path", sorted(PHYSICS.glob("*.json")), ids=lambda p: p.name)
def test_physics_file_builds_its_env(path: Path):
    task, domain = task_and_domain(path.name)
    env = get_task(task).make_env(domain, path, seed=0)
    env.reset(seed=0)
    env.close()
