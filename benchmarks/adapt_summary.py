"""Per seed and pooled: zero-shot success, the mean over adapted rounds, over the last eight, and over the rounds whose
evaluation ends within a robot-minute window (the paper's quadruped budget is 30 minutes), from `simdist adapt`
records (adapt_results.json).

    python benchmarks/adapt_summary.py benchmarks/results/adapt_dagger_mu019_s*_r16.json [--window 19 31]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def summary(rounds: list[dict], window: tuple[float, float], last: int = 8) -> dict[str, float]:
    adapted = [r for r in rounds if r["round"] > 0]
    in_window = [r["success_rate"] for r in adapted if window[0] <= r["real_minutes"] <= window[1]]
    return {
        "zero shot": rounds[0]["success_rate"],
        "adapted": float(np.mean([r["success_rate"] for r in adapted])),
        f"last {last}": float(np.mean([r["success_rate"] for r in adapted[-last:]])),
        f"{window[0]:g}–{window[1]:g} robot min": float(np.mean(in_window)) if in_window else float("nan"),
        "robot min": rounds[-1]["real_minutes"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", nargs="+", type=Path)
    ap.add_argument("--window", nargs=2, type=float, default=(19.0, 31.0), metavar=("FROM", "TO"))
    args = ap.parse_args()
    runs = {p.stem: json.loads(p.read_text())["rounds"] for p in args.records}
    rows = {name: summary(r, tuple(args.window)) for name, r in runs.items()}
    pooled_rounds = [r for rs in runs.values() for r in rs]
    keys = list(next(iter(rows.values())))
    print("| record | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for name, row in rows.items():
        print(
            f"| {name} | " + " | ".join(f"{v:.2f}" if k != "robot min" else f"{v:.1f}" for k, v in row.items()) + " |"
        )
    # pooled over evaluations (each round has the same number of episodes), not a mean of per-seed means
    zero = [r["success_rate"] for r in pooled_rounds if r["round"] == 0]
    adapted = [r for r in pooled_rounds if r["round"] > 0]
    win = [r["success_rate"] for r in adapted if args.window[0] <= r["real_minutes"] <= args.window[1]]
    last8 = [r["success_rate"] for rs in runs.values() for r in [x for x in rs if x["round"] > 0][-8:]]
    print(
        f"| pooled ({len(runs)}) | {np.mean(zero):.2f} | {np.mean([r['success_rate'] for r in adapted]):.2f} | "
        f"{np.mean(last8):.2f} | {np.mean(win) if win else float('nan'):.2f} ({len(win)} evaluations) | |"
    )


if __name__ == "__main__":
    main()
