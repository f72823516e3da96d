"""Which part of Peg's sim-to-real gap costs the SimDist planner: `real` with one group of effects put back to sim.

    python benchmarks/peg_real_gaps_planner.py --checkpoint checkpoints/peg-insertion --seeds 0 1 \
        --out benchmarks/results/peg_real_gaps_planner.jsonl [--variants perception arm]

The expert's version of this ablation (`python -m simdist.tasks.peg_insertion.measure real-gaps`) cannot see the
perception effects, since it acts on true state; the world-model planner acts on observations, so here they are a
group of their own. Why it matters: Alg. 1 finetunes the dynamics only (encoder frozen), so it can close the arm and
contact gaps but not a per-episode perception bias, which no amount of real data predicts. Groups put back to the
`sim` range midpoint (docs/tasks/peg-insertion.md lists every field):

- perception: position noise and per-episode bias, yaw noise
- arm: joint stiffness and damping, arm mass, gravity compensation, actuation latency
- contact: peg-hole / finger / table friction, peg mass, grip force, pad compliance
- sim: all three (the `real` episode machinery with `sim`'s nominal physics: the planner's ceiling here)

One JSON line per (variant, seed) to stdout and, appended, to `--out`; the same initial conditions for every variant.
"""

from __future__ import annotations

import argparse
import logging
import time

from records import emit

from simdist.eval.rollout import rollout
from simdist.planning.agent import MPPIAgent
from simdist.planning.settings import mppi_preset
from simdist.tasks.gaps import ALL, WITH_SIM, gap_groups, reverted_fields
from simdist.tasks.registry import get_task
from simdist.training.checkpoint import load_model

TASK = get_task("peg-insertion")
# variant -> the gap groups it puts back to sim: perception, arm, contact (PegPhysics's GAP_GROUPS) one at a time
VARIANTS = {"real": [], **{g: [g] for g in gap_groups(TASK) if g != ALL}, "sim": [ALL]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--mppi", default="manipulation-prior")
    p.add_argument("--grid", default="narrow")
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--seeds", type=int, nargs="+", default=[0])
    p.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    p.add_argument("--out", default=None, help="JSON-lines file to append the rows to")
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    task = TASK
    agent = MPPIAgent(load_model(args.checkpoint), mppi_preset(args.mppi))
    for variant in args.variants:
        for seed in args.seeds:
            start = time.perf_counter()
            env = task.make_env("real", {WITH_SIM: VARIANTS[variant]}, seed=seed)
            res = rollout(task, env, agent, task.initial_conditions(args.grid, args.trials, seed=seed), seed=seed)
            emit({"benchmark": "peg_real_gaps_planner", "variant": variant,
                  "reverted": list(reverted_fields(task, VARIANTS[variant])),
                  "checkpoint": args.checkpoint, "mppi": args.mppi, "grid": args.grid, "seed": seed,
                  **res.summary(task.spec.control_period_s), "wall_s": round(time.perf_counter() - start, 1)},
                 args.out)


if __name__ == "__main__":
    main()
