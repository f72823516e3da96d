"""Every command that produces something writes OUT/run_config.yaml (its arguments, every config section as resolved,
the physics by content), and `simdist COMMAND --config OUT/run_config.yaml` reruns it; `--set` reaches any depth."""

from __future__ import annotations

import json

import pytest
import yaml
from safetensors.torch import load_file

from simdist.cli import main


def run(capsys, *argv) -> dict:
    assert main([*argv, "--json", "--quiet"]) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_a_rerun_from_the_saved_config_repeats_the_run(tmp_path, capsys, pendulum_data):
    first = run(
        capsys,
        "pretrain",
        "--data",
        str(pendulum_data),
        "--out",
        str(tmp_path / "a"),
        "--steps",
        "6",
        "--set",
        "train.loss.bc=2",
        "--set",
        "model.latent_dim=16",
        "--set",
        "model.dynamics.layers=1",
        "--set",
        "train.batch_size=16",
    )
    saved = yaml.safe_load((tmp_path / "a" / "run_config.yaml").read_text())
    assert saved["command"] == "pretrain" and saved["arguments"]["data"] == str(pendulum_data)
    train, model = saved["config"]["train"], saved["config"]["model"]
    assert train["loss"]["bc"] == 2.0 and train["steps"] == 6 and train["decay_steps"] == 6
    assert model["latent_dim"] == 16 and model["dynamics"] == {"layers": 1, "heads": 2}
    # the model's own config.json stays as it is, and holds the same resolved values
    assert json.loads((tmp_path / "a" / "config.json").read_text())["train"]["loss"]["bc"] == 2.0

    again = run(capsys, "pretrain", "--config", str(tmp_path / "a" / "run_config.yaml"), "--out", str(tmp_path / "b"))
    assert again["train_loss"] == first["train_loss"] and again["val_loss"] == first["val_loss"]
    a, b = load_file(tmp_path / "a" / "model.safetensors"), load_file(tmp_path / "b" / "model.safetensors")
    assert a.keys() == b.keys() and all((a[k] == b[k]).all() for k in a)
    assert yaml.safe_load((tmp_path / "b" / "run_config.yaml").read_text())["config"] == saved["config"]


def test_flags_and_sets_beside_the_config_win(tmp_path, capsys, pendulum_data):
    run(
        capsys,
        "pretrain",
        "--data",
        str(pendulum_data),
        "--out",
        str(tmp_path / "a"),
        "--steps",
        "2",
        "--set",
        "model.latent_dim=16",
    )
    config = str(tmp_path / "a" / "run_config.yaml")
    run(capsys, "pretrain", "--config", config, "--out", str(tmp_path / "b"), "--set", "train.loss.bc=0")
    saved = yaml.safe_load((tmp_path / "b" / "run_config.yaml").read_text())["config"]
    assert saved["train"]["loss"]["bc"] == 0.0 and saved["model"]["latent_dim"] == 16


def test_generation_records_its_physics_by_content_and_reruns_without_the_file(tmp_path, capsys):
    physics = tmp_path / "light.json"
    physics.write_text(json.dumps({"mass": 0.8}))
    first = run(
        capsys, "generate", "pendulum", "--episodes", "2", "--out", str(tmp_path / "a"), "--physics", str(physics)
    )
    saved = yaml.safe_load((tmp_path / "a" / "run_config.yaml").read_text())
    assert saved["physics"] == {"mass": 0.8} and saved["config"]["data"]["expert_prob"] == 0.5
    physics.unlink()  # the rerun needs only the run_config.yaml
    again = run(capsys, "generate", "--config", str(tmp_path / "a" / "run_config.yaml"), "--out", str(tmp_path / "b"))
    assert again["inputs"]["physics"] == {"mass": 0.8}
    assert (again["steps"], again["mean_step_reward"]) == (first["steps"], first["mean_step_reward"])


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--set", "train.loss.bcc=1"], "LossConfig's"),
        (["--set", "train.los.bc=1"], "no nested config 'los'"),
        (["--set", "train.loss=1"], "is a nested config"),
        (["--set", "train.loss.bc=much"], "bc is float; cannot read 'much'"),
        (["--set", "train=nope"], "unknown train preset 'nope'; valid presets:"),
        (["--steps", "0"], "--set train.steps=0"),
    ],
)
def test_a_bad_override_is_one_line_before_anything_is_written(tmp_path, caplog, pendulum_data, argv, expected):
    out = tmp_path / "o"
    assert main(["pretrain", "--data", str(pendulum_data), "--out", str(out), *argv]) == 2
    assert expected in caplog.text and not out.exists()


def test_a_config_of_another_command_is_refused(tmp_path, caplog, capsys):
    run(capsys, "generate", "pendulum", "--episodes", "1", "--out", str(tmp_path / "a"))
    assert main(["pretrain", "--config", str(tmp_path / "a" / "run_config.yaml")]) == 2
    assert "records `simdist generate`" in caplog.text
