"""A markdown table over `manipulation_stages.py` records: episodes pooled over evaluation seeds per (checkpoint,
domain, agent, grid, overrides), counting how many got through each stage.

    python benchmarks/stages_table.py benchmarks/results/table_leg_stages.jsonl [--checkpoint tl_noact_200k]

Columns: pooled trials and seeds, mean reach (in [0, 1]), then episodes that held the part (grasp), lifted it clear
(lift ≥ 0.9), brought it within 2 mm of the hole axis while holding it, got it into the lead-in (insert > 0),
engaged the thread (thread > 0; Table Leg only, "–" elsewhere) and succeeded.
"""

from __future__ import annotations

from collections import defaultdict

from records import load_records, records_parser

OVER_HOLE_MM = 2.0  # within the lead-in's reach: Table Leg's thread catches within 1.5 mm of the axis
LIFTED = 0.9  # the lift term rises with height until the part is clear of its fixture or rack; 1.0 once in the hole


def stage_counts(episodes: list[dict]) -> dict[str, int | None]:
    def near(e: dict) -> bool:
        return e["closest_held"] is not None and e["closest_held"]["lateral_mm"] < OVER_HOLE_MM

    return {"grasp": sum(e["grasp"] >= 1.0 for e in episodes), "lift": sum(e["lift"] >= LIFTED for e in episodes),
            "over hole": sum(near(e) for e in episodes), "insert": sum(e["insert"] > 0 for e in episodes),
            "thread": sum(e["thread"] > 0 for e in episodes) if "thread" in episodes[0] else None,
            "success": sum(e["success"] for e in episodes)}


def table(rows: list[dict]) -> list[str]:
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["checkpoint"], r["domain"], r["agent"], r["grid"], " ".join(r.get("set", [])))].append(r)
    header = ["checkpoint", "domain", "agent", "grid", "trials (seeds)", "reach", "grasp", "lift", "over hole",
              "insert", "thread", "success"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for (ckpt, domain, agent, grid, overrides), rs in sorted(groups.items()):
        episodes = [e for r in rs for e in r["episodes"]]
        seeds = sorted({r.get("seed", 0) for r in rs})
        n = len(episodes)
        reach = sum(e["reach"] for e in episodes) / n
        counts = " | ".join("–" if c is None else f"{c} / {n}" for c in stage_counts(episodes).values())
        agent_name = f"{agent} {overrides}".strip()
        lines.append(f"| {ckpt} | {domain} | {agent_name} | {grid} | {n} ({', '.join(map(str, seeds))}) | "
                     f"{reach:.2f} | {counts} |")
    return lines


def main() -> None:
    ap = records_parser(__doc__)
    ap.add_argument("--checkpoint", help="only rows whose checkpoint path contains this")
    args = ap.parse_args()
    rows = [r for r in load_records(args.records) if args.checkpoint is None or args.checkpoint in r["checkpoint"]]
    if not rows:
        raise SystemExit(f"no stage records{' for ' + args.checkpoint if args.checkpoint else ''} in "
                         f"{', '.join(map(str, args.records))}")
    print("\n".join(table(rows)))


if __name__ == "__main__":
    main()
