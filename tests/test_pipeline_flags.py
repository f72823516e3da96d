"""`simdist run --train-expert / --expert-budget / --no-video`: expert training only where the expert is learned."""

import json

import pytest

from simdist.cli import build_parser, main
from simdist.experiments.pipeline import run_pipeline
from simdist.tasks import get_task


def test_run_flags_parse():
    args = build_parser().parse_args(
        ["run", "foam", "--out", "x", "--no-video", "--train-expert", "--expert-budget", "300"]
    )
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


def test_run_from_a_checkpoint_skips_pretraining_and_leaves_it_untouched(tmp_path, pretrained):
    from simdist.experiments.pipeline import PipelineConfig

    before = (pretrained / "model.safetensors").read_bytes()
    sizing = PipelineConfig(
        episodes=4,
        workers=1,
        pretrain_steps=None,
        rounds=1,
        episodes_per_round=2,
        sim_eval_trials=1,
        mppi="cpu",
        finetune_steps=3,
    )
    summary = run_pipeline(
        "pendulum", "cpu", tmp_path / "run", progress=False, video=False, checkpoint=pretrained, sizing=sizing
    )
    assert summary["world_model"] == str(pretrained) and not (tmp_path / "run" / "pretrained").exists()
    assert (tmp_path / "run" / "report.md").exists() and summary["real_minutes"] > 0
    adapt_cfg = json.loads((tmp_path / "run" / "adapt_default" / "adapt_config.json").read_text())
    assert adapt_cfg["finetune"]["steps"] == 3 and adapt_cfg["finetune"]["warmup_steps"] == 0  # ≤ 10 % of the run
    assert (pretrained / "model.safetensors").read_bytes() == before
    with pytest.raises(ValueError, match="other settings .*episodes_per_round"):  # never mixed into this run
        run_pipeline(
            "pendulum",
            "cpu",
            tmp_path / "run",
            progress=False,
            video=False,
            checkpoint=pretrained,
            sizing=PipelineConfig(**{**sizing.__dict__, "episodes_per_round": 3}),
        )


def test_run_refuses_a_checkpoint_of_another_task_before_any_work(tmp_path, pretrained, caplog):
    from simdist.training.checkpoint import CheckpointError

    with pytest.raises(CheckpointError, match="does not fit task 'peg-insertion'"):
        run_pipeline("peg-insertion", "cpu", tmp_path / "run", progress=False, checkpoint=pretrained)
    assert not (tmp_path / "run").exists()
    assert main(["run", "pendulum", "--out", str(tmp_path / "r"), "--grid", "wide", "--quiet"]) == 2
    assert "valid grids" in caplog.text and not (tmp_path / "r").exists()


def test_demo_runs_the_pendulum_and_peg_from_the_shipped_model():
    from simdist.experiments.pipeline import DEMO, DEMO_CHECKPOINT, DEMO_TASK
    from simdist.planning.settings import mppi_preset
    from simdist.training.checkpoint import check_fits_task, shipped_checkpoint

    task = get_task(DEMO_TASK)
    check_fits_task(shipped_checkpoint(DEMO_CHECKPOINT), task)
    assert set(DEMO.grids) <= set(task.grids) and mppi_preset(DEMO.mppi)
    with pytest.raises(FileNotFoundError, match="shipped: .*'peg-insertion'"):
        shipped_checkpoint("nope")
    assert build_parser().parse_args(["demo"]).task == "pendulum"  # the main job: every stage, where the claim holds
    assert build_parser().parse_args(["demo", "--task", "peg-insertion"]).task == DEMO_TASK


def test_run_passes_planner_overrides_and_finetune_steps(tmp_path, monkeypatch):
    """`simdist run --set mppi.F=V --finetune-steps N` reach the pipeline; a bad field is refused before any work."""
    import simdist.experiments.pipeline as pipeline
    from simdist.cli import pipeline_commands as commands

    seen = {}
    monkeypatch.setattr(commands, "run_pipeline", lambda *a, **k: seen.update(k) or {})
    assert (
        main(
            [
                "run",
                "pendulum",
                "--out",
                str(tmp_path / "r"),
                "--set",
                "mppi.init_std=0.1",
                "--finetune-steps",
                "7",
                "--rounds",
                "3",
                "--quiet",
            ]
        )
        == 0
    )
    assert seen["sizing"].mppi_set == ("init_std=0.1",) and seen["sizing"].finetune_steps == 7
    assert seen["sizing"].rounds == 3 and str(seen["planner_device"]) == "cpu"
    assert main(["run", "pendulum", "--out", str(tmp_path / "r"), "--plan-device", "tpu", "--quiet"]) == 2
    assert not (tmp_path / "r").exists()  # an unknown planning device is refused before any work
    monkeypatch.undo()
    sizing = pipeline.replace(pipeline.PIPELINE_PRESETS["cpu"], mppi_set=("init_sdt=0.1",))
    with pytest.raises(Exception, match="init_sdt"):
        run_pipeline("pendulum", "cpu", tmp_path / "bad", progress=False, sizing=sizing)
    assert not (tmp_path / "bad").exists()


@pytest.mark.slow
def test_run_can_deploy_the_best_of_its_last_kept_checkpoints(tmp_path, caplog):
    from simdist.experiments.pipeline import SELECTION_SEED, SIM_EVAL_SEED, PipelineConfig

    sizing = PipelineConfig(
        episodes=6,
        workers=1,
        pretrain_steps=4,
        rounds=1,
        episodes_per_round=1,
        sim_eval_trials=1,
        mppi="cpu",
        finetune_steps=2,
        select_checkpoints=2,
    )
    summary = run_pipeline("pendulum", "cpu", tmp_path / "run", progress=False, video=False, sizing=sizing)
    selection = json.loads((tmp_path / "run" / "selection.json").read_text())
    kept = sorted(p.name for p in (tmp_path / "run" / "pretrained").glob("step_*"))
    assert kept == ["step_000001", "step_000002", "step_000003", "step_000004"]  # a checkpoint every steps // 4
    assert [c["checkpoint"].rsplit("/", 1)[-1] for c in selection["candidates"]] == kept[-2:]
    assert selection["seed"] == SELECTION_SEED != SIM_EVAL_SEED  # not the reported evaluation's trials
    assert summary["world_model"] == selection["best"] == summary["checkpoint_selection"]["best"]
    adapted = json.loads((tmp_path / "run" / "adapt_default" / "adapt_config.json").read_text())
    assert adapted["pretrained"] == selection["best"]  # Alg. 1 starts from the chosen checkpoint
    assert f"deployed checkpoint `{selection['best']}`" in (tmp_path / "run" / "report.md").read_text()
    with pytest.raises(ValueError, match="simdist select"):  # a given checkpoint is not this run's to choose among
        run_pipeline(
            "pendulum",
            "cpu",
            tmp_path / "other",
            progress=False,
            video=False,
            sizing=sizing,
            checkpoint=selection["best"],
        )
    assert not (tmp_path / "other").exists()
    with pytest.raises(ValueError, match="number of checkpoints"):
        PipelineConfig(**{**sizing.__dict__, "select_checkpoints": -1})


@pytest.mark.slow
def test_run_with_planner_rounds_deploys_the_refined_model(tmp_path, pretrained, monkeypatch):
    import functools

    import simdist.experiments.pipeline as pipeline

    monkeypatch.setattr(pipeline, "RefineConfig", functools.partial(pipeline.RefineConfig, episodes=2, steps=3))
    sizing = pipeline.PipelineConfig(
        episodes=4,
        workers=1,
        pretrain_steps=None,
        rounds=1,
        episodes_per_round=1,
        sim_eval_trials=1,
        mppi="cpu",
        finetune_steps=2,
        refine_rounds=1,
    )
    summary = pipeline.run_pipeline(
        "pendulum", "cpu", tmp_path / "run", progress=False, video=False, checkpoint=pretrained, sizing=sizing
    )
    refined = tmp_path / "run" / "refine" / "round_01"
    assert summary["world_model"] == str(refined / "model") and summary["refine"][0]["episodes"] == 2
    adapted = json.loads((tmp_path / "run" / "adapt_default" / "adapt_config.json").read_text())
    assert adapted["pretrained"] == str(refined / "model")  # Alg. 1 starts from the refined model
