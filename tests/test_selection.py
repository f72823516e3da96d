"""Checkpoint selection by closed-loop evaluation (simdist.eval.selection, `simdist select`)."""

import json
import shutil
from pathlib import Path

import pytest

from simdist.cli import main
from simdist.eval.selection import best_candidate, candidate_checkpoints, select_checkpoint
from simdist.planning.agent import PolicyAgent
from simdist.tasks import get_task

CHECKPOINT_FILES = ("config.json", "model.safetensors")


def keep(pretrained, run, *steps):
    """Copies of the fixture's checkpoint as the run's kept checkpoints run/step_NNNNNN."""
    for step in steps:
        (run / f"step_{step:06d}").mkdir(parents=True)
        for name in CHECKPOINT_FILES:
            shutil.copy(pretrained / name, run / f"step_{step:06d}" / name)


def test_candidates_are_a_runs_kept_checkpoints_in_step_order_or_the_checkpoint_itself(tmp_path, pretrained):
    run = tmp_path / "run"
    keep(pretrained, run, 10000, 2000, 300)
    (run / "step_000400").mkdir()  # no model in it: not a checkpoint
    assert [p.name for p in candidate_checkpoints([run])] == ["step_000300", "step_002000", "step_010000"]
    assert candidate_checkpoints([pretrained]) == [pretrained]  # no kept checkpoints: the run's own model
    with pytest.raises(FileNotFoundError, match="keep_checkpoints=true"):
        candidate_checkpoints([tmp_path / "empty"])
    with pytest.raises(ValueError, match="named twice"):
        candidate_checkpoints([run, run])


def test_the_best_is_the_most_successful_then_the_highest_return_then_the_latest():
    rows = [
        {"success_rate": 0.5, "mean_return": -10.0},
        {"success_rate": 0.6, "mean_return": -50.0},
        {"success_rate": 0.6, "mean_return": -20.0},
        {"success_rate": 0.1, "mean_return": 0.0},
    ]
    assert best_candidate(rows) == 2
    assert best_candidate([{"success_rate": 0.3}, {"success_rate": 0.3}]) == 1  # `real` has no return
    assert best_candidate([{"success_rate": 0.3, "mean_return": None}, {"success_rate": 0.2}]) == 0
    with pytest.raises(ValueError):
        best_candidate([])


def test_identical_checkpoints_score_identically_on_the_same_trials(tmp_path, pretrained):
    run = tmp_path / "run"
    keep(pretrained, run, 1, 2)
    out = select_checkpoint(get_task("pendulum"), [run], PolicyAgent, "sim", ("default",), trials=2, seed=3)
    first, second = out["candidates"]
    assert (first["success_rate"], first["mean_return"]) == (second["success_rate"], second["mean_return"])
    assert first["mean_return"] is not None and first["robot_minutes"] > 0
    assert out["best"] == second["checkpoint"]  # a tie goes to the later
    assert out["robot_minutes"] == pytest.approx(2 * first["robot_minutes"])
    assert out["success_min"] == out["success_max"] == out["best_success"]


def test_select_command_writes_the_result_and_refuses_another_tasks_checkpoint(tmp_path, capsys, caplog, pretrained):
    run = tmp_path / "run"
    keep(pretrained, run, 5, 7)
    result_file = tmp_path / "sel" / "selection.json"
    assert (
        main(
            [
                "select",
                "pendulum",
                str(run),
                "--trials",
                "1",
                "--domain",
                "real",
                "--out",
                str(result_file),
                "--json",
                "--quiet",
            ]
        )
        == 0
    )
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert printed == json.loads(result_file.read_text())
    assert printed["domain"] == "real" and printed["agent"] == "policy" and len(printed["candidates"]) == 2
    assert printed["candidates"][0]["mean_return"] is None  # `real` has no dense reward
    assert main(["select", "peg-insertion", str(run), "--trials", "1", "--quiet"]) == 2
    assert "another task" in caplog.text and "step_000005" in caplog.text  # refused before any trial


def test_selection_runs_in_the_given_physics_and_names_a_bad_parameter(tmp_path, capsys, caplog, pretrained):
    run = tmp_path / "run"
    keep(pretrained, run, 1)
    (tmp_path / "no_motor.json").write_text(json.dumps({"max_torque": 0.0}))
    (tmp_path / "typo.json").write_text(json.dumps({"max_torqe": 0.0}))
    returns = {}
    for physics in (None, "no_motor.json"):
        extra = ["--physics", str(tmp_path / physics)] if physics else []
        assert main(["select", "pendulum", str(run), "--trials", "2", "--json", "--quiet", *extra]) == 0
        printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        returns[physics] = printed["candidates"][0]["mean_return"]
    assert returns[None] != returns["no_motor.json"]  # the override reached the environment
    assert (
        main(["select", "pendulum", str(run), "--trials", "1", "--physics", str(tmp_path / "typo.json"), "--quiet"])
        == 2
    )
    assert "max_torqe" in caplog.text and "max_torque" in caplog.text  # the error lists the valid names


def test_select_copies_the_best_to_a_new_folder_and_refuses_a_full_one(tmp_path, capsys, caplog, pretrained):
    run, dest = tmp_path / "run", tmp_path / "shipped"
    keep(pretrained, run, 5, 7)
    args = ["select", "pendulum", str(run), "--trials", "1", "--json", "--quiet", "--copy-to", str(dest)]
    assert main(args) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    config = json.loads((dest / "config.json").read_text())
    assert printed["copied_to"] == str(dest) and config["selected_by"]["best"] == printed["best"]
    assert (dest / "model.safetensors").read_bytes() == (Path(printed["best"]) / "model.safetensors").read_bytes()
    assert main(args) == 2 and "not empty" in caplog.text  # refused before any trial
