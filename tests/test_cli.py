"""End to end through the command line on the tiny built-in task: generate → pretrain → evaluate → adapt."""

import json

import pytest
import torch

from simdist.cli import main


def run_json(capsys, *argv) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_pipeline_through_cli(tmp_path, capsys, caplog, pretrained, pendulum_data):
    out = run_json(capsys, "tasks", "--json")
    assert "pendulum" in out["tasks"]
    ev = run_json(
        capsys,
        "evaluate",
        "pendulum",
        "--checkpoint",
        str(pretrained),
        "--domain",
        "real",
        "--trials",
        "2",
        "--json",
        "--quiet",
    )
    assert 0.0 <= ev["success_rate"] <= 1.0 and not (pretrained / "eval_info.json").exists()  # stdout only
    ex = run_json(capsys, "expert", "eval", "pendulum", "--domain", "sim", "--trials", "3", "--json", "--quiet")
    assert set(ex) >= {"success_rate", "mean_time_s"}
    adapt = run_json(
        capsys,
        "adapt",
        "pendulum",
        "--checkpoint",
        str(pretrained),
        "--rounds",
        "1",
        "--episodes-per-round",
        "2",
        "--out",
        str(tmp_path / "adapt"),
        "--finetune-steps",
        "5",
        "--sim-data",
        str(pendulum_data),
        "--prior-weight",
        "0.5",
        "--json",
        "--quiet",
    )
    assert set(adapt) >= {"zero_shot_success", "final_success", "real_minutes"}
    assert json.loads((tmp_path / "adapt" / "adapt_config.json").read_text())["mppi"]["prior_weight"] == 0.5
    assert len(list((tmp_path / "adapt" / "real_data" / "episodes").glob("*.h5"))) == 4
    # a rerun resumes: nothing is collected or trained again
    again = run_json(
        capsys,
        "adapt",
        "pendulum",
        "--checkpoint",
        str(pretrained),
        "--rounds",
        "1",
        "--episodes-per-round",
        "2",
        "--out",
        str(tmp_path / "adapt"),
        "--finetune-steps",
        "5",
        "--sim-data",
        str(pendulum_data),
        "--prior-weight",
        "0.5",
        "--json",
        "--quiet",
    )
    assert again["rounds"][1]["successes"] == adapt["rounds"][1]["successes"]
    assert [r["real_minutes"] for r in again["rounds"]] == [r["real_minutes"] for r in adapt["rounds"]]
    assert again["rounds"][0]["real_minutes"] < again["rounds"][1]["real_minutes"]
    assert len(list((tmp_path / "adapt" / "real_data" / "episodes").glob("*.h5"))) == 4
    # resuming with another planner would mix its episodes with these: refused, naming the setting, nothing lost
    assert (
        main(
            [
                "adapt",
                "pendulum",
                "--checkpoint",
                str(pretrained),
                "--rounds",
                "1",
                "--episodes-per-round",
                "2",
                "--out",
                str(tmp_path / "adapt"),
                "--finetune-steps",
                "5",
                "--sim-data",
                str(pendulum_data),
                "--json",
                "--quiet",
            ]
        )
        == 2
    )
    assert "mppi.prior_weight" in caplog.text and "other settings" in caplog.text
    # … and so would resuming on another robot (a physics override)
    (tmp_path / "heavy.json").write_text(json.dumps({"mass": 1.7}))
    assert (
        main(
            [
                "adapt",
                "pendulum",
                "--checkpoint",
                str(pretrained),
                "--rounds",
                "1",
                "--episodes-per-round",
                "2",
                "--out",
                str(tmp_path / "adapt"),
                "--finetune-steps",
                "5",
                "--sim-data",
                str(pendulum_data),
                "--prior-weight",
                "0.5",
                "--physics",
                str(tmp_path / "heavy.json"),
                "--json",
                "--quiet",
            ]
        )
        == 2
    )
    assert "physics" in caplog.text.split("other settings")[-1]
    assert len(list((tmp_path / "adapt" / "real_data" / "episodes").glob("*.h5"))) == 4
    # a run written before physics was recorded resumes on the robot it is given, with a warning
    config_path = tmp_path / "adapt" / "adapt_config.json"
    config = json.loads(config_path.read_text())
    assert config.pop("physics") is None
    assert set(config.pop("inputs")) == {"--checkpoint", "--sim-data"}  # nor the inputs' content hashes
    assert config["finetune"].pop("replay_labels") is True  # nor replay_labels: same, one field
    assert config["finetune"].pop("policy_anchor") == 0.0
    config_path.write_text(json.dumps(config))
    assert (
        main(
            [
                "adapt",
                "pendulum",
                "--checkpoint",
                str(pretrained),
                "--rounds",
                "1",
                "--episodes-per-round",
                "2",
                "--out",
                str(tmp_path / "adapt"),
                "--finetune-steps",
                "5",
                "--sim-data",
                str(pendulum_data),
                "--prior-weight",
                "0.5",
                "--physics",
                str(tmp_path / "heavy.json"),
                "--json",
                "--quiet",
            ]
        )
        == 0
    )
    assert (
        "predates recording physics" in caplog.text
        and "predates recording inputs" in caplog.text
        and "predates recording finetune.replay_labels" in caplog.text
    )
    assert json.loads(config_path.read_text())["physics"] == str(tmp_path / "heavy.json")
    assert len(list((tmp_path / "adapt" / "real_data" / "episodes").glob("*.h5"))) == 4
    assert main(["evaluate", "pendulum", "--checkpoint", str(pretrained), "--prior-weight", "-1", "--json"]) == 2
    caplog.clear()
    assert main(["evaluate", "pendulum", "--checkpoint", str(pretrained), "--ensemble-decay", "1", "--json"]) == 2
    assert "use it with --agent policy" in caplog.text
    assert main(["evaluate", "pendulum", "--checkpoint", str(pretrained), "--trials", "0"]) == 2
    assert "--trials 0: must be at least 1" in caplog.text
    for device, message in (("tpu", "valid: cpu, cuda"), ("cuda", "no CUDA device")):
        if device == "cuda" and torch.cuda.is_available():
            continue
        assert main(["evaluate", "pendulum", "--checkpoint", str(pretrained), "--plan-device", device]) == 2
        assert message in caplog.text
        assert (
            main(
                [
                    "adapt",
                    "pendulum",
                    "--checkpoint",
                    str(pretrained),
                    "--out",
                    str(tmp_path / "dev"),
                    "--plan-device",
                    device,
                ]
            )
            == 2
        )
        assert not (tmp_path / "dev").exists()  # refused before anything is written
    ev = run_json(
        capsys,
        "evaluate",
        "pendulum",
        "--checkpoint",
        str(pretrained),
        "--agent",
        "policy",
        "--ensemble-decay",
        "0.5",
        "--trials",
        "1",
        "--out",
        str(tmp_path / "ens.json"),
        "--json",
        "--quiet",
    )
    assert ev["grids"]["default"]["trials"] == 1


def test_generate_command(tmp_path, capsys, caplog):
    stats = run_json(
        capsys, "generate", "pendulum", "--episodes", "3", "--out", str(tmp_path / "d"), "--json", "--quiet"
    )
    assert stats["episodes"] == 3
    files = sorted((tmp_path / "d" / "episodes").iterdir())
    # the same seed again is refused before any episode runs, and nothing recorded is touched
    assert main(["generate", "pendulum", "--episodes", "3", "--out", str(tmp_path / "d"), "--quiet"]) == 2
    assert "generation does not resume" in caplog.text and sorted((tmp_path / "d" / "episodes").iterdir()) == files
    stats = run_json(
        capsys,
        "generate",
        "pendulum",
        "--episodes",
        "2",
        "--seed",
        "1",
        "--out",
        str(tmp_path / "d"),
        "--json",
        "--quiet",
    )
    assert stats["episodes"] == 5  # another seed adds to the dataset


def test_clear_errors(tmp_path, caplog):
    assert main(["evaluate", "nope", "--checkpoint", str(tmp_path), "--json"]) == 2
    assert "valid tasks" in caplog.text
    (tmp_path / "nodata").mkdir()
    assert main(["pretrain", "--data", str(tmp_path / "nodata"), "--out", str(tmp_path / "o"), "--json"]) == 2
    assert "dataset.json" in caplog.text
    with pytest.raises(SystemExit):
        main(["bench", "fly"])


def test_another_tasks_checkpoint_is_refused_before_anything_is_written(tmp_path, caplog, pretrained):
    for argv in (
        ["evaluate", "peg-insertion", "--checkpoint", str(pretrained), "--trials", "1"],
        ["adapt", "peg-insertion", "--checkpoint", str(pretrained), "--out", str(tmp_path / "a")],
    ):
        assert main(argv) == 2
        assert "task 'peg-insertion' has observations" in caplog.text and "another task" in caplog.text
    assert not (tmp_path / "a").exists()


def test_evaluation_goes_to_out_and_never_into_the_checkpoint(tmp_path, capsys, caplog, pretrained, monkeypatch):
    import os
    import shutil
    import stat
    import threading

    from simdist.cli import evaluation_commands as commands

    ckpt = tmp_path / "shipped"
    shutil.copytree(pretrained, ckpt)
    out = tmp_path / "evals" / "real.json"
    ev = run_json(
        capsys,
        "evaluate",
        "pendulum",
        "--checkpoint",
        str(ckpt),
        "--domain",
        "real",
        "--trials",
        "1",
        "--out",
        str(out),
        "--json",
        "--quiet",
    )
    assert json.loads(out.read_text())["success_rate"] == ev["success_rate"]
    assert sorted(p.name for p in ckpt.iterdir()) == sorted(p.name for p in pretrained.iterdir())
    pipe, received = tmp_path / "pipe", []  # a pipe (like /dev/stdout) is written to, not replaced by a file
    os.mkfifo(pipe)
    reader = threading.Thread(target=lambda: received.append(pipe.read_text()), daemon=True)
    reader.start()
    run_json(
        capsys,
        "evaluate",
        "pendulum",
        "--checkpoint",
        str(ckpt),
        "--trials",
        "1",
        "--out",
        str(pipe),
        "--json",
        "--quiet",
    )
    reader.join(timeout=30)
    assert stat.S_ISFIFO(os.stat(pipe).st_mode) and "success_rate" in json.loads(received[0])
    assert main(["evaluate", "pendulum", "--checkpoint", str(ckpt), "--out", str(tmp_path)]) == 2
    assert "is a folder" in caplog.text

    def no_trials(*args, **kwargs):
        raise AssertionError("the evaluation ran before the output was checked")

    monkeypatch.setattr(commands, "evaluate_grids", no_trials)
    assert (
        main(
            ["evaluate", "pendulum", "--checkpoint", str(ckpt), "--trials", "1", "--out", str(ckpt / "eval_info.json")]
        )
        == 2
    )
    assert "never write into their inputs" in caplog.text and not (ckpt / "eval_info.json").exists()


def test_grid_left_out_is_the_tasks_default():
    from simdist.tasks import get_task
    from simdist.tasks.base import default_grid

    assert [default_grid(get_task(t)) for t in ("pendulum", "peg-insertion", "table-leg", "foam")] == [
        "default",
        "narrow",
        "narrow",
        "all",
    ]


def test_run_help_names_every_pipeline_preset(capsys):
    from simdist.experiments.pipeline import PIPELINE_PRESETS

    with pytest.raises(SystemExit):
        main(["run", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert all(f"{name} (" in help_text for name in PIPELINE_PRESETS), "the --preset help is written by hand: update it"


def test_ablate_command(tmp_path, capsys, pendulum_data):
    out = run_json(
        capsys,
        "ablate",
        "pendulum",
        "--sim-data",
        str(pendulum_data),
        "--out",
        str(tmp_path / "ab"),
        "--variants",
        "data-50,mlp-heads",
        "--steps",
        "4",
        "--trials",
        "1",
        "--json",
        "--quiet",
    )
    ab = out["ablations"]
    assert set(ab) == {"data-50", "mlp-heads"} and all(0.0 <= r["success_rate"] <= 1.0 for r in ab.values())
    assert ab["data-50"]["steps"] < ab["mlp-heads"]["steps"]  # half the simulation data
    assert (tmp_path / "ab" / "ablations.md").exists() and (tmp_path / "ab" / "ablations.png").exists()
    assert "mean_return" in ab["data-50"]  # `sim` reports the dense episode return (the quadruped's Table I metric)


@pytest.mark.slow
def test_ablate_seed_is_a_replicate_from_its_own_initialisation(tmp_path, capsys, pendulum_data, monkeypatch):
    from simdist.experiments import ablations

    seen = []
    real_pretrain = ablations.pretrain

    def spy(data_dir, model_dir, cfg, train, **kwargs):
        seen.append(train.seed)
        return real_pretrain(data_dir, model_dir, cfg, train, **kwargs)

    monkeypatch.setattr(ablations, "pretrain", spy)
    for seed in (0, 1):
        run_json(
            capsys,
            "ablate",
            "pendulum",
            "--sim-data",
            str(pendulum_data),
            "--out",
            str(tmp_path / f"s{seed}"),
            "--variants",
            "simdist",
            "--steps",
            "2",
            "--trials",
            "1",
            "--seed",
            str(seed),
            "--json",
            "--quiet",
        )
    assert seen == [0, 1]  # same data and settings, each replicate from its own initialisation


@pytest.mark.slow
def test_ablate_variants_from_several_calls_gather_into_one_table(tmp_path, capsys, pendulum_data, monkeypatch):
    common = [
        "--sim-data",
        str(pendulum_data),
        "--out",
        str(tmp_path / "ab"),
        "--steps",
        "4",
        "--trials",
        "1",
        "--json",
        "--quiet",
    ]
    first = run_json(capsys, "ablate", "pendulum", "--variants", "data-50", *common)["ablations"]
    run_json(capsys, "ablate", "pendulum", "--variants", "mlp-heads", *common)

    def no_loading(*args, **kwargs):
        raise AssertionError("evaluated variants must come from their cache")

    monkeypatch.setattr("simdist.experiments.ablations.load_episodes", no_loading)
    both = run_json(capsys, "ablate", "pendulum", "--variants", "data-50,mlp-heads", *common)["ablations"]
    assert both["data-50"] == first["data-50"] and set(both) == {"data-50", "mlp-heads"}
    table = (tmp_path / "ab" / "ablations.md").read_text()
    assert "| data-50 |" in table and "| mlp-heads |" in table and "episode return" in table
    common[common.index("--trials") + 1] = "2"  # other evaluation settings: evaluated again, not read from the cache
    again = run_json(capsys, "ablate", "pendulum", "--variants", "data-50", *common)["ablations"]["data-50"]
    assert again["settings"]["trials"] == 2 and first["data-50"]["settings"]["trials"] == 1


def test_config_overrides_are_typed_and_checked():
    from simdist.overrides import parse_overrides
    from simdist.planning.settings import MPPIConfig

    got = parse_overrides(MPPIConfig, ["samples=128", "prior_weight=2.5", "compile=true"])
    assert got == {"samples": 128, "prior_weight": 2.5, "compile": True}
    with pytest.raises(ValueError, match="one of .*'samples'"):
        parse_overrides(MPPIConfig, ["sample=3"])
    with pytest.raises(ValueError, match="samples is int"):
        parse_overrides(MPPIConfig, ["samples=many"])
    from simdist.config import TrainConfig

    assert parse_overrides(TrainConfig, ["decay_steps=500", "grad_clip=none"]) == {
        "decay_steps": 500,
        "grad_clip": None,
    }
    from simdist.config import FinetuneConfig, ModelConfig

    # tuples are comma-separated, typed per item
    assert parse_overrides(FinetuneConfig, ["trainable=dynamics,value"]) == {"trainable": ("dynamics", "value")}
    assert parse_overrides(ModelConfig, ["proprio_hidden=256,64"]) == {"proprio_hidden": (256, 64)}
    with pytest.raises(ValueError, match="proprio_hidden is tuple"):
        parse_overrides(ModelConfig, ["proprio_hidden=wide"])
    from simdist.cli import build_parser
    from simdist.planning.settings import task_planner

    args = build_parser().parse_args(
        [
            "adapt",
            "pendulum",
            "--checkpoint",
            "c",
            "--out",
            "o",
            "--set",
            "mppi.value_weight=0",
            "--set",
            "mppi.samples=16",
            "--prior-weight",
            "3",
        ]
    )
    from simdist.cli.run_config import configure
    from simdist.tasks import get_task

    # --prior-weight is an alias of --set mppi.prior_weight=3, applied in command-line order after the preset and the
    # task's planner_overrides
    assert args.set == ["mppi.value_weight=0", "mppi.samples=16", "mppi.prior_weight=3.0"]
    cfg = configure(args, {"mppi": lambda name: task_planner(get_task("pendulum"), name or "cpu")})["mppi"]
    assert (cfg.value_weight, cfg.samples, cfg.prior_weight) == (0.0, 16, 3.0)
    from simdist.config import finetune_preset, with_steps

    # every --steps / --finetune-steps keeps the preset's warmup, capped at 10 % of the run
    assert (
        with_steps(finetune_preset("paper-manipulation"), 500).warmup_steps,
        with_steps(finetune_preset("cpu"), 1000).warmup_steps,
    ) == (50, 30)
    with pytest.raises(ValueError, match="decay_steps is int | None"):
        parse_overrides(TrainConfig, ["decay_steps=soon"])


def test_pretrain_overrides_reach_the_checkpoint(tmp_path, capsys, pendulum_data):
    out = tmp_path / "m"
    run_json(
        capsys,
        "pretrain",
        "--data",
        str(pendulum_data),
        "--out",
        str(out),
        "--steps",
        "3",
        "--set",
        "model.policy_sees_actions=false",
        "--set",
        "loss.bc=0",
        "--json",
        "--quiet",
    )
    saved = json.loads((out / "config.json").read_text())
    assert saved["model"]["policy_sees_actions"] is False
    assert saved["train"]["loss"]["bc"] == 0.0 and saved["train"]["loss"]["latent"] == 1.0
    record = json.loads((out / "metrics.jsonl").read_text().splitlines()[-1])
    assert "train/latent" in record and "train/bc" not in record  # a zero weight drops the term
    assert main(["pretrain", "--data", str(pendulum_data), "--out", str(out), "--set", "loss.bcc=1"]) == 2


def test_pretrain_can_keep_every_checkpoint_for_selection_by_evaluation(tmp_path, capsys, pendulum_data):
    from simdist.training.checkpoint import load_model

    out = tmp_path / "m"
    run_json(
        capsys,
        "pretrain",
        "--data",
        str(pendulum_data),
        "--out",
        str(out),
        "--steps",
        "2",
        "--set",
        "train.keep_checkpoints=true",
        "--json",
        "--quiet",
    )  # --steps 2: a checkpoint every step
    kept = sorted(d.name for d in out.glob("step_*"))
    assert kept == ["step_000001", "step_000002"]
    first, last = (load_model(out / k).state_dict() for k in kept)
    assert any(not torch.equal(first[k], last[k]) for k in first)  # two different snapshots
    final = load_model(out).state_dict()
    assert all(torch.equal(final[k], last[k]) for k in final)  # the run's own model is the last one


def test_pretrain_with_ema_saves_the_average_and_resumes_it(tmp_path, capsys, pendulum_data):
    from safetensors.torch import load_file

    out = tmp_path / "m"
    args = [
        "pretrain",
        "--data",
        str(pendulum_data),
        "--out",
        str(out),
        "--set",
        "train.ema_decay=0.5",
        "--set",
        "train.warmup_steps=0",
        "--json",
        "--quiet",
    ]
    run_json(capsys, *args, "--steps", "1")
    raw1, ema1 = load_file(str(out / "raw" / "model.safetensors")), load_file(str(out / "model.safetensors"))
    assert all(torch.equal(raw1[k], ema1[k]) for k in raw1)  # the average starts at the first step's weights
    run_json(capsys, *args, "--steps", "2")  # resumes from step 1
    raw2, ema2 = load_file(str(out / "raw" / "model.safetensors")), load_file(str(out / "model.safetensors"))
    params = [k for k in raw2 if k != "return_error" and not torch.equal(raw1[k], raw2[k])]  # a measurement
    assert params  # the second step moved the raw weights
    for k in params:  # EMA with decay 0.5 over the two steps, carried across the resume
        assert torch.allclose(ema2[k], 0.5 * raw1[k] + 0.5 * raw2[k], atol=1e-6)
    # Resumed without the average, the run trains on (and keeps current) the raw weights.
    run_json(
        capsys,
        "pretrain",
        "--data",
        str(pendulum_data),
        "--out",
        str(out),
        "--set",
        "train.warmup_steps=0",
        "--steps",
        "3",
        "--json",
        "--quiet",
    )
    raw3, model3 = load_file(str(out / "raw" / "model.safetensors")), load_file(str(out / "model.safetensors"))
    assert all(torch.equal(raw3[k], model3[k]) for k in raw3) and not all(torch.equal(raw3[k], raw2[k]) for k in params)
    plain = tmp_path / "plain"  # a run without EMA resumed with it: the average starts at the first new step
    run_json(capsys, "pretrain", "--data", str(pendulum_data), "--out", str(plain), "--steps", "1", "--json", "--quiet")
    run_json(
        capsys,
        "pretrain",
        "--data",
        str(pendulum_data),
        "--out",
        str(plain),
        "--steps",
        "2",
        "--set",
        "train.ema_decay=0.5",
        "--json",
        "--quiet",
    )
    raw, avg = load_file(str(plain / "raw" / "model.safetensors")), load_file(str(plain / "model.safetensors"))
    assert all(torch.equal(raw[k], avg[k]) for k in raw)


def test_warm_start_adds_a_decoder_and_keeps_every_pretrained_tensor(
    tmp_path, capsys, caplog, pretrained, pendulum_data
):
    from safetensors.torch import load_file

    out = tmp_path / "recon"
    run_json(
        capsys,
        "pretrain",
        "--data",
        str(pendulum_data),
        "--out",
        str(out),
        "--init-from",
        str(pretrained),
        "--set",
        "model.reconstruction=true",
        "--set",
        "loss.reconstruction=1",
        "--steps",
        "1",
        "--set",
        "train.lr=0",
        "--set",
        "train.lr_end=0",
        "--json",
        "--quiet",
    )
    before, after = load_file(str(pretrained / "model.safetensors")), load_file(str(out / "model.safetensors"))
    assert all(torch.equal(before[k], after[k]) for k in before)  # lr 0: every pretrained tensor carried over
    assert {k for k in after if k not in before} and all(k.startswith("decoder.") for k in after if k not in before)
    saved = json.loads((out / "config.json").read_text())
    assert saved["model"]["reconstruction"] and saved["init_from"] == str(pretrained)
    assert saved["model"]["latent_dim"] == json.loads((pretrained / "config.json").read_text())["model"]["latent_dim"]
    # A change that would drop or reshape pretrained tensors is refused, naming them.
    assert (
        main(
            [
                "pretrain",
                "--data",
                str(pendulum_data),
                "--out",
                str(tmp_path / "bad"),
                "--init-from",
                str(pretrained),
                "--set",
                "model.ffn_dim=24",
                "--steps",
                "1",
                "--quiet",
            ]
        )
        == 2
    )
    assert "cannot warm-start" in caplog.text and "ffn.0.weight (32, 16)" in caplog.text


@pytest.mark.slow
def test_expert_only_data_is_clean_and_fills_the_ablation_volume(tmp_path, capsys, caplog, pendulum_data):
    from simdist.data.episodes import load_episodes

    experts = tmp_path / "experts"
    run_json(
        capsys, "generate", "pendulum", "--episodes", "30", "--expert-only", "--out", str(experts), "--json", "--quiet"
    )
    _, episodes = load_episodes(experts)
    assert all(e.source_policy == "expert" and e.expert.all() for e in episodes)  # no sub-optimal policy, no noise
    common = ["--variants", "expert-only", "--steps", "2", "--trials", "1", "--json", "--quiet"]
    subset = run_json(
        capsys, "ablate", "pendulum", "--sim-data", str(pendulum_data), "--out", str(tmp_path / "a"), *common
    )["ablations"]["expert-only"]
    full = run_json(
        capsys,
        "ablate",
        "pendulum",
        "--sim-data",
        str(pendulum_data),
        "--out",
        str(tmp_path / "b"),
        "--expert-data",
        str(experts),
        *common,
    )["ablations"]["expert-only"]
    volume = sum(len(e) for e in load_episodes(pendulum_data)[1])
    assert subset["steps"] < 0.8 * volume <= volume <= full["steps"]  # same volume as the full data
    assert (
        main(
            [
                "ablate",
                "pendulum",
                "--sim-data",
                str(pendulum_data),
                "--out",
                str(tmp_path / "c"),
                "--expert-data",
                str(pendulum_data),
                *common,
            ]
        )
        == 2
    )  # Alg. 2 data is not expert-only
    assert "not clean expert episodes" in caplog.text
    # The half-volume variant of folder `a` is not silently reused for a call that asks for other data.
    assert (
        main(
            [
                "ablate",
                "pendulum",
                "--sim-data",
                str(pendulum_data),
                "--out",
                str(tmp_path / "a"),
                "--expert-data",
                str(experts),
                *common,
            ]
        )
        == 2
    )
    assert "was made with other settings (expert_data: None there" in caplog.text


def test_presets_list_every_kind_with_their_values(capsys):
    from simdist.planning.settings import mppi_preset

    out = run_json(capsys, "presets", "--json")
    assert set(out) == {"task", "model", "train", "finetune", "mppi", "data", "baseline", "run", "threads"}
    assert "pendulum" in out["task"] and "bc-cpu" in out["baseline"] and "quadruped" in out["data"]
    assert out["mppi"]["quadruped-cpu"]["prior_weight"] == mppi_preset("quadruped-cpu").prior_weight
    assert out["model"]["paper-quadruped"]["history"] == 25 and "lr" in out["train"]["cpu"]
    assert main(["presets"]) == 0
    text = capsys.readouterr().out
    assert "paper-manipulation: latent_dim 64" in text and "dynamics 3x4" in text


def test_one_override_syntax_and_clear_errors_for_the_rest(tmp_path, caplog, pendulum_data):
    args = ["pretrain", "--data", str(pendulum_data), "--out", str(tmp_path / "o")]
    assert main(args + ["--model-set", "history=3"]) == 2
    assert "--model-set FIELD=VALUE is now --set model.FIELD=VALUE" in caplog.text
    assert main(args + ["--set", "modl.history=3"]) == 2
    assert "SECTION one of ['loss', 'model', 'train']" in caplog.text
    assert main(args + ["--set", "model.histroy=3"]) == 2
    assert "'--set model.histroy=3'" in caplog.text and "'history'" in caplog.text
    assert main(args + ["--set", "mppi.samples=3"]) == 2  # pretraining has no planner
    assert not (tmp_path / "o").exists()


def test_adapt_prints_a_line_per_round_and_the_heads_success_when_asked(tmp_path, capsys, pretrained, pendulum_data):
    argv = ["adapt", "pendulum", "--checkpoint", str(pretrained), "--rounds", "0", "--episodes-per-round", "2"]
    assert (
        main([*argv, "--sim-data", str(pendulum_data), "--out", str(tmp_path / "a"), "--evaluate-head", "--quiet"]) == 0
    )
    text = capsys.readouterr().out
    assert "round 0: success 0." in text and "BC head" in text and "initial_conditions" not in text
    assert len(text) < 600  # a summary, not every initial condition
    saved = json.loads((tmp_path / "a" / "adapt_results.json").read_text())["rounds"][0]
    assert 0.0 <= saved["head_success_rate"] <= 1.0 and len(saved["initial_conditions"]) == 2
