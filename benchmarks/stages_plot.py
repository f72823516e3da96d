"""How far a manipulation agent gets through the task's stages as its pretraining goes on: the share of episodes
that reached each stage (`stages_table.py`'s counts) against the checkpoint's step, one panel per domain, with 95 %
Wilson intervals on the success line.

    python benchmarks/stages_plot.py benchmarks/results/table_leg_stages.jsonl --checkpoint tl_noact_200k \
        --out docs/img/table_leg_200k_stages.png

Checkpoints are the `step_NNNNNN` folders that `--set train.keep_checkpoints=true` keeps; rows of other agents
than `--agent` (default: the BC head alone) and rows evaluated with a `--physics` override are left out.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from records import load_records, records_parser  # noqa: E402
from stages_table import stage_counts  # noqa: E402

from simdist.eval.rollout import wilson_interval  # noqa: E402

STEP = re.compile(r"step_(\d+)$")
STAGES = ("grasp", "lift", "over hole", "insert", "thread", "success")


def curves(rows: list[dict], agent: str) -> dict[str, dict[int, dict]]:
    """domain -> step -> {stage: count, "n": episodes}, episodes pooled over evaluation seeds."""
    pooled: dict[tuple[str, int], list[dict]] = defaultdict(list)
    task = {}
    for r in rows:
        match = STEP.search(r["checkpoint"].rstrip("/"))
        if match and r["agent"] == agent and not r.get("physics"):  # overridden worlds are other curves
            pooled[(r["domain"], int(match.group(1)))] += r["episodes"]
            task[r["domain"]] = r["task"]
    out: dict[str, dict[int, dict]] = defaultdict(dict)
    for (domain, step), episodes in sorted(pooled.items()):
        out[domain][step] = {**stage_counts(episodes, task[domain]), "n": len(episodes)}
    return out


def plot(by_domain: dict[str, dict[int, dict]], title: str, out: Path) -> None:
    fig, axes = plt.subplots(1, len(by_domain), figsize=(5.5 * len(by_domain), 4), sharey=True, squeeze=False)
    for ax, (domain, by_step) in zip(axes[0], sorted(by_domain.items(), reverse=True)):
        steps = sorted(by_step)
        for stage in STAGES:
            if by_step[steps[0]][stage] is None:
                continue
            share = [by_step[s][stage] / by_step[s]["n"] for s in steps]
            ax.plot([s / 1e3 for s in steps], share, marker="o", ms=3, label=stage, lw=2.5 if stage == "success" else 1)
        low, high = zip(*(wilson_interval(by_step[s]["success"], by_step[s]["n"]) for s in steps))
        ax.fill_between([s / 1e3 for s in steps], low, high, alpha=0.15, color="C5")
        ax.set_title(domain)
        ax.set_xlabel("pretraining step (thousands)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("share of episodes reaching the stage")
    axes[0][0].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)


def main() -> None:
    ap = records_parser(__doc__)
    ap.add_argument("--checkpoint", required=True, help="rows whose checkpoint path contains this (one run)")
    ap.add_argument("--agent", default="policy", help="policy (the BC head) or the MPPI preset's name")
    ap.add_argument("--out", type=Path, required=True, help="the PNG to write")
    args = ap.parse_args()
    rows = [r for r in load_records(args.records) if args.checkpoint in r["checkpoint"]]
    by_domain = curves(rows, args.agent)
    if not by_domain:
        raise SystemExit(f"no step_NNNNNN records of agent {args.agent!r} for {args.checkpoint!r} in "
                         f"{', '.join(map(str, args.records))}")
    plot(by_domain, f"{args.checkpoint}: {args.agent}, Narrow grid", args.out)


if __name__ == "__main__":
    main()
