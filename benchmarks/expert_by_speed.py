"""The privileged expert on true state, per evaluation grid (the quadruped's commanded speed): the ceiling any policy
distilled from its simulation data starts under. One JSON line to stdout (and appended to --out).

    python benchmarks/expert_by_speed.py foam --domain real [--physics FILE] --trials 5 --seeds 0 1 2
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import numpy as np
from records import emit

from simdist.adaptation.adapt import round_initial_conditions
from simdist.eval.rollout import PrivilegedAgent, rollout
from simdist.tasks import get_task


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("task")
    p.add_argument("--domain", default="real")
    p.add_argument("--physics", default=None)
    p.add_argument("--trials", type=int, default=5, help="per grid")
    p.add_argument("--seeds", type=int, nargs="+", default=[0])
    p.add_argument("--out", default=None)
    args = p.parse_args()
    task = get_task(args.task)
    by_grid: dict[str, list[float]] = defaultdict(list)
    fell: dict[str, list[float]] = defaultdict(list)
    for seed in args.seeds:
        env = task.make_env(args.domain, args.physics, seed=seed)
        ics, grids = round_initial_conditions(task, "all", args.trials * len(task.grids), seed=seed)
        res = rollout(task, env, PrivilegedAgent(task.expert(), env, seed=seed), ics, seed=seed, source="expert")
        for g, m in zip(grids, res.metrics):
            by_grid[g].append(float(m.get("success", 0.0)))
            fell[g].append(float(m.get("fell", 0.0)))
    emit({"task": args.task, "domain": args.domain, "physics": args.physics, "seeds": args.seeds,
          "agent": "privileged expert", "success_rate": float(np.mean(sum(by_grid.values(), []))),
          "by_grid": {g: {"success_rate": float(np.mean(v)), "fell": float(np.mean(fell[g])), "trials": len(v)}
                      for g, v in by_grid.items()}}, args.out)


if __name__ == "__main__":
    main()
