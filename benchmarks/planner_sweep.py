"""Task success of MPPI settings over one world model: which planner settings keep it from exploiting the model.

    python benchmarks/planner_sweep.py slippery-slope --checkpoint runs/q_t25 --base quadruped-cpu \
        --grids 0.3 --trials 5 --variant prior0= --variant prior1=prior_weight=1 --variant bc=policy

Each `--variant NAME=K=V,K=V` overrides fields of the base MPPI preset (`NAME=policy` runs the BC head alone).
One JSON line per (variant, grid) goes to stdout and to `--out` (appended, so a killed sweep keeps its rows).
"""

from __future__ import annotations

import argparse
import logging

from records import emit

from simdist.config import parse_overrides, replace
from simdist.eval.rollout import rollout
from simdist.planning.agent import MPPIAgent, PolicyAgent
from simdist.planning.settings import MPPIConfig, mppi_preset
from simdist.tasks.registry import get_task
from simdist.training.checkpoint import load_model


def parse_variant(text: str, base: MPPIConfig) -> tuple[str, MPPIConfig | None]:
    name, _, spec = text.partition("=")
    if spec == "policy":
        return name, None
    try:
        return name, replace(base, **parse_overrides(MPPIConfig, [i for i in spec.split(",") if i]))
    except ValueError as e:
        raise SystemExit(str(e)) from None


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("task")
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--base", default="quadruped-cpu", help="MPPI preset the variants override")
    p.add_argument("--domain", default="sim")
    p.add_argument("--grids", default="all", help="comma-separated grid names, or all")
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--variant", action="append", required=True)
    p.add_argument("--out", default=None, help="JSON-lines file to append results to")
    args = p.parse_args()
    logging.basicConfig(level=logging.WARNING)
    task, model = get_task(args.task), load_model(args.checkpoint)
    grids = task.grids if args.grids == "all" else args.grids.split(",")
    base = mppi_preset(args.base)
    for text in args.variant:
        name, cfg = parse_variant(text, base)
        for grid in grids:
            agent = PolicyAgent(model) if cfg is None else MPPIAgent(model, cfg)
            env = task.make_env(args.domain, seed=args.seed)
            ics = task.initial_conditions(grid, args.trials, seed=args.seed)
            summary = rollout(task, env, agent, ics, seed=args.seed).summary(task.spec.control_period_s)
            row = {"variant": name, "spec": text, "grid": grid, "domain": args.domain,
                   "checkpoint": str(args.checkpoint), **summary}
            emit(row, args.out)


if __name__ == "__main__":
    main()
