"""Progress bars for long work (generation, training, rollouts).

A terminal gets tqdm's live bar. A run whose stderr goes to a file (a cluster job, `cmd > log 2>&1`, `| tee`)
would get thousands of carriage-return updates there, so its bars redraw at every `LOG_FILE_STEPS`-th of their
total (at most every `LOG_FILE_MIN_INTERVAL_S`), or every `LOG_FILE_INTERVAL_S` where the total is unknown: a
finetune of a minute shows its progress, rather than 0 % until it ends.
"""

from __future__ import annotations

import sys

from tqdm.auto import tqdm

LOG_FILE_INTERVAL_S = 30.0
LOG_FILE_STEPS = 20
LOG_FILE_MIN_INTERVAL_S = 1.0


def progress_bar(iterable=None, **kwargs) -> tqdm:
    """`tqdm(iterable, **kwargs)`, throttled when stderr is not a terminal (a notebook keeps its live widget)."""
    if not sys.stderr.isatty() and "ipykernel" not in sys.modules:
        total = kwargs.get("total")
        if total is None and hasattr(iterable, "__len__"):
            total = len(iterable) + kwargs.get("initial", 0)
        if total:
            kwargs.setdefault("miniters", max(1, total // LOG_FILE_STEPS))
            kwargs.setdefault("mininterval", LOG_FILE_MIN_INTERVAL_S)
        else:
            kwargs.setdefault("mininterval", LOG_FILE_INTERVAL_S)
    return tqdm(iterable, **kwargs)
