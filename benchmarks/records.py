"""One JSON line per result: printed, and appended to a records file so a killed sweep keeps its rows."""

from __future__ import annotations

import json
from pathlib import Path


def emit(row: dict, out: str | Path | None) -> None:
    line = json.dumps(row)
    print(line, flush=True)
    if out:
        with Path(out).open("a") as f:
            f.write(line + "\n")
