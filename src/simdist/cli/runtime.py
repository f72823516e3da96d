"""What every command shares at run time: a clean end on SIGINT/SIGTERM, and a PyTorch thread count that fits the
cores actually free."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from pathlib import Path

import torch

from simdist.training.distributed import env_rank

log = logging.getLogger("simdist")

# Commands that pick up where an interrupted run stopped when rerun the same way.
RESUMABLE = ("pretrain", "finetune", "adapt", "run", "demo", "ablate", "compare", "dagger")


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the main thread is, like Ctrl-C's KeyboardInterrupt."""


@contextlib.contextmanager
def terminate_as_interrupt():
    """While inside, SIGTERM raises `Terminated` (so `finally` blocks and atomic writes clean up as for Ctrl-C)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def remove_partial_files(out: str | None) -> int:
    """Delete the `*.tmp` files an interrupted atomic write left under `out` (readers ignore them); returns how
    many."""
    if out is None or not Path(out).is_dir():
        return 0
    removed = 0
    for tmp in Path(out).rglob("*.tmp"):
        if tmp.is_file():
            tmp.unlink(missing_ok=True)
            removed += 1
    return removed


def interrupted(args, err: KeyboardInterrupt) -> int:
    """One line on how to go on after an interrupt; the exit status 128 + signal number (130 SIGINT, 143 SIGTERM)."""
    signum = signal.SIGTERM if isinstance(err, Terminated) else signal.SIGINT
    if env_rank() != 0:  # under torchrun rank 0 cleans up and says it, once
        return 128 + int(signum)
    out = getattr(args, "out", None)
    remove_partial_files(out if args.command not in ("evaluate", "select") else None)
    if args.command in RESUMABLE:
        log.error("interrupted (%s); completed work is kept in %s: rerun the same command to resume", signum.name, out)
    elif args.command == "generate":
        log.error(
            "interrupted (%s); %s keeps the episode files written so far (generation does not resume): add "
            "to it with another --seed, or start again in a new --out",
            signum.name,
            out,
        )
    else:
        log.error("interrupted (%s); nothing was written: rerun the command to start again", signum.name)
    return 128 + int(signum)


def free_cores() -> tuple[int, int, float]:
    """(cores this process may run on, of those the ones not busy by the 1-minute load average, that load)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    return cores, max(1, min(cores, int(round(cores - load)))), load


def choose_threads() -> int | None:
    """Where the user set no thread count (OMP_NUM_THREADS), run PyTorch on the cores free to this process: on 2
    shared cores at load 5, PyTorch's default of one thread per core ran MPPI about 20x slower than one thread
    (docs/benchmarks.md). Lowers the count only, and says so once; returns the count chosen, or None."""
    if os.environ.get("OMP_NUM_THREADS"):
        return None
    cores, free, load = free_cores()
    default = torch.get_num_threads()
    if free >= default:
        return None
    torch.set_num_threads(free)
    log.warning(
        "%d of the %d cores free to this process are busy (load %.1f): PyTorch runs %d thread(s) instead of "
        "%d; set OMP_NUM_THREADS=N to choose",
        cores - free,
        cores,
        load,
        free,
        default,
    )
    return free
