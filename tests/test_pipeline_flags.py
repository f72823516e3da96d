"""`simdist run --train-expert / --expert-budget / --no-video`: expert training only where the expert is learned."""

import pytest

from simdist.cli import build_parser, main
from simdist.pipeline import run_pipeline
from simdist.tasks import get_task


def test_run_flags_parse():
    args = build_parser().parse_args(["run", "foam", "--out", "x", "--no-video", "--train-expert",
                                      "--expert-budget", "300"])
    assert args.no_video and args.train_expert and args.expert_budget == 300
    args = build_parser().parse_args(["run", "pendulum", "--out", "x"])
    assert not args.no_video and not args.train_expert and args.expert_budget is None


@pytest.mark.parametrize("name", ["pendulum", "peg-insertion", "table-leg"])
def test_train_expert_refused_for_hand_written_experts(tmp_path, name):
    with pytest.raises(ValueError) as err:
        run_pipeline(name, "cpu", tmp_path / "run", progress=False, train_expert=True)
    msg = str(err.value)
    assert name in msg and "hand-written" in msg and "'foam'" in msg and "'slippery-slope'" in msg
    assert not (tmp_path / "run" / "sim_data").exists()  # refused before any work


def test_train_expert_error_through_cli(tmp_path, caplog):
    assert main(["run", "peg-insertion", "--out", str(tmp_path / "run"), "--train-expert", "--quiet"]) == 2
    assert "nothing to train" in caplog.text


def test_quadruped_train_expert_resumes_to_budget_then_exports(tmp_path, monkeypatch):
    """The glue only: PPO itself is covered by the quadruped tests; here its entry point is recorded."""
    pytest.importorskip("rsl_rl")
    from simdist.tasks.quadruped import experts
    from simdist.tasks.quadruped import train_expert as ppo_run

    calls = []
    monkeypatch.setattr(ppo_run, "main", lambda argv: calls.append(argv))
    monkeypatch.setattr(experts, "CHECKPOINT_DIR", tmp_path / "installed")
    run = tmp_path / "expert"
    run.mkdir()
    for it in (0, 50, 99):  # 100 iterations done
        (run / f"model_{it}.pt").write_bytes(b"")
    assert get_task("foam").train_expert(run, budget=250) == tmp_path / "installed"
    train, export = calls
    assert train[train.index("--run") + 1] == str(run) and train[train.index("--iterations") + 1] == "150"
    assert "--export" in export and export[export.index("--out") + 1] == str(tmp_path / "installed")
    calls.clear()
    get_task("slippery-slope").train_expert(run, budget=100)  # budget reached: export only
    assert len(calls) == 1 and "--export" in calls[0]


def test_pipeline_picks_the_quadruped_presets_for_command_tasks():
    from simdist.config import model_preset_for
    from simdist.tasks import get_task

    assert model_preset_for(get_task("slippery-slope"), "cpu") == "quadruped-cpu"
    assert model_preset_for(get_task("foam"), "paper") == "paper-quadruped"
    assert model_preset_for(get_task("peg-insertion"), "cpu") == "cpu"
    assert model_preset_for(get_task("peg-insertion"), "paper") == "paper-manipulation"
