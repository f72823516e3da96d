"""Peg Insertion: does the world model succeed where perception happens to be accurate?

Runs a world-model agent (the BC head, or the planner) on `sim` trials, records each episode's relative perception
bias (peg minus hole, horizontal), and runs the privileged expert seeing that bias (benchmarks/peg_perceiving_expert.py,
view `bias`) on the very same episodes. Prints success split at the median bias, for both, and how often they agree.

    python benchmarks/peg_bias_vs_success.py --checkpoint checkpoints/peg-insertion --trials 40 [--agent mppi]
"""

from __future__ import annotations

import argparse
import json
import logging

import numpy as np
from peg_perceiving_expert import CONTROLLERS, outcomes

from simdist.eval.rollout import episode_seed, rollout
from simdist.planning.agent import MPPIAgent, PolicyAgent
from simdist.planning.settings import task_planner
from simdist.tasks.peg_insertion.task import PegInsertionTask
from simdist.training.checkpoint import load_model

log = logging.getLogger(__name__)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", default="checkpoints/peg-insertion")
    parser.add_argument("--agent", choices=["policy", "mppi"], default="policy")
    parser.add_argument("--mppi", default="manipulation-prior")
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--grid", default="narrow")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    task = PegInsertionTask()
    ics = task.initial_conditions(args.grid, args.trials, seed=args.seed)
    model = load_model(args.checkpoint)
    agent = MPPIAgent(model, task_planner(task, args.mppi)) if args.agent == "mppi" else PolicyAgent(model)
    env = task.make_env("sim", seed=args.seed)
    bias_mm = []
    res = rollout(task, env, agent, ics, seed=args.seed, progress=True,
                  on_episode=lambda i, ep, m: bias_mm.append(1e3 * float(np.linalg.norm(
                      env.perception_bias[0, :2] - env.perception_bias[1, :2]))))
    model_seated = [bool(m["success"]) for m in res.metrics]
    reset_seeds = [episode_seed(args.seed, i) for i in range(len(ics))]
    expert_seated = outcomes(task, "sim", "bias", CONTROLLERS["expert"], ics, reset_seeds)
    small = np.asarray(bias_mm) <= np.median(bias_mm)
    row = {"agent": args.agent, "trials": len(ics), "grid": args.grid, "seed": args.seed,
           "median_relative_bias_mm": float(np.median(bias_mm)),
           "model_success_small_bias": float(np.mean(np.asarray(model_seated)[small])),
           "model_success_large_bias": float(np.mean(np.asarray(model_seated)[~small])),
           "expert_bias_view_success_small_bias": float(np.mean(np.asarray(expert_seated)[small])),
           "expert_bias_view_success_large_bias": float(np.mean(np.asarray(expert_seated)[~small])),
           "both_seated": int(np.sum(np.asarray(model_seated) & np.asarray(expert_seated))),
           "model_seated": int(sum(model_seated)), "expert_seated": int(sum(expert_seated)),
           "per_episode": [{"bias_mm": b, "model": m, "expert": e}
                           for b, m, e in zip(bias_mm, model_seated, expert_seated)]}
    print(json.dumps(row))


if __name__ == "__main__":
    main()
