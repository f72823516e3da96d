"""Tasks from outside simdist: the example point-mass task (examples/point_mass/task.py) through every command,
registered by SIMDIST_TASK_MODULES, and an installed package's entry point."""

import json
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from simdist.cli import main
from simdist.tasks import registry

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "point_mass" / "task.py"


def run_json(capsys, *argv) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_the_example_task_runs_through_every_command(tmp_path, monkeypatch, capsys, fresh_registry):
    """Generate (in worker processes, which inherit the variable), pretrain, evaluate, adapt: nothing in simdist
    knows the task but the file that registers it."""
    monkeypatch.setenv(registry.MODULES_ENV, str(EXAMPLE))
    assert "point-mass" in registry.task_names()
    data, model = tmp_path / "sim", tmp_path / "model"
    stats = run_json(
        capsys, "generate", "point-mass", "--episodes", "6", "--workers", "2", "--out", str(data), "--json", "--quiet"
    )
    assert stats["episodes"] == 6
    run_json(
        capsys,
        "pretrain",
        "--data",
        str(data),
        "--out",
        str(model),
        "--preset",
        "cpu",
        "--steps",
        "20",
        "--json",
        "--quiet",
    )
    ev = run_json(
        capsys,
        "evaluate",
        "point-mass",
        "--checkpoint",
        str(model),
        "--domain",
        "real",
        "--trials",
        "2",
        "--out",
        str(tmp_path / "eval.json"),
        "--json",
        "--quiet",
    )
    assert ev["grids"]["default"]["trials"] == 2
    res = run_json(
        capsys,
        "adapt",
        "point-mass",
        "--checkpoint",
        str(model),
        "--rounds",
        "1",
        "--episodes-per-round",
        "2",
        "--set",
        "finetune.epochs=2",
        "--sim-data",
        str(data),
        "--out",
        str(tmp_path / "adapt"),
        "--json",
        "--quiet",
    )
    assert [r["episodes"] for r in res["rounds"]] == [2, 2] and res["real_minutes"] > 0
    finetune = json.loads((tmp_path / "adapt" / "adapt_config.json").read_text())["finetune"]
    assert finetune["sim_replay_fraction"] == 0.25  # the example's own (TaskSpec.finetune_overrides) ...
    assert finetune["epochs"] == 2  # ... under the user's


def _tiny_spec(**overrides):
    from simdist.tasks.base import TaskSpec

    return TaskSpec(
        name="t",
        obs_shapes={"proprio": (2,)},
        action_dim=1,
        action_low=(-1.0,),
        action_high=(1.0,),
        control_period_s=0.1,
        episode_steps=5,
        **overrides,
    )


def test_a_task_sets_its_planner_and_the_user_overrides_it():
    from types import SimpleNamespace

    from simdist.planning.settings import task_planner
    from simdist.tasks.base import TaskSpec

    spec = _tiny_spec(planner_overrides=("init_std=0.1", "samples=32"))
    task = SimpleNamespace(spec=spec)
    cfg = task_planner(task, "cpu")
    assert (cfg.init_std, cfg.samples) == (0.1, 32)
    cfg = task_planner(task, "cpu", ["samples=8"], prior_weight=2.0)
    assert (cfg.init_std, cfg.samples, cfg.prior_weight) == (0.1, 8, 2.0)  # the user's flags come last
    typo = SimpleNamespace(spec=TaskSpec(**{**spec.__dict__, "planner_overrides": ("init_sdt=0.1",)}))
    with pytest.raises(ValueError, match="task 't': TaskSpec.planner_overrides: .*init_std"):
        task_planner(typo, "cpu")
    with pytest.raises(ValueError, match="FIELD=VALUE"):
        TaskSpec(**{**spec.__dict__, "planner_overrides": ("init_std",)})


def test_a_task_sets_its_finetune_over_the_preset():
    from types import SimpleNamespace

    from simdist.tasks.base import TaskSpec
    from simdist.training.finetune import task_finetune

    spec = _tiny_spec(finetune_overrides=("epochs=100", "sim_replay_fraction=0.25"))
    cfg = task_finetune(SimpleNamespace(spec=spec), "cpu")
    assert (cfg.epochs, cfg.sim_replay_fraction, cfg.lr) == (100, 0.25, 2e-4)  # the rest is the preset's
    typo = SimpleNamespace(spec=TaskSpec(**{**spec.__dict__, "finetune_overrides": ("epoch=100",)}))
    with pytest.raises(ValueError, match="task 't': TaskSpec.finetune_overrides: .*epochs"):
        task_finetune(typo, "cpu")
    with pytest.raises(ValueError, match="finetune_overrides must be FIELD=VALUE"):
        TaskSpec(**{**spec.__dict__, "finetune_overrides": ("epochs",)})


def test_an_installed_package_registers_through_its_entry_point(monkeypatch, fresh_registry):
    plugin = EntryPoint(name="my-pendulum", value="simdist.tasks.pendulum:PendulumTask", group=registry.PLUGIN_GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [plugin] if group == registry.PLUGIN_GROUP else [])
    assert "my-pendulum" in registry.task_names()
    assert type(registry.get_task("my-pendulum")).__name__ == "PendulumTask"


def test_a_task_file_imports_the_modules_beside_it(monkeypatch, fresh_registry, tmp_path):
    folder = tmp_path / "my_robot"
    folder.mkdir()
    (folder / "my_robot_constants.py").write_text("TASK_NAME = 'sibling-pendulum'\n")
    (folder / "task.py").write_text(
        "from my_robot_constants import TASK_NAME\n"
        "from simdist.tasks.pendulum import PendulumTask\n"
        "from simdist.tasks.registry import register\n"
        "register(TASK_NAME, PendulumTask)\n"
    )
    monkeypatch.setattr(registry.sys, "path", list(registry.sys.path))  # restored afterwards
    monkeypatch.setenv(registry.MODULES_ENV, str(folder / "task.py"))
    assert "sibling-pendulum" in registry.task_names()
    assert type(registry.get_task("sibling-pendulum")).__name__ == "PendulumTask"


def test_a_task_module_that_cannot_be_found_is_named(monkeypatch, fresh_registry, tmp_path):
    monkeypatch.setenv(registry.MODULES_ENV, str(tmp_path / "missing.py"))
    with pytest.raises(FileNotFoundError, match="missing.py, which is not a file"):
        registry.task_names()
    monkeypatch.setattr(registry, "_BUILTINS_LOADED", False)
    monkeypatch.setenv(registry.MODULES_ENV, "no_such_robot_package.task")
    with pytest.raises(ValueError, match="SIMDIST_TASK_MODULES names module 'no_such_robot_package.task'"):
        registry.task_names()
    broken = tmp_path / "broken_task.py"  # a task file whose own import fails keeps its traceback
    broken.write_text("import no_such_dependency_of_the_robot\n")
    monkeypatch.setattr(registry, "_BUILTINS_LOADED", False)
    monkeypatch.setenv(registry.MODULES_ENV, str(broken))
    with pytest.raises(ModuleNotFoundError, match="no_such_dependency_of_the_robot"):
        registry.task_names()


def test_tasks_builds_each_task_and_marks_the_broken_ones(tmp_path, monkeypatch, capsys, fresh_registry):
    """A plugin whose environment needs a missing extra is listed as broken, with the reason; the rest are fine."""
    plugin = tmp_path / "broken_task.py"
    plugin.write_text(
        "from simdist.tasks.pendulum import PendulumTask\n"
        "from simdist.tasks.registry import register\n\n"
        "class NeedsExtra(PendulumTask):\n"
        "    def make_env(self, domain, physics=None, seed=0):\n"
        "        raise ModuleNotFoundError(\"No module named 'fancy_sim'\")\n\n"
        "register('needs-extra', NeedsExtra)\n"
    )
    monkeypatch.setenv(registry.MODULES_ENV, str(plugin))
    out = run_json(capsys, "tasks", "--json")
    assert {"needs-extra", "pendulum"} <= set(out["tasks"])
    assert out["broken"] == {"needs-extra": "ModuleNotFoundError: No module named 'fancy_sim'"}
    assert main(["tasks"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "pendulum: ok" in lines
    assert "needs-extra: BROKEN (ModuleNotFoundError: No module named 'fancy_sim')" in lines
