"""Session 24 probe: is the slow (0.2 m/s) Foam walk of `quadruped-foam-dagger`'s head fragile to any small change
of its actions, or only to the ones the planner picks? MPPI at λ = 10 executes the head's action plus the weighted
mean of its second iteration's elites (about 0.02 rad off the head's, benchmarks/foam_planner_slow_walk.sh). Here the
head alone acts with i.i.d. Gaussian noise of NOISE standard deviations of the dataset's action (normalised units) added
to each action, one eval seed × TRIALS trials on GRID (default 3 speeds) in `real`, appended to
benchmarks/results/foam_planner_slow_walk.jsonl (agent "policy+noise").

    python benchmarks/foam_head_action_noise.py --noise 0.05 --seed 0
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch

from simdist.eval.rollout import evaluate_grids
from simdist.model.world_model import ACTION
from simdist.planning.agent import PolicyAgent
from simdist.tasks import get_task
from simdist.training.checkpoint import load_model

RECORD = Path(__file__).parent / "results" / "foam_planner_slow_walk.jsonl"


class NoisyHead(PolicyAgent):
    """The BC head's action plus i.i.d. Gaussian noise in normalised action units."""

    def __init__(self, model, noise: float, seed: int):
        super().__init__(model)
        self.noise, self.rng = noise, np.random.default_rng(seed)

    def bc_action(self, obs):
        norm = self.model.normalizer
        a = norm.normalize(ACTION, torch.as_tensor(super().bc_action(obs)))
        a = a + self.noise * torch.as_tensor(self.rng.standard_normal(a.shape[-1]), dtype=a.dtype)
        return norm.denormalize(ACTION, a).numpy()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--checkpoint", default="checkpoints/quadruped-foam-dagger")
    p.add_argument("--noise", type=float, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--grid", default="all", help="one speed (0.2, 0.7, 1.2) or all")
    p.add_argument("--trials", type=int, default=5)
    args = p.parse_args()
    torch.set_num_threads(1)
    task, model = get_task("foam"), load_model(args.checkpoint)
    agent = NoisyHead(model, args.noise, args.seed)
    with torch.no_grad():
        grids = task.grids if args.grid == "all" else (args.grid,)
        out = evaluate_grids(task, lambda env: agent, "real", grids, args.trials, seed=args.seed)
    out.update(model=Path(args.checkpoint).name, agent="policy+noise", noise=args.noise, seed=args.seed,
               command=f"python benchmarks/foam_head_action_noise.py --noise {args.noise} --seed {args.seed} "
                       f"--grid {args.grid} --trials {args.trials}")
    with RECORD.open("a") as f:
        f.write(json.dumps(out) + "\n")
    print(json.dumps({g: v["success_rate"] for g, v in out["grids"].items()}))


if __name__ == "__main__":
    main()
