"""Runs record their inputs: results carry the physics override's content and the planner's settings, and a resumed
`adapt` whose inputs changed is refused, naming them, before it writes anything."""

import json
from pathlib import Path

from simdist.cli.main import main

TINY_MPPI = ["--set", "mppi.samples=16", "--set", "mppi.policy_samples=4", "--set", "mppi.elites=4",
             "--set", "mppi.iterations=1"]


def _physics(path: Path, mass: float) -> Path:
    path.write_text(json.dumps({"mass": mass, "damping": 0.15}))
    return path


def _adapt(out: Path, pretrained, physics: Path) -> list[str]:
    return ["adapt", "pendulum", "--checkpoint", str(pretrained), "--rounds", "0", "--episodes-per-round", "1",
            "--physics", str(physics), "--out", str(out), "--quiet", "--json", *TINY_MPPI]


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
    assert main(["evaluate", "pendulum", "--checkpoint", str(pretrained), "--trials", "1", "--domain", "real",
                 "--physics", str(physics), "--out", str(target), "--quiet", "--json", *TINY_MPPI]) == 0
    result = json.loads(target.read_text())
    assert result["inputs"]["physics"] == {"mass": 1.2, "damping": 0.15}
    assert result["inputs"]["physics_file"] == str(physics)
    assert result["inputs"]["mppi"]["samples"] == 16 and "temperature" in result["inputs"]["mppi"]
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["inputs"] == result["inputs"]
