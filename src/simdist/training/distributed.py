"""Data-parallel pretraining under `torchrun`: one process per device, torch.distributed over gloo (CPU) or NCCL (GPU).

`torchrun --nproc_per_node N -m simdist.cli pretrain …` starts N copies of the command. Each joins the process group
named by torchrun's environment (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/PORT), loads the whole dataset, and
draws the same global batch as a single process would (the generator seeded by (seed, step)); rank r trains on
rows r, r + N, r + 2N, … of it. One all-reduce averages the shards' gradients, which is the single-process gradient
of the global batch whenever every shard's loss averages over the same number of windows: simulation pretraining, where
every window carries every label (with `tail_windows`, or batches mixing labelled and unlabelled windows, each
shard's mean weighs its own windows, so the step differs slightly from a single process's).

The run is one run: the model and its normaliser are rank 0's (broadcast when the run starts), only rank 0
validates and writes checkpoints and metrics, and every rank resumes from the same checkpoint, so a run may be
resumed with another number of processes (or none). Dropout and input noise draw from a generator per rank.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import torch
import torch.distributed as dist

log = logging.getLogger(__name__)


def launched() -> bool:
    """Whether this process is one of several that torchrun (or any launcher setting WORLD_SIZE) started."""
    return int(os.environ.get("WORLD_SIZE", "1")) > 1


def env_rank(local: bool = False) -> int:
    """This process's rank as its launcher set it (RANK, or LOCAL_RANK: on its node), 0 when it runs alone."""
    return int(os.environ.get("LOCAL_RANK" if local else "RANK", "0"))


@dataclass(frozen=True)
class Ranks:
    """Where this process stands in a data-parallel run; `Ranks()` is a single process."""

    rank: int = 0
    world: int = 1

    @property
    def main(self) -> bool:
        """Rank 0: the one that validates and writes checkpoints and metrics."""
        return self.rank == 0

    def check_batch(self, batch_size: int) -> None:
        if batch_size % self.world:
            raise ValueError(
                f"batch size {batch_size} does not split over {self.world} processes: choose a multiple "
                f"of {self.world} (--set train.batch_size=N), so that the global batch is the "
                "single-process one"
            )

    def shard(self, ids: np.ndarray) -> np.ndarray:
        """This rank's rows of a global batch's window ids."""
        return ids[self.rank :: self.world]

    def start_from_rank0(self, model: torch.nn.Module) -> None:
        """Give `model` rank 0's parameters and buffers (the normaliser's statistics among them) and this rank its own
        dropout and noise generator (rank 0 keeps a single process's); nothing in a single process."""
        if self.world == 1:
            return
        for tensor in model.state_dict().values():  # rank 0's weights and normaliser, whatever each rank built
            dist.broadcast(tensor, 0)
        if self.rank:
            torch.manual_seed(int(np.random.SeedSequence([torch.initial_seed(), self.rank]).generate_state(1)[0]))

    def average_gradients(self, params: list[torch.nn.Parameter]) -> None:
        """Average the gradients over the ranks with one all-reduce of all of them flattened. The compiled backward
        hands every gradient over at once, so DDP's bucketed overlap had nothing to overlap, and its graph splitting
        made a step 9 % slower (docs/benchmarks.md). A parameter that has a gradient on some rank only counts as zero
        on the others; one that has none on any rank (a head whose loss weight is 0) keeps none, as in one process."""
        if self.world == 1:
            return
        grads = [p.grad.reshape(-1) if p.grad is not None else p.new_zeros(p.numel()) for p in params]
        used = torch.tensor([p.grad is not None for p in params], dtype=grads[0].dtype, device=grads[0].device)
        flat = torch.cat((*grads, used))
        dist.all_reduce(flat)
        flat /= self.world
        n = len(params)
        for p, g, has in zip(params, flat[:-n].split([p.numel() for p in params]), flat[-n:].gt(0).tolist()):
            if has:
                p.grad = g.view_as(p)

    def mean(self, logs: dict[str, float]) -> dict[str, float]:
        """Every rank's logged loss terms averaged over the ranks: the global batch's (called on every rank)."""
        if self.world == 1 or not logs:
            return logs
        values = torch.tensor(list(logs.values()), dtype=torch.float64, device=_collective_device())
        dist.all_reduce(values)
        return dict(zip(logs, (values / self.world).tolist()))

    def barrier(self) -> None:
        if self.world > 1:
            dist.barrier(**({"device_ids": [torch.cuda.current_device()]} if dist.get_backend() == "nccl" else {}))


SINGLE = Ranks()


def _collective_device() -> torch.device:
    return torch.device("cuda", torch.cuda.current_device()) if dist.get_backend() == "nccl" else torch.device("cpu")


def run_device(device: torch.device) -> torch.device:
    """The device this process trains on: under a launcher on a GPU machine, its own GPU (cuda:LOCAL_RANK)."""
    if launched() and device.type == "cuda":
        per_node, gpus = int(os.environ.get("LOCAL_WORLD_SIZE", "1")), torch.cuda.device_count()
        if per_node > gpus:
            raise ValueError(
                f"{per_node} processes on this node but PyTorch sees {gpus} GPU(s) here: one process per "
                f"GPU (torchrun --nproc_per_node {gpus})"
            )
        device = torch.device("cuda", env_rank(local=True))
        torch.cuda.set_device(device)
    return device


@contextlib.contextmanager
def process_group(device: torch.device) -> Iterator[Ranks]:
    """Inside, this process is a rank of the launcher's process group (NCCL when it trains on a GPU, gloo on a
    CPU), left again on the way out; a process no launcher started, or one already in a group, runs as it is."""
    if not launched() or dist.is_initialized():
        yield current()
        return
    backend = "nccl" if device.type == "cuda" else "gloo"
    dist.init_process_group(backend, **({"device_id": device} if backend == "nccl" else {}))
    ranks = current()
    if ranks.main:
        log.info("data-parallel pretraining on %d processes (%s)", ranks.world, backend)
    try:
        yield ranks
    finally:
        dist.destroy_process_group()


def current() -> Ranks:
    if dist.is_available() and dist.is_initialized():
        return Ranks(dist.get_rank(), dist.get_world_size())
    return SINGLE
