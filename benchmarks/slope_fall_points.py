"""Where and when a Slippery Slope agent falls: per trial at one speed, the outcome, the time and the course x
(m past the first panel's foot, i.e. progress + START_X) at the end of the episode.

    python benchmarks/slope_fall_points.py --checkpoint checkpoints/quadruped-lowfric-history \
        --physics benchmarks/physics/slope_real_mu0.19.json --speed 0.1 --seeds 0 1 [--agent mppi]

Prints one JSON line per trial (session 16: docs/results/slippery-slope.md).
"""

from __future__ import annotations

import argparse
import json

from simdist.config import replace
from simdist.eval.rollout import rollout
from simdist.planning.agent import MPPIAgent, PolicyAgent
from simdist.planning.settings import mppi_preset
from simdist.tasks.quadruped.scenes import START_X
from simdist.tasks.registry import get_task
from simdist.training.checkpoint import load_model


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--physics")
    ap.add_argument("--domain", default="real")
    ap.add_argument("--speed", default="0.1")
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--agent", default="policy", choices=("policy", "mppi"))
    ap.add_argument("--prior-weight", type=float, default=10.0)
    args = ap.parse_args()
    task, model = get_task("slippery-slope"), load_model(args.checkpoint)
    agent = (PolicyAgent(model) if args.agent == "policy"
             else MPPIAgent(model, replace(mppi_preset("quadruped-cpu"), prior_weight=args.prior_weight)))
    for seed in args.seeds:  # the same environments and initial conditions as `simdist evaluate --seed`
        env = task.make_env(args.domain, args.physics, seed=seed)
        res = rollout(task, env, agent, task.initial_conditions(args.speed, args.trials, seed=seed), seed=seed)
        for m in res.metrics:
            print(json.dumps({"seed": seed, "success": m["success"], "fell": m["fell"], "time_s": m["time_s"],
                              "x_m": round(m["progress_m"] + START_X, 3)}))


if __name__ == "__main__":
    main()
