"""Scale-out on existing engines: data-parallel pretraining under torchrun (DDP over gloo here) is one run that
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _schedule(steps: int) -> TrainConfig:
    """A tiny schedule over 6 steps (a run of `steps` < 6 stops part-way, as an interrupted one would)."""
    return TrainConfig(steps=steps, decay_steps=6, batch_size=16, warmup_steps=2, val_every=3, checkpoint_every=3,
                       lr=1e-3)


def _rank(rank: int, port: int, data, out, model_cfg) -> None:
    """One torchrun-style process: the launcher's environment, then the library's pretrain, stopped at step 3 and
    rerun to resume it to step 6."""
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(WORLD), MASTER_ADDR="127.0.0.1",
                      MASTER_PORT=str(port))
    torch.set_num_threads(1)
    for steps in (3, 6):
        pretrain(data, out, model_cfg, _schedule(steps), device=torch.device("cpu"), progress=False)


def _metrics(run) -> list[dict]:
    return [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]


def test_two_gloo_processes_train_like_one_process_and_resume_as_one_run(pendulum_data, tiny_cfg, tmp_path):
    model_cfg = replace(tiny_cfg, attention_dropout=0.0)  # no per-rank randomness: the steps must agree
    single, parallel = tmp_path / "single", tmp_path / "parallel"
    pretrain(pendulum_data, single, model_cfg, _schedule(6), device=torch.device("cpu"), progress=False)
    start = time.perf_counter()
    mp.start_processes(_rank, args=(_free_port(), pendulum_data, parallel, model_cfg), nprocs=WORLD,
                       start_method="fork")
    logging.getLogger(__name__).info("2 ranks, 3 + 3 steps: %.1f s", time.perf_counter() - start)
    # one run: rank 0 alone wrote, a resumed run appends to the same metrics
    assert [m["step"] for m in _metrics(parallel)] == [3, 6]
    for a, b in zip(_metrics(single), _metrics(parallel)):
        for key in ("train/total", "train/latent", "train/bc", "lr"):
            assert b[key] == pytest.approx(a[key], rel=1e-4), key
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
