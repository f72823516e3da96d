"""Scale-out on existing engines: data-parallel pretraining under torchrun (gloo here) is one run that
matches a single process at the same global batch, and Alg. 2 generation on Ray writes the episodes local workers
write."""

import json
import logging
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
import torch
import torch.multiprocessing as mp

from simdist.cli import guards, main
from simdist.config import TrainConfig, replace
from simdist.data.episodes import episode_files, load_episodes
from simdist.data.generate import generate
from simdist.tasks import get_task
from simdist.training import checkpoint as ckpt
from simdist.training.distributed import Ranks
from simdist.training.train import build_model, load_windows, pretrain

WORLD = 2


def _free_ports(n: int = 1) -> list[int]:
    sockets = [socket.socket() for _ in range(n)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def _schedule(steps: int) -> TrainConfig:
    """A tiny schedule over 6 steps (a run of `steps` < 6 stops part-way, as an interrupted one would)."""
    return TrainConfig(
        steps=steps, decay_steps=6, batch_size=16, warmup_steps=2, val_every=3, checkpoint_every=3, lr=1e-3
    )


def _rank(rank: int, ports: tuple[int, int], data, out, model_cfg) -> None:
    """One torchrun-style process: the launcher's environment, then the library's pretrain, stopped at step 3 and
    rerun to resume it to step 5 (a port per run: the first run's store may still hold its port)."""
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(WORLD), MASTER_ADDR="127.0.0.1")
    torch.set_num_threads(1)
    shards, shard = [], Ranks.shard
    Ranks.shard = lambda self, ids: shards.append(shard(self, ids)) or shards[-1]  # which rows this rank trains on
    for steps, port in zip((3, 5), ports):
        os.environ["MASTER_PORT"] = str(port)
        pretrain(data, out, model_cfg, _schedule(steps), device=torch.device("cpu"), progress=False)
    np.save(out.parent / f"rank{rank}_rows.npy", np.stack(shards))


def _metrics(run) -> list[dict]:
    return [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]


def test_two_gloo_processes_train_like_one_process_and_resume_as_one_run(pendulum_data, tiny_cfg, tmp_path):
    model_cfg = replace(tiny_cfg, attention_dropout=0.0)  # no per-rank randomness: the steps must agree
    single, parallel = tmp_path / "single", tmp_path / "parallel"
    pretrain(pendulum_data, single, model_cfg, _schedule(6), device=torch.device("cpu"), progress=False)
    start = time.perf_counter()
    mp.start_processes(
        _rank,
        args=(tuple(_free_ports(2)), pendulum_data, parallel, model_cfg),
        nprocs=WORLD,
        start_method="fork" if "fork" in mp.get_all_start_methods() else "spawn",
    )
    logging.getLogger(__name__).info("2 ranks, 3 + 2 steps: %.1f s", time.perf_counter() - start)
    # ... and one process resumes their run for its last step: one run, whose metrics rank 0 alone wrote
    pretrain(pendulum_data, parallel, model_cfg, _schedule(6), device=torch.device("cpu"), progress=False)
    rows = [np.load(tmp_path / f"rank{r}_rows.npy") for r in range(WORLD)]
    assert rows[0].shape == rows[1].shape == (5, 8)  # 5 steps, each rank half of the batch of 16 ...
    assert not any(np.array_equal(a, b) for a, b in zip(*rows))  # ... and not the same half
    assert [m["step"] for m in _metrics(parallel)] == [3, 5, 6]
    by_step = {m["step"]: m for m in _metrics(parallel)}
    for a in _metrics(single):
        for key in ("train/total", "train/latent", "train/bc", "lr"):
            assert by_step[a["step"]][key] == pytest.approx(a[key], rel=1e-4), (a["step"], key)
    # the same weights, to float rounding (Adam turns exact-zero gradients, e.g. of key biases, into ±lr steps of
    # rounding noise): the difference is tiny against what training moved
    first = ckpt.load_model(single).state_dict()
    both = ckpt.load_model(parallel).state_dict()
    init = _initial_weights(pendulum_data, model_cfg)
    moved = sum(((first[k] - init[k]) ** 2).sum() for k in first) ** 0.5
    apart = sum(((first[k] - both[k]) ** 2).sum() for k in first) ** 0.5
    assert apart < 0.01 * moved, (float(apart), float(moved))
    for k in first:  # the normaliser is the same on every rank and in the checkpoint
        if k.startswith("normalizer."):
            assert torch.equal(first[k], both[k]), k


def _initial_weights(data, model_cfg) -> dict:
    torch.manual_seed(_schedule(6).seed)
    return build_model(model_cfg, load_windows(data, model_cfg, torch.device("cpu"))).state_dict()


def _average(rank: int, port: int, out) -> None:
    """Rank r's gradients: `both` = r + 1 on every rank, `one` only on rank 1, `none` on no rank."""
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=WORLD)
    both, one, none = (torch.nn.Parameter(torch.zeros(3)) for _ in range(3))
    both.grad = torch.full((3,), rank + 1.0)
    one.grad = torch.ones(3) * 4 if rank == 1 else None
    Ranks(rank, WORLD).average_gradients([both, one, none])
    torch.save({"both": both.grad, "one": one.grad, "none": none.grad}, out / f"grads{rank}.pt")
    dist.destroy_process_group()


def test_gradients_are_averaged_over_the_ranks_and_a_parameter_no_rank_used_keeps_none(tmp_path):
    mp.start_processes(
        _average,
        args=(_free_ports()[0], tmp_path),
        nprocs=WORLD,
        start_method="fork" if "fork" in mp.get_all_start_methods() else "spawn",
    )
    for rank in range(WORLD):
        grads = torch.load(tmp_path / f"grads{rank}.pt")
        assert torch.equal(grads["both"], torch.full((3,), 1.5))
        assert torch.equal(grads["one"], torch.full((3,), 2.0))  # a rank without it counts as zero
        assert grads["none"] is None  # as in one process: Adam leaves it untouched


def test_a_batch_that_does_not_split_over_the_ranks_is_refused():
    Ranks(0, 2).check_batch(16)
    with pytest.raises(ValueError, match="batch size 15 does not split over 2 processes"):
        Ranks(1, 2).check_batch(15)
    assert list(Ranks(1, 2).shard(np.arange(6))) == [1, 3, 5]


def test_under_torchrun_only_pretrain_runs(monkeypatch, pretrained, caplog):
    """Another command would run once per process: refused with one line (the node's first rank's; the others stay
    silent)."""
    monkeypatch.setenv("WORLD_SIZE", "2")
    for rank, lines in (("0", 1), ("1", 0)):
        monkeypatch.setenv("RANK", rank)
        monkeypatch.setenv("LOCAL_RANK", rank)
        caplog.clear()
        assert main(["evaluate", "pendulum", "--checkpoint", str(pretrained), "--trials", "1"]) == 2
        errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == lines and all("only pretrain runs data-parallel" in e for e in errors)


def test_ray_without_ray_installed_is_one_line(monkeypatch, tmp_path, caplog):
    monkeypatch.setattr(guards, "ray_available", lambda: False)
    out = tmp_path / "data"
    assert main(["generate", "pendulum", "--episodes", "2", "--out", str(out), "--ray", "local"]) == 2
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == ['generate --ray needs Ray: pip install -e ".[ray]"']
    assert not out.exists()


@pytest.mark.slow
def test_ray_generation_writes_the_local_workers_episodes(tmp_path):
    """A local Ray instance (2 CPUs) runs 3 workers' shares as Ray tasks: the same files, the same bytes."""
    ray = pytest.importorskip("ray")
    task = get_task("pendulum")
    start = time.perf_counter()
    generate(task, tmp_path / "local", episodes=5, workers=3, seed=4, progress=False)
    local_s = time.perf_counter() - start
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        start = time.perf_counter()
        stats = generate(task, tmp_path / "ray", episodes=5, workers=3, seed=4, progress=False, ray="auto")
        ray_s = time.perf_counter() - start
    finally:
        ray.shutdown()
    logging.getLogger(__name__).info("5 episodes: local workers %.1f s, Ray %.1f s", local_s, ray_s)
    names = [p.name for p in episode_files(tmp_path / "local")]
    assert (
        names
        == [p.name for p in episode_files(tmp_path / "ray")]
        == ["s4_w0_00000.h5", "s4_w1_00000.h5", "s4_w2_00000.h5"]
    )
    for name in names:
        local_file, ray_file = (tmp_path / run / "episodes" / name for run in ("local", "ray"))
        assert local_file.read_bytes() == ray_file.read_bytes(), name
    (info_l, local), (info_r, remote) = load_episodes(tmp_path / "local"), load_episodes(tmp_path / "ray")
    assert info_l == info_r and stats["episodes"] == len(remote) == 5
    assert all(np.array_equal(a.action, b.action) and a.source_policy == b.source_policy for a, b in zip(local, remote))


@pytest.mark.slow
def test_torchrun_pretrain_is_the_single_process_run(pendulum_data, tmp_path):
    """The command line under torchrun (2 gloo processes): the single-process run's losses and weights; a bad data
    folder is the single-process refusal, said once."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    common = [
        "pretrain",
        "--data",
        str(pendulum_data),
        "--steps",
        "4",
        "--quiet",
        "--json",
        "--set",
        "model.latent_dim=16",
        "--set",
        "train.batch_size=16",
        "--set",
        "model.attention_dropout=0",
    ]
    torchrun = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nproc_per_node",
        str(WORLD),
        "--master_port",
        str(_free_ports()[0]),
        "-m",
        "simdist.cli",
    ]
    one = subprocess.run(
        [sys.executable, "-m", "simdist.cli", *common, "--out", str(tmp_path / "one")],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    two = subprocess.run(
        [*torchrun, *common, "--out", str(tmp_path / "two")], capture_output=True, text=True, env=env, check=True
    )
    (a,), (b,) = ([json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")] for p in (one, two))
    assert b["train_loss"] == pytest.approx(a["train_loss"], rel=1e-4)
    first, both = (ckpt.load_model(tmp_path / run).state_dict() for run in ("one", "two"))
    assert all(torch.allclose(first[k], both[k], atol=5e-3) for k in first)
    bad = subprocess.run(
        [*torchrun, *common, "--data", str(tmp_path / "missing"), "--out", str(tmp_path / "bad")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert bad.returncode != 0 and not (tmp_path / "bad").exists()
    ours = [line for line in bad.stderr.splitlines() if "simdist" in line and "ERROR" in line]
    assert len(ours) == 1 and "--data" in ours[0] and "no such dataset folder" in ours[0], bad.stderr
