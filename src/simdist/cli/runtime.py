"""What every command shares at run time: a clean end on SIGINT/SIGTERM, and a PyTorch thread count that fits the
cores actually free."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
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


def _cpu_jiffies(cpus: set[int]) -> tuple[int, int] | None:
    """(busy, total) clock ticks since boot summed over `cpus`, from /proc/stat (None where there is none)."""
    try:
        lines = Path("/proc/stat").read_text().splitlines()
    except OSError:
        return None
    busy = total = 0
    for line in lines:
        name, *ticks = line.split()
        if name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in cpus:
            values = [int(t) for t in ticks[:8]]  # user nice system idle iowait irq softirq steal
            total += sum(values)
            busy += sum(values) - values[3] - values[4]
    return busy, total


def _own_jiffies() -> int:
    """Clock ticks this process ran (user + system), from /proc/self/stat."""
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def busy_cores(cpus: set[int], interval_s: float = 0.2) -> float | None:
    """How many of `cpus` other processes keep busy now: /proc/stat sampled over `interval_s`, this process's own
    ticks taken out. None where /proc/stat cannot be read (then the 1-minute load average stands in)."""
    before, own_before = _cpu_jiffies(cpus), _own_jiffies()
    if before is None:
        return None
    time.sleep(interval_s)
    after, own_after = _cpu_jiffies(cpus), _own_jiffies()
    if after is None or after[1] <= before[1]:
        return None
    busy = max(0, after[0] - before[0] - (own_after - own_before))
    return len(cpus) * busy / (after[1] - before[1])


def free_cores() -> tuple[int, int, float]:
    """(cores this process may run on, of those the ones not busy now, how many are busy)."""
    cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set(range(os.cpu_count() or 1))
    busy = busy_cores(set(cpus))
    if busy is None:
        busy = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    cores = len(cpus)
    return cores, max(1, min(cores, int(round(cores - busy)))), busy


def choose_threads() -> int | None:
    """Where the user set no thread count (OMP_NUM_THREADS), run PyTorch on the cores free to this process now (the
    1-minute load average lags by minutes): on 2 shared cores at load 5, PyTorch's default of one thread per core ran
    MPPI about 20x slower than one thread (docs/benchmarks.md). Lowers the count only, and says so once; returns the
    count chosen, or None."""
    default = torch.get_num_threads()
    if os.environ.get("OMP_NUM_THREADS") or default <= 1:  # the user's choice, or nothing to lower
        return None
    cores, free, load = free_cores()
    if free >= default:
        return None
    torch.set_num_threads(free)
    log.warning(
        "%d of the %d cores free to this process are busy (%.1f busy now): PyTorch runs %d thread(s) instead of "
        "%d; set OMP_NUM_THREADS=N to choose",
        cores - free,
        cores,
        load,
        free,
        default,
    )
    return free
