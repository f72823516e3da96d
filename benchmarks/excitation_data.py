"""Real "system identification" episodes: the frozen BC head acting in `real` with Alg. 2's noise windows.

    python benchmarks/excitation_data.py peg-insertion --checkpoint runs/peg46/pm35k --episodes 20 --grid narrow \
        --out runs/peg_excitation
    simdist adapt peg-insertion … --initial-data runs/peg_excitation      # finetune on them first (Alg. 1, line 1)

Why: the planner's own real episodes stay next to the BC chunk, so they say little about how *other* actions move
the real arm, which is what MPPI's choice depends on (docs/results.md, Peg Insertion, session 8). The noise windows
(the `manipulation` generation preset: on 1-5 steps, off 5-10, σ ~ U[0.05, 0.5] per dimension) excite that
response. The episodes are ordinary real data (robot minutes count); initial conditions are disjoint from the
evaluation ones.
"""

from __future__ import annotations

import argparse
import logging

import numpy as np

from simdist.adaptation.adapt import round_initial_conditions
from simdist.adaptation.demonstrations import DEMO_SEED_OFFSET, write_real_episodes
from simdist.data.generate import NoiseWindows, generation_preset
from simdist.eval.rollout import rollout
from simdist.planning.agent import PolicyAgent
from simdist.tasks import get_task
from simdist.training.checkpoint import check_fits_task, load_model

SEED_OFFSET = 2 * DEMO_SEED_OFFSET  # disjoint from evaluation and demonstration initial conditions


class ExcitedPolicyAgent(PolicyAgent):
    """The BC head's first action plus Gaussian noise inside Alg. 2's on/off windows; the history records the
    executed (noised) action, as on the robot."""

    def __init__(self, model, seed: int):
        super().__init__(model)
        self.rng = np.random.default_rng(seed)
        self.cfg = generation_preset("manipulation")

    def reset(self) -> None:
        super().reset()
        self.noise = NoiseWindows(self.cfg, self.model.spec.action_dim, self.rng)

    def act(self, obs):
        action = self.bc_action(obs)
        if self.noise.step():
            action = action + self.rng.normal(0.0, self.noise.std)
        return self.execute(obs, action)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("task")
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--episodes", type=int, default=20)
    p.add_argument("--grid", default="default")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    task = get_task(args.task)
    check_fits_task(args.checkpoint, task)
    model = load_model(args.checkpoint)
    seed = args.seed + SEED_OFFSET
    ics, _ = round_initial_conditions(task, args.grid, args.episodes, seed=seed)
    res = rollout(task, task.make_env("real", seed=seed), ExcitedPolicyAgent(model, seed), ics, seed=seed,
                  progress=True, source="excitation")
    write_real_episodes(args.out, task, res.episodes, "excite", "BC head with Alg. 2 noise windows in real")
    minutes = sum(len(e) for e in res.episodes) * task.spec.control_period_s / 60
    logging.info("%d excitation episodes, %.1f robot minutes, success %.2f", len(res.episodes), minutes,
                 np.mean([e.success for e in res.episodes]))


if __name__ == "__main__":
    main()
