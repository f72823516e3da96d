"""Peg Insertion: does a little lateral jitter let the BC head find the hole, as perception noise lets the expert?

The privileged expert and the teleoperator stand-in, fed single noisy observations, seat far more `real` trials than
on exact or bias-only state (benchmarks/peg_perceiving_expert.py: the per-step perception noise moves the peg
around the hole's mouth like a search). `--on action` adds zero-mean Gaussian noise of `--std` (action units: 1 =
4 cm of set-point per step) to the horizontal translation of each action the head executes; `--on estimates` adds
it (metres) to the peg and hole position estimates the head sees, the relative features recomputed from them, as
more perception noise would. Reports the success in `sim` and `real` (`simdist evaluate`'s protocol, same initial
conditions and seeds as `--agent policy`).

    python benchmarks/peg_head_dither.py --checkpoint checkpoints/peg-insertion --std 0 0.02 0.05 --trials 40 \
        --out benchmarks/results/peg_head_dither.jsonl
    python benchmarks/peg_head_dither.py --on estimates --std 0.001 0.002 --out benchmarks/results/peg_head_dither.jsonl
"""

from __future__ import annotations

import argparse
import logging

import numpy as np
from records import emit

from simdist.eval.rollout import evaluate_grids
from simdist.planning.agent import PolicyAgent
from simdist.tasks import get_task
from simdist.tasks.peg_insertion.layout import PROPRIO, relative_features
from simdist.training.checkpoint import load_model

HORIZONTAL = slice(0, 2)  # the x, y set-point translation of the UR5e tasks' actions


class DitheredPolicyAgent(PolicyAgent):
    """The BC head's first action, its horizontal translation jittered by N(0, std) every step; the history records
    the executed action, as on the robot."""

    def __init__(self, model, std: float, seed: int, on: str = "action"):
        super().__init__(model)
        self.std, self.on, self.rng = std, on, np.random.default_rng(seed)

    def act(self, obs):
        if self.on == "estimates":
            obs = {**obs, "proprio": noisier_estimates(obs["proprio"], self.std, self.rng)}
        action = self.bc_action(obs)
        if self.on == "action":
            action[HORIZONTAL] += self.rng.normal(0.0, self.std, 2)
        return self.execute(obs, action)


def noisier_estimates(proprio: np.ndarray, std: float, rng: np.random.Generator) -> np.ndarray:
    """The observation with N(0, std) more on the peg and hole position estimates, relative features to match."""
    out = proprio.copy()
    for name in ("peg_pos_est", "hole_pos_est"):
        out[PROPRIO.slice(name)] += rng.normal(0.0, std, 3).astype(out.dtype)
    get = lambda name: PROPRIO.get(out, name)  # noqa: E731
    for name, value in relative_features(get("tcp_pos"), get("peg_pos_est"), get("peg_yaw_est"),
                                         get("hole_pos_est"), get("hole_yaw_est")).items():
        out[PROPRIO.slice(name)] = value
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--checkpoint", default="checkpoints/peg-insertion")
    p.add_argument("--std", type=float, nargs="+", default=[0.0, 0.02, 0.05])
    p.add_argument("--on", choices=("action", "estimates"), default="action")
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
            agent = DitheredPolicyAgent(model, std, args.seed, args.on)
            res = evaluate_grids(task, lambda env: agent, domain, (args.grid,), args.trials, args.seed)
            emit({"checkpoint": args.checkpoint, "on": args.on, "std": std, "domain": domain, "grid": args.grid,
                  "trials": args.trials, "seed": args.seed, "success": res["success_rate"],
                  "success_ci95": res["success_ci95"]}, args.out)


if __name__ == "__main__":
    main()
