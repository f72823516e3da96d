"""A Table I markdown table over replicates: one `simdist ablate --json` record per seed (e.g.
benchmarks/pendulum_table1_seeds.sh writes them), each variant's `sim` success per seed, pooled successes over
trials with the 95 % Wilson interval, and the difference from the full SimDist variant pooled the same way.

    python benchmarks/ablation_seeds_table.py benchmarks/results/ablate_pendulum_s*.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from simdist.eval.rollout import wilson_interval


def pooled(rows: list[dict]) -> tuple[int, int]:
    """Successes and trials of a variant over the replicates (`settings.trials` on each grid)."""
    successes = trials = 0
    for r in rows:
        per_grid = r["settings"]["trials"]
        for rate in r["grids"].values():
            successes += round(rate * per_grid)
            trials += per_grid
    return successes, trials


def table(records: list[dict], seeds: list[str]) -> list[str]:
    variants = list(dict.fromkeys(v for rec in records for v in rec["ablations"]))
    lines = [f"| variant | sim steps | `sim` success, seed {' / '.join(seeds)} | pooled (95 % interval) | vs SimDist |",
             "|---|---|---|---|---|"]
    reference = pooled([rec["ablations"]["simdist"] for rec in records if "simdist" in rec["ablations"]])
    for v in variants:
        rows = [rec["ablations"][v] for rec in records if v in rec["ablations"]]
        s, n = pooled(rows)
        lo, hi = wilson_interval(s, n)
        delta = s / n - reference[0] / reference[1] if reference[1] and v != "simdist" else None
        per_seed = " / ".join(f"{r['success_rate']:.2f}" for r in rows)
        difference = "" if delta is None else f"{delta:+.2f}"
        lines.append(f"| {v} | {rows[0]['steps']:,} | {per_seed} | {s} / {n} = {s / n:.2f} ({lo:.2f}–{hi:.2f}) | "
                     f"{difference} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("records", nargs="+", help="one `simdist ablate --json` record per seed")
    args = ap.parse_args()
    paths = sorted(Path(p) for p in args.records)
    records = [json.loads(p.read_text()) for p in paths]
    seeds = [str(rec["ablations"]["simdist"]["settings"].get("seed", "?")) if "simdist" in rec["ablations"] else p.stem
             for rec, p in zip(records, paths)]
    print("\n".join(table(records, seeds)))


if __name__ == "__main__":
    main()
