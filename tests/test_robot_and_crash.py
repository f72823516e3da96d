"""The physical-robot path (episode logger → finetune) and crash safety of the adaptation loop."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from simdist.data.episodes import DatasetError, load_episodes
from simdist.data.robot_logger import EpisodeLogger


def test_logger_writes_finished_episodes_and_rejects_bad_steps(tmp_path):
    log = EpisodeLogger(tmp_path, "pendulum", {"proprio": (3,)}, action_dim=1, control_period_s=0.1)
    log.start()
    for t in range(12):
        log.log({"proprio": np.full(3, t)}, np.array([0.1 * t]))
    with pytest.raises(DatasetError, match="shape"):
        log.log({"proprio": np.zeros(4)}, np.zeros(1))
    with pytest.raises(DatasetError, match="finite"):
        log.log({"proprio": np.zeros(3)}, np.array([np.nan]))
    path = log.end(success=True, metrics={"time_s": 1.2})
    assert path.exists()
    log.start()
    log.log({"proprio": np.zeros(3)}, np.zeros(1))  # in progress when the "crash" happens: not on disk
    info, episodes = load_episodes(tmp_path)
    assert info.domain == "real" and len(episodes) == 1 and len(episodes[0]) == 12
    assert episodes[0].success and episodes[0].reward is None


def test_finetune_from_robot_logs(tmp_path, pretrained, pendulum_data, capsys):
    from simdist.cli import main
    from simdist.tasks import get_task

    task = get_task("pendulum")
    env = task.make_env("real", seed=0)
    log = EpisodeLogger(tmp_path / "logs", "pendulum", task.spec.obs_shapes, 1, task.spec.control_period_s)
    rng = np.random.default_rng(0)
    for _ in range(3):
        obs, _ = env.reset(seed=int(rng.integers(100)))
        log.start()
        for _ in range(20):
            action = rng.uniform(-1, 1, 1)
            log.log(obs, action)
            obs, _, _, _, info = env.step(action)
        log.end(success=info["success"])
    assert (
        main(
            [
                "finetune",
                "--checkpoint",
                str(pretrained),
                "--data",
                str(tmp_path / "logs"),
                "--out",
                str(tmp_path / "ft"),
                "--steps",
                "5",
                "--sim-data",
                str(pendulum_data),
                "--json",
                "--quiet",
            ]
        )
        == 0
    )
    assert (tmp_path / "ft" / "model.safetensors").exists()


@pytest.mark.slow
def test_kill_9_mid_round_loses_no_completed_episode(tmp_path, pretrained, pendulum_data):
    out = tmp_path / "adapt"
    cmd = [
        sys.executable,
        "-m",
        "simdist.cli",
        "adapt",
        "pendulum",
        "--checkpoint",
        str(pretrained),
        "--rounds",
        "1",
        "--episodes-per-round",
        "6",
        "--out",
        str(out),
        "--finetune-steps",
        "5",
        "--sim-data",
        str(pendulum_data),
        "--quiet",
        "--json",
    ]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    episodes_dir = out / "real_data" / "episodes"
    deadline = time.time() + 120
    while time.time() < deadline and len(list(episodes_dir.glob("*.h5"))) < 2 and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = {p.name: p.read_bytes() for p in episodes_dir.glob("*.h5")}
    assert len(before) >= 2
    load_episodes(out / "real_data")  # every file on disk is complete and readable
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    after = {p.name: p.read_bytes() for p in episodes_dir.glob("*.h5")}
    assert len(after) == 12  # 2 rounds × 6 episodes, none repeated
    assert all(after[name] == data for name, data in before.items())  # completed episodes untouched


def test_adapt_starts_from_offline_real_data(tmp_path, pretrained, pendulum_data, capsys):
    from simdist.cli import main
    from simdist.tasks import get_task

    task = get_task("pendulum")
    env = task.make_env("real", seed=0)
    log = EpisodeLogger(tmp_path / "demos", "pendulum", task.spec.obs_shapes, 1, task.spec.control_period_s)
    for seed in range(2):
        obs, _ = env.reset(seed=seed)
        log.start()
        for _ in range(15):
            log.log(obs, np.zeros(1))
            obs, *_ = env.step(np.zeros(1))
        log.end(success=False)
    argv = [
        "adapt",
        "pendulum",
        "--checkpoint",
        str(pretrained),
        "--rounds",
        "0",
        "--episodes-per-round",
        "2",
        "--out",
        str(tmp_path / "a"),
        "--finetune-steps",
        "3",
        "--sim-data",
        str(pendulum_data),
        "--initial-data",
        str(tmp_path / "demos"),
        "--json",
        "--quiet",
    ]
    for _ in range(2):  # the rerun imports nothing twice
        assert main(argv) == 0
    names = sorted(p.stem for p in (tmp_path / "a" / "real_data" / "episodes").glob("*.h5"))
    assert names == ["init_00000", "init_00001", "r00_e000", "r00_e001"]
    assert (tmp_path / "a" / "round_00" / "model" / "done").exists()  # round 0 deploys the finetuned model


def test_rerunning_a_finished_run_reports_each_rounds_budget_as_it_was(tmp_path, pretrained, pendulum_data):
    """A rerun once counted every episode on disk as each round's `real_episodes_total` (the minutes were right)."""
    from simdist.cli import main

    argv = [
        "adapt",
        "pendulum",
        "--checkpoint",
        str(pretrained),
        "--rounds",
        "1",
        "--episodes-per-round",
        "2",
        "--out",
        str(tmp_path / "a"),
        "--finetune-steps",
        "2",
        "--sim-data",
        str(pendulum_data),
        "--quiet",
    ]
    for _ in range(2):
        assert main(argv) == 0
        rounds = json.loads((tmp_path / "a" / "adapt_results.json").read_text())["rounds"]
        assert [r["real_episodes_total"] for r in rounds] == [2, 4]
        assert 0 < rounds[0]["real_minutes"] < rounds[1]["real_minutes"]


@pytest.mark.slow
@pytest.mark.parametrize("quiet", [True, False])
def test_progress_bars_follow_the_flag_in_every_round(tmp_path, pretrained, pendulum_data, capfd, quiet):
    """A round's logged forward progress once overwrote the progress-bar flag, so rounds after the first ignored it."""
    from simdist.cli import main

    argv = [
        "adapt",
        "pendulum",
        "--checkpoint",
        str(pretrained),
        "--rounds",
        "2",
        "--episodes-per-round",
        "1",
        "--out",
        str(tmp_path / "a"),
        "--finetune-steps",
        "2",
        "--sim-data",
        str(pendulum_data),
    ]
    assert main(argv + ["--quiet"] * quiet) == 0
    bars_started = capfd.readouterr().err.count("pendulum rollouts:   0%")
    assert bars_started == (0 if quiet else 3)  # zero shot + 2 rounds


def test_logger_files_sort_in_logging_order(tmp_path):
    log = EpisodeLogger(tmp_path, "pendulum", {"proprio": (3,)}, action_dim=1, control_period_s=0.1)
    for n in range(1, 9):  # several episodes end within one second
        log.start()
        for _ in range(n):
            log.log({"proprio": np.zeros(3)}, np.zeros(1))
        log.end(success=False)
    assert [len(e) for e in load_episodes(tmp_path)[1]] == list(range(1, 9))


def test_adapt_loads_the_simulation_replay_once_for_all_rounds(tmp_path, pretrained, pendulum_data, monkeypatch):
    """Each finetune replays simulation windows; building them is the biggest allocation of a round, so Alg. 1
    builds them once and hands the same windows to every round's finetune."""
    from dataclasses import replace

    import torch

    import simdist.adaptation.adapt as adapt_module
    from simdist.cli import main
    from simdist.config import FinetuneConfig
    from simdist.training.finetune import finetune
    from simdist.training.train import load_windows

    loads = []
    monkeypatch.setattr(adapt_module, "load_windows", lambda *a, **k: loads.append(a) or load_windows(*a, **k))
    argv = [
        "adapt",
        "pendulum",
        "--checkpoint",
        str(pretrained),
        "--rounds",
        "2",
        "--episodes-per-round",
        "1",
        "--out",
        str(tmp_path / "a"),
        "--finetune-steps",
        "2",
        "--sim-data",
        str(pendulum_data),
        "--quiet",
    ]
    assert main(argv) == 0
    assert len(loads) == 1 and all((tmp_path / "a" / f"round_{j:02d}" / "model" / "done").exists() for j in (1, 2))
    model_cfg = loads[0][1]
    wrong = load_windows(pendulum_data, replace(model_cfg, horizon=model_cfg.horizon + 1), torch.device("cpu"))
    with pytest.raises(ValueError, match="simulation replay holds"):
        finetune(
            pretrained,
            tmp_path / "a" / "real_data",
            tmp_path / "ft",
            FinetuneConfig(steps=2, sim_replay_fraction=0.5),
            device=torch.device("cpu"),
            progress=False,
            sim_data=wrong,
        )
    shared = load_windows(pendulum_data, model_cfg, torch.device("cpu"))
    labels = shared.labelled.clone()
    finetune(
        pretrained,
        tmp_path / "a" / "real_data",
        tmp_path / "ft2",
        FinetuneConfig(steps=2, batch_size=4, warmup_steps=0, sim_replay_fraction=0.5, replay_labels=False),
        device=torch.device("cpu"),
        progress=False,
        sim_data=shared,
    )
    assert torch.equal(shared.labelled, labels) and labels.any()  # a latent-only replay leaves the caller's labels


def test_adapt_records_each_round_as_it_ends(tmp_path, pretrained, pendulum_data, monkeypatch):
    """adapt_results.json is rewritten after every round: a crash in round 2 keeps rounds 0 and 1 on disk, and the
    rerun completes the record."""
    import simdist.adaptation.adapt as adapt_module
    from simdist.cli import main

    collect = adapt_module._collect_round

    def crash_in_round_2(task, env, model, mppi, ics, data_dir, j, *rest):
        if j == 2:
            raise RuntimeError("robot fell over")
        return collect(task, env, model, mppi, ics, data_dir, j, *rest)

    monkeypatch.setattr(adapt_module, "_collect_round", crash_in_round_2)
    argv = [
        "adapt",
        "pendulum",
        "--checkpoint",
        str(pretrained),
        "--rounds",
        "2",
        "--episodes-per-round",
        "1",
        "--out",
        str(tmp_path / "a"),
        "--finetune-steps",
        "2",
        "--sim-data",
        str(pendulum_data),
        "--quiet",
    ]
    with pytest.raises(RuntimeError, match="fell over"):
        main(argv)
    partial = json.loads((tmp_path / "a" / "adapt_results.json").read_text())
    assert [r["round"] for r in partial["rounds"]] == [0, 1] and partial["rounds_planned"] == 2
    monkeypatch.setattr(adapt_module, "_collect_round", collect)
    assert main(argv) == 0
    done = json.loads((tmp_path / "a" / "adapt_results.json").read_text())
    assert [r["round"] for r in done["rounds"]] == [0, 1, 2]
    for key in ("successes", "real_minutes", "initial_conditions"):  # rounds 0 and 1 read back, not run again
        assert [r[key] for r in done["rounds"][:2]] == [r[key] for r in partial["rounds"]]
