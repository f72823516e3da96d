"""A markdown table over a records file of `simdist evaluate --json` rows (benchmarks/eval_record.sh appends them):
one row per (model, domain, physics, agent), success per seed, the mean, and successes per grid pooled over seeds.

    python benchmarks/eval_table.py benchmarks/results/slope_dagger_rounds.jsonl [--model q_lowfric_phist_dagger1]

Rows without "grids" (e.g. DAgger collection summaries) are skipped.
"""

from __future__ import annotations

from collections import defaultdict

from records import load_records, records_parser


def table(rows: list[dict]) -> list[str]:
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        if "grids" in r:
            groups[(r.get("model", r.get("checkpoint")), r.get("domain"), r.get("physics"), r.get("agent", "mppi"))].append(r)
    lines = ["| model | domain | physics | agent | success per seed = mean | successes per grid (of trials) |",
             "|---|---|---|---|---|---|"]
    for (model, domain, physics, agent), rs in groups.items():
        rs = sorted(rs, key=lambda r: r.get("seed", 0))
        per_seed = " / ".join(f"{r['success_rate']:.2f}" for r in rs)
        mean = sum(r["success_rate"] for r in rs) / len(rs)
        grids: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for r in rs:
            for g, m in r["grids"].items():
                grids[g][0] += round(m["success_rate"] * m["trials"])
                grids[g][1] += m["trials"]
        by_grid = ", ".join(f"{g}: {s} / {n}" for g, (s, n) in grids.items())
        lines.append(f"| {model} | {domain} | {physics} | {agent} | {per_seed} = {mean:.2f} | {by_grid} |")
    return lines


def main() -> None:
    ap = records_parser(__doc__)
    ap.add_argument("--model", help="only rows of this model")
    args = ap.parse_args()
    rows = [r for r in load_records(args.records) if args.model is None or r.get("model") == args.model]
    print("\n".join(table(rows)))


if __name__ == "__main__":
    main()
