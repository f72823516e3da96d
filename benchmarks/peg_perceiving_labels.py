"""Peg Insertion: `sim` demonstrations by the data's expert acting on what perception reports, for the BC head.

The head imitates an expert that reads exact poses, from observations whose peg and hole positions carry a bias and
noise; an MSE imitator then learns the expert's mean action given the observations, a filtered controller, and
filtered controllers stall about the bias's 2 mm off the hole in `real` (benchmarks/peg_perceiving_expert.py).
Here the same expert acts on the positions of one VIEW of perception (`bias`, `filtered`, `perceived`: see that
script), so its actions are a function of what the head sees. The episodes (the clean expert, no Alg. 2 noise,
training resets of the `sim` domain) are written as a `sim` dataset whose every step is flagged as the expert's, for
`simdist finetune --trainable policy` (benchmarks/peg_perceiving_labels.sh runs the whole chain).

    python benchmarks/peg_perceiving_labels.py --view perceived --episodes 300 --out runs/peg_labels_perceived
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
from collections import deque
from pathlib import Path

import numpy as np
from peg_perceiving_expert import FILTER_STEPS, VIEWS, perception_error, seen_error

from simdist.data.episodes import DatasetInfo, create_dataset, write_episodes
from simdist.eval.rollout import rollout
from simdist.tasks.peg_insertion.layout import PRIVILEGED
from simdist.tasks.registry import get_task

SEED_OFFSET = 370_000  # reset seeds apart from every evaluation's


class PerceivingExpert:
    """The task's expert, its peg and hole positions replaced by one view of the perception estimates."""

    def __init__(self, task, env, view: str, seed: int):
        self.expert, self.env, self.view = task.expert(), env, view
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        self.expert.reset(self.rng)
        self.errors: deque = deque(maxlen=FILTER_STEPS)

    def act(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        privileged = self.env.oracle_privileged_state()
        self.errors.append(perception_error(privileged, obs["proprio"]))
        error = seen_error(self.view, self.errors, self.env.perception_bias)
        seen = privileged.copy()
        seen[PRIVILEGED.slice("peg_pos")] += error[0]
        seen[PRIVILEGED.slice("hole_pos")] += error[1]
        return np.asarray(self.expert.act(seen), np.float32)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--view", required=True, choices=VIEWS, help="exact: the data's own labeller (the control)")
    p.add_argument("--episodes", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True, type=Path)
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    task = get_task("peg-insertion")
    spec, seed = task.spec, SEED_OFFSET + args.seed
    env = task.make_env("sim", seed=seed)
    res = rollout(task, env, PerceivingExpert(task, env, args.view, seed), [None] * args.episodes, seed=seed,
                  progress=True, source=f"expert_{args.view}")
    create_dataset(args.out, DatasetInfo(
        task=spec.name, domain="sim", control_period_s=spec.control_period_s, obs_shapes=spec.obs_shapes,
        action_dim=spec.action_dim, command_dim=spec.command_dim, action_low=spec.action_low,
        action_high=spec.action_high,
        notes=f"the clean expert acting on the {args.view} view of perception (benchmarks/peg_perceiving_labels.py)"))
    for i, ep in enumerate(res.episodes):
        write_episodes(args.out, [dataclasses.replace(ep, expert=np.ones(len(ep), bool))], name=f"{args.view}_{i:04d}")
    success = float(np.mean([ep.success for ep in res.episodes]))
    print(json.dumps({"view": args.view, "episodes": len(res.episodes), "steps": sum(map(len, res.episodes)),
                      "success": success, "out": str(args.out)}))


if __name__ == "__main__":
    main()
