"""Success and falls per evaluation grid (the quadruped's commanded speed), pooled over `simdist adapt` records:
zero shot (round 0) against every adapted round. Which grids a model loses, and whether adaptation moves them.

    python benchmarks/success_by_speed.py benchmarks/results/adapt_lowfric_mu019_l10_s*.json

A record's zero shot is counted once per seed: pass `--no-zero-shot` for runs that share their seed's round 0 with
another record (e.g. the same seed finetuned with another recipe).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path


def pool(paths: list[Path], zero_shot: bool = True) -> dict[str, dict[str, list[float]]]:
    """{"zero shot" | "adapted": {grid: [successes, falls, trials]}} over the records' rounds."""
    table: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0, 0]))
    for path in paths:
        for r in json.loads(path.read_text())["rounds"]:
            phase = "zero shot" if r["round"] == 0 else "adapted"
            if phase == "zero shot" and not zero_shot:
                continue
            n = round(r["episodes"] / len(r["metrics_by_grid"]))  # `--grid all` splits a round evenly
            for grid, m in r["metrics_by_grid"].items():
                cell = table[phase][grid]
                cell[0] += m["success"] * n
                cell[1] += m["fell"] * n
                cell[2] += n
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+", type=Path)
    parser.add_argument("--no-zero-shot", nargs="*", type=Path, default=[],
                        help="records whose round 0 is already counted by another record")
    args = parser.parse_args()
    table = pool(args.records)
    extra = pool(args.no_zero_shot, zero_shot=False)
    for grid, (s, f, n) in extra["adapted"].items():
        cell = table["adapted"][grid]
        cell[0], cell[1], cell[2] = cell[0] + s, cell[1] + f, cell[2] + n
    for phase in ("zero shot", "adapted"):
        for grid, (s, f, n) in sorted(table[phase].items(), key=lambda kv: float(kv[0])):
            print(json.dumps({"phase": phase, "grid": grid, "trials": n, "success": round(s / n, 3),
                              "fell": round(f / n, 3)}))


if __name__ == "__main__":
    main()
