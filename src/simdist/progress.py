"""Progress bars for long work (generation, training, rollouts).

A terminal gets tqdm's live bar. A run whose stderr goes to a file (a cluster job, `cmd > log 2>&1`) would get
thousands of carriage-return updates there, so its bars redraw at most every `LOG_FILE_INTERVAL_S`.
"""
from __future__ import annotations

import sys

from tqdm.auto import tqdm

LOG_FILE_INTERVAL_S = 30.0


def progress_bar(iterable=None, **kwargs) -> tqdm:
    """`tqdm(iterable, **kwargs)`, throttled when stderr is not a terminal (a notebook keeps its live widget)."""
    if not sys.stderr.isatty() and "ipykernel" not in sys.modules:
        kwargs.setdefault("mininterval", LOG_FILE_INTERVAL_S)
    return tqdm(iterable, **kwargs)
