"""Runs record their inputs: results carry the physics override's content and the planner's settings, and a resumed
`adapt` whose inputs changed is refused, naming them, before it writes anything."""

import dataclasses
import json
from pathlib import Path

import torch

from simdist.adaptation.dagger import DaggerConfig, dagger
from simdist.adaptation.dagger.run import dagger_inputs
from simdist.cli.main import main
from simdist.config import TrainConfig
from simdist.experiments.ablations import run_ablations
from simdist.experiments.baseline_run import world_model_planner
from simdist.experiments.baseline_settings import BaselineRunConfig
from simdist.experiments.compare import compare_inputs
from simdist.planning.settings import task_planner
from simdist.tasks import get_task

TINY_MPPI = [
    "--set",
    "mppi.samples=16",
    "--set",
    "mppi.policy_samples=4",
    "--set",
    "mppi.elites=4",
    "--set",
    "mppi.iterations=1",
]


def _physics(path: Path, mass: float) -> Path:
    path.write_text(json.dumps({"mass": mass, "damping": 0.15}))
    return path


def _adapt(out: Path, pretrained, physics: Path) -> list[str]:
    return [
        "adapt",
        "pendulum",
        "--checkpoint",
        str(pretrained),
        "--rounds",
        "0",
        "--episodes-per-round",
        "1",
        "--physics",
        str(physics),
        "--out",
        str(out),
        "--quiet",
        "--json",
        *TINY_MPPI,
    ]


def _snapshot(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_a_resume_with_an_edited_physics_file_is_refused_naming_it(tmp_path, pretrained, capsys, caplog):
    physics = _physics(tmp_path / "gap.json", 1.3)
    out = tmp_path / "run"
    assert main(_adapt(out, pretrained, physics)) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["inputs"]["physics"] == {"mass": 1.3, "damping": 0.15}
    assert result["inputs"]["mppi"]["samples"] == 16
    config = json.loads((out / "adapt_config.json").read_text())
    assert set(config["inputs"]) == {"--checkpoint", "--physics"}
    assert config["inputs"]["--physics"]["content"] == {"mass": 1.3, "damping": 0.15}
    assert len(config["inputs"]["--checkpoint"]["sha256"]) == 64

    before = _snapshot(out)
    assert main(_adapt(out, pretrained, physics)) == 0  # unchanged: resumes (nothing left to do)
    assert _snapshot(out)["adapt_results.json"] == before["adapt_results.json"]

    _physics(physics, 1.6)
    caplog.clear()
    assert main(_adapt(out, pretrained, physics)) == 2
    message = " ".join(r.getMessage() for r in caplog.records if r.levelname == "ERROR")
    assert f"--physics {physics} changed since this run started" in message and "new --out" in message
    assert "--checkpoint" not in message
    assert _snapshot(out) == before  # nothing written


def test_evaluate_records_the_physics_content_and_the_planner(tmp_path, pretrained, capsys):
    physics = _physics(tmp_path / "gap.yaml", 1.2)
    target = tmp_path / "eval.json"
    assert (
        main(
            [
                "evaluate",
                "pendulum",
                "--checkpoint",
                str(pretrained),
                "--trials",
                "1",
                "--domain",
                "real",
                "--physics",
                str(physics),
                "--out",
                str(target),
                "--quiet",
                "--json",
                *TINY_MPPI,
            ]
        )
        == 0
    )
    result = json.loads(target.read_text())
    assert result["inputs"]["physics"] == {"mass": 1.2, "damping": 0.15}
    assert result["inputs"]["physics_file"] == str(physics)
    assert result["inputs"]["mppi"]["samples"] == 16 and "temperature" in result["inputs"]["mppi"]
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["inputs"] == result["inputs"]


def test_generate_records_the_physics_content(tmp_path, capsys):
    physics = _physics(tmp_path / "gap.json", 1.4)
    assert (
        main(
            [
                "generate",
                "pendulum",
                "--episodes",
                "2",
                "--out",
                str(tmp_path / "data"),
                "--physics",
                str(physics),
                "--quiet",
                "--json",
            ]
        )
        == 0
    )
    inputs = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["inputs"]
    assert inputs == {"physics": {"mass": 1.4, "damping": 0.15}, "physics_file": str(physics)}  # no planner


def test_dagger_records_the_physics_it_drives_and_is_evaluated_in(tmp_path):
    drive, check = _physics(tmp_path / "drive.json", 1.1), _physics(tmp_path / "check.json", 1.5)
    inputs = dagger_inputs(drive, check)
    assert inputs == {
        "physics": {"mass": 1.1, "damping": 0.15},
        "physics_file": str(drive),
        "eval_physics": {"mass": 1.5, "damping": 0.15},
        "eval_physics_file": str(check),
    }
    assert dagger_inputs(None, None) == {
        "physics": None,
        "physics_file": None,
        "eval_physics": None,
        "eval_physics_file": None,
    }  # the BC head drives: no planner


def test_dagger_results_carry_the_inputs(tmp_path, pretrained, pendulum_data):
    physics = _physics(tmp_path / "gap.json", 1.2)
    cfg = DaggerConfig(
        rounds=1,
        episodes_per_grid=1,
        steps=1,
        sensor_noise_steps=0,
        batch_size=4,
        warmup_steps=0,
        eval_episodes_per_grid=0,
    )
    result = dagger(
        get_task("pendulum"),
        pretrained,
        pendulum_data,
        tmp_path / "d",
        cfg,
        physics=str(physics),
        device=torch.device("cpu"),
        progress=False,
    )
    assert result["inputs"] == dagger_inputs(str(physics), str(physics))  # evaluated in --physics by default
    assert json.loads((tmp_path / "d" / "dagger_results.json").read_text())["inputs"] == result["inputs"]


def test_ablate_records_the_planner_it_evaluates_with(tmp_path, pendulum_data):
    task = get_task("pendulum")
    mppi = task_planner(task, "cpu", ["samples=16"], prior_weight=0.5)
    summary = run_ablations(task, pendulum_data, tmp_path, [], None, TrainConfig(), mppi)  # nothing to run
    assert summary["inputs"]["physics"] is None  # ablate's rounds run in the task's own domains
    assert summary["inputs"]["mppi"]["samples"] == 16 and summary["inputs"]["mppi"]["prior_weight"] == 0.5


def test_compare_records_the_physics_and_simdists_planner(tmp_path):
    task, physics = get_task("pendulum"), _physics(tmp_path / "gap.json", 1.3)
    shared = BaselineRunConfig(mppi="cpu", mppi_set=("init_std=0.3",), prior_weight=0.5, physics=str(physics))
    baselines = compare_inputs(task, ["bc", "iql"], shared)
    assert baselines == {"physics": {"mass": 1.3, "damping": 0.15}, "physics_file": str(physics)}  # none plans
    planned = compare_inputs(task, ["bc", "simdist_bc"], shared)["mppi"]
    assert planned["init_std"] == 0.3 and planned["prior_weight"] == 0.5
    assert planned == dataclasses.asdict(world_model_planner(task, shared))  # what the simdist runs plan with
