"""Peg Insertion: does a little lateral jitter let the BC head find the hole, as perception noise lets the expert?

The privileged expert and the teleoperator stand-in, fed single noisy observations, seat far more `real` trials than
on exact or bias-only state (benchmarks/peg_perceiving_expert.py: the per-step perception noise moves the peg
around the hole's mouth like a search). This adds zero-mean Gaussian noise of `--std` (action units: 1 = 4 cm of
set-point per step) to the horizontal translation of each action the head executes, and reports the success in
`sim` and `real` (`simdist evaluate`'s protocol, same initial conditions and seeds as `--agent policy`).

    python benchmarks/peg_head_dither.py --checkpoint checkpoints/peg-insertion --std 0 0.02 0.05 --trials 40 \
        --out benchmarks/results/peg_head_dither.jsonl
"""

from __future__ import annotations

import argparse
import logging

import numpy as np
from records import emit

from simdist.checkpoint import load_model
from simdist.eval.rollout import evaluate_grids
from simdist.planning.agent import PolicyAgent
from simdist.tasks import get_task

HORIZONTAL = slice(0, 2)  # the x, y set-point translation of the UR5e tasks' actions


class DitheredPolicyAgent(PolicyAgent):
    """The BC head's first action, its horizontal translation jittered by N(0, std) every step; the history records
    the executed action, as on the robot."""

    def __init__(self, model, std: float, seed: int):
        super().__init__(model)
        self.std, self.rng = std, np.random.default_rng(seed)

    def act(self, obs):
        action = self.bc_action(obs)
        action[HORIZONTAL] += self.rng.normal(0.0, self.std, 2)
        return self.execute(obs, action)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--checkpoint", default="checkpoints/peg-insertion")
    p.add_argument("--std", type=float, nargs="+", default=[0.0, 0.02, 0.05])
    p.add_argument("--domains", nargs="+", default=["real", "sim"])
    p.add_argument("--grid", default="narrow")
    p.add_argument("--trials", type=int, default=40)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out")
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    task, model = get_task("peg-insertion"), load_model(args.checkpoint)
    for std in args.std:
        for domain in args.domains:
            res = evaluate_grids(task, lambda env: DitheredPolicyAgent(model, std, args.seed), domain, (args.grid,),
                                 args.trials, args.seed)
            emit({"checkpoint": args.checkpoint, "std": std, "domain": domain, "grid": args.grid,
                  "trials": args.trials, "seed": args.seed, "success": res["success_rate"],
                  "success_ci95": res["success_ci95"]}, args.out)


if __name__ == "__main__":
    main()
