"""One JSON line per result: printed, and appended to a records file so a killed sweep keeps its rows."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def emit(row: dict, out: str | Path | None) -> None:
    line = json.dumps(row)
    print(line, flush=True)
    if out:
        with Path(out).open("a") as f:
            f.write(line + "\n")


def load_records(paths: list[Path]) -> list[dict]:
    """Every JSON line of the given records files, in order; a clear error for a file that is not there."""
    missing = [str(p) for p in paths if not Path(p).is_file()]
    if missing:
        raise SystemExit(f"no such records file: {', '.join(missing)}")
    return [json.loads(line) for p in paths for line in Path(p).read_text().splitlines() if line.strip()]


def records_parser(doc: str) -> argparse.ArgumentParser:
    """A command line over one or more records files (the table scripts' common part)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("records", nargs="+", type=Path)
    return ap
