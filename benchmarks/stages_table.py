"""A markdown table over `manipulation_stages.py` records: episodes pooled over evaluation seeds per (checkpoint,
domain, agent, grid, overrides), counting how many got through each stage.

    python benchmarks/stages_table.py benchmarks/results/table_leg_stages.jsonl [--checkpoint tl_noact_200k]

Columns: pooled trials and seeds, mean reach (in [0, 1]), then episodes that held the part (grasp), lifted it out
of its fixture (LIFTED), brought it within 2 mm of the hole axis while holding it, got it into the lead-in (insert > 0),
engaged the thread (thread > 0; Table Leg only, "–" elsewhere) and succeeded. The grasp test wants the part
centred between the pads, so a part carried in an off-centre grip and set into the lead-in counts as lifted (the lift
term is 1.0 in the lead-in) and not as grasped: on Table Leg lift can exceed grasp.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from records import load_records, records_parser

OVER_HOLE_MM = 2.0  # within the lead-in's reach: Table Leg's thread catches within 1.5 mm of the axis
# The lift term at which the part is clear of where it started (1.0 once in the hole). Peg: it saturates at a 60 mm
# peg bottom, 0.9 is above the 40 mm fixture. Table Leg: it rises from the rack's top face to 3 cm above it, higher
# than the leg needs carrying (held carries read 0.3–0.5), and any lift has the stud out of the rack's hole.
LIFTED = {"peg-insertion": 0.9, "table-leg": 0.05}


def stage_counts(episodes: list[dict], task: str) -> dict[str, int | None]:
    def near(e: dict) -> bool:
        return e["closest_held"] is not None and e["closest_held"]["lateral_mm"] < OVER_HOLE_MM

    return {"grasp": sum(e["grasp"] >= 1.0 for e in episodes),
            "lift": sum(e["lift"] >= LIFTED[task] for e in episodes),
            "over hole": sum(near(e) for e in episodes), "insert": sum(e["insert"] > 0 for e in episodes),
            "thread": sum(e["thread"] > 0 for e in episodes) if "thread" in episodes[0] else None,
            "success": sum(e["success"] for e in episodes)}


def table(rows: list[dict]) -> list[str]:
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        world = r["domain"] + (f" + {Path(r['physics']).stem}" if r.get("physics") else "")
        groups[(r["task"], r["checkpoint"], world, r["agent"], r["grid"], " ".join(r.get("set", [])))].append(r)
    header = ["checkpoint", "domain", "agent", "grid", "trials (seeds)", "reach", "grasp", "lift", "over hole",
              "insert", "thread", "success"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for (task, ckpt, domain, agent, grid, overrides), rs in sorted(groups.items()):
        episodes = [e for r in rs for e in r["episodes"]]
        seeds = sorted({r.get("seed", 0) for r in rs})
        n = len(episodes)
        reach = sum(e["reach"] for e in episodes) / n
        counts = " | ".join("–" if c is None else f"{c} / {n}" for c in stage_counts(episodes, task).values())
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
