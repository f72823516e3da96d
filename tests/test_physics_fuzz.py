"""Invalid physics files, fed to every task: wrong types, wrong shapes, out-of-range, non-finite and unknown values
each end in one line naming the parameter (no traceback), and nothing is written."""

import dataclasses
import json
import logging
import math
import os
import re
import subprocess
import sys
import typing
from pathlib import Path

import numpy as np
import pytest

from simdist.cli import main
from simdist.tasks import registry
from simdist.tasks.base import domain_physics
from simdist.tasks.physics_schema import check_physics, field_limit

ROOT = Path(__file__).resolve().parents[1]
GYM_EXAMPLE = ROOT / "examples" / "inverted_pendulum" / "task.py"


def _has_gym_extra() -> bool:
    import importlib.util

    return importlib.util.find_spec("imageio") is not None


def _forget_task_files(before: set[str]) -> None:
    for name in set(sys.modules) - before:
        if name.startswith("simdist_task_file_"):
            del sys.modules[name]


@pytest.fixture(scope="module")
def tasks():
    """Every registered task, the Gymnasium example included where the gym extra is installed; the registry is
    restored afterwards, so other tests see only the built-in tasks."""
    registry.task_names()
    saved, before = dict(registry._FACTORIES), set(sys.modules)
    if _has_gym_extra() and "inverted-pendulum" not in saved:
        registry._import_task_module(str(GYM_EXAMPLE))
    yield {name: registry.get_task(name) for name in registry.task_names()}
    registry._FACTORIES.clear()
    registry._FACTORIES.update(saved)
    _forget_task_files(before)


def bad_values(name: str, default, hint, limit) -> list:
    """Values that the field ``name`` must refuse, from its type, shape and physical range."""
    out: list = [{"nested": 1}]
    if typing.get_origin(hint) in (typing.Union, __import__("types").UnionType):
        hint = next(a for a in typing.get_args(hint) if a is not type(None))
    else:
        out.append(None)
    low = limit.gt if limit.gt is not None else limit.ge
    if hint is bool:
        return out + [1, "true", [True]]
    if hint is str:
        return out + [3, ["course"]]
    if hint is int:
        out += [1.5, "2", True, [1, 1]]
        return out + ([low - 1] if low is not None else []) + ([limit.le + 1] if limit.le is not None else [])
    if hint is float:
        out += ["heavy", f"{default}", True, [default, default], math.nan, math.inf, -math.inf]
        return out + ([low - 1.0] if low is not None else []) + ([limit.le + 1.0] if limit.le is not None else [])
    if typing.get_origin(hint) is tuple:
        values = list(default) if default is not None else [0.5, 0.5]
        out += [0.5, "0.12", [str(v) for v in values], [math.nan] * len(values), [True] * len(values)]
        if typing.get_args(hint)[-1] is not Ellipsis:
            out += [values + values[:1], values[:-1]]
        if low is not None:
            out.append([low - 1.0] * len(values))
        if "_range" in name and len(values) == 2:
            out.append([values[1] + 1.0, values[0]])
        return out
    return out


def invalid_overrides(task) -> list[tuple[str, dict]]:
    base = task.default_physics("sim")
    hints = typing.get_type_hints(type(base))
    cases = [("no_such_parameter", {"no_such_parameter": 1.0}), ("with_sim", {"with_sim": 3})]
    for f in dataclasses.fields(base):
        limit = field_limit(type(base), f.name)
        cases += [(f.name, {f.name: v}) for v in bad_values(f.name, getattr(base, f.name), hints[f.name], limit)]
    return cases


def test_every_task_documents_valid_physics(tasks):
    for name, task in tasks.items():
        for domain in ("sim", "real"):
            check_physics(task.default_physics(domain), f"{name} {domain}")


def test_every_task_refuses_invalid_physics_in_one_line(tasks, tmp_path):
    checked = 0
    for name, task in tasks.items():
        for i, (param, overrides) in enumerate(invalid_overrides(task)):
            path = tmp_path / f"{name}_{i}.json"
            path.write_text(json.dumps(overrides))  # NaN and Infinity as Python's json writes them
            domain = "real" if param == "with_sim" else "sim"
            with pytest.raises((ValueError, KeyError)) as err:
                domain_physics(task, domain, str(path))
            message = err.value.args[0]
            assert "\n" not in message and param in message and str(path) in message, (name, overrides, message)
            checked += 1
    assert checked > 200


def test_the_issue_s_examples_name_parameter_value_and_rule(tasks, tmp_path):
    cases = {
        ("pendulum", json.dumps({"mass": "heavy"})): 'mass = "heavy": must be a number',
        ("pendulum", json.dumps({"mass": [1.65, 1.65]})): "mass = [1.65, 1.65]: must be a number",
        ("pendulum", json.dumps({"max_torque": -4})): "max_torque = -4: must be >= 0",
        ("foam", json.dumps({"foam_solref": 0.06})): "foam_solref = 0.06: must be a list of 2 numbers",
        ("peg-insertion", json.dumps({"peg_mass_range_kg": "0.12"})): "must be a list of 2 numbers",
        ("peg-insertion", json.dumps({"peg_mass_range_kg": [-0.1, 0.1]})): "must be > 0 (kg)",
        ("pendulum", "{not json"): "not valid JSON",
        ("pendulum", json.dumps([1, 2])): "must hold a mapping",
    }
    for (name, text), expected in cases.items():
        path = tmp_path / "bad.json"
        path.write_text(text)
        with pytest.raises(ValueError, match=re.escape(expected)):
            domain_physics(tasks[name], "sim", str(path))


def test_the_cli_refuses_a_bad_physics_file_before_writing(tasks, tmp_path, caplog):
    rng = np.random.default_rng(0)
    for name, task in tasks.items():
        cases = invalid_overrides(task)
        for k in rng.choice(len(cases), 3, replace=False):
            param, overrides = cases[k]
            path, out = tmp_path / "bad.json", tmp_path / "out" / name
            path.write_text(json.dumps(overrides))
            caplog.clear()
            with caplog.at_level(logging.ERROR):
                assert (
                    main(["generate", name, "--episodes", "1", "--physics", str(path), "--out", str(out), "--quiet"])
                    == 2
                )
            errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
            assert len(errors) == 1 and errors[0].exc_info is None and "\n" not in errors[0].getMessage()
            assert not out.exists() and not (tmp_path / "out").exists(), (name, overrides)


def test_the_cli_prints_one_line_and_no_traceback(tmp_path):
    path, out = tmp_path / "bad.json", tmp_path / "never"
    path.write_text(json.dumps({"mass": "heavy"}))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OMP_NUM_THREADS": "1"}
    argv = ["generate", "pendulum", "--episodes", "1", "--physics", str(path), "--out", str(out), "--quiet"]
    proc = subprocess.run(
        [sys.executable, "-m", "simdist.cli", *argv], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and 'mass = "heavy": must be a number' in proc.stderr
    assert not out.exists()


def test_physics_the_env_refuses_stop_generation_before_writing(tmp_path, monkeypatch, caplog):
    """A latency above the point-mass env's cap (one control period) passes the schema; the env refuses it, and
    generation stops before creating its dataset."""
    registry.task_names()
    monkeypatch.setenv(registry.MODULES_ENV, str(ROOT / "examples" / "point_mass" / "task.py"))
    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    monkeypatch.setattr(registry, "_BUILTINS_LOADED", False)
    before = set(sys.modules)
    path, out = tmp_path / "late.json", tmp_path / "data"
    path.write_text(json.dumps({"actuator_delay_s": 0.2}))
    with caplog.at_level(logging.ERROR):
        assert (
            main(["generate", "point-mass", "--episodes", "1", "--physics", str(path), "--out", str(out), "--quiet"])
            == 2
        )
    _forget_task_files(before)
    assert "actuator_delay_s may be at most one control period" in caplog.text and not out.exists()
