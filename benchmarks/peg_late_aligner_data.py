"""Peg Insertion: episodes in which the expert takes over a misaligned peg near the hole, as BC data.

    python benchmarks/peg_late_aligner_data.py --episodes 400 --seed 40 --out runs/peg_late_aligner

`benchmarks/peg_aim_probe.py` finds that in the clean expert's episodes the held peg reaches the hole already aligned
to well under the perception noise, so there the expert's moves cannot be predicted from what the robot perceives, and
a head that fits them learns to ignore the perceived offset. These episodes cover the states the heads reach instead.
Each starts with the scripted expert aiming at a hole estimate off by 1.5-4 mm in a random direction (the `hole_bias`
degradation of Alg. 2's sub-optimal policies); once the held peg, carried to the hole, comes below a random height of
0.5-15 mm above the mouth while 1-10 mm off the axis, the exact expert takes over for the rest of the episode
(`--takeover-align-tolerance`: how close to the axis it pushes down rather than lifting to re-align; the expert's own
is 0.5 mm). Only its steps are flagged expert (the BC targets); the biased steps stay in the episode as history and
dynamics data, as a sub-optimal policy's do. No noise windows. The dataset has Alg. 2's format (docs/data.md).
"""

from __future__ import annotations

import argparse
import logging
from dataclasses import replace

import numpy as np

from simdist.data.episodes import DatasetInfo, create_dataset, write_episodes
from simdist.data.generate import dataset_statistics, expert_only, generation_preset, run_episode
from simdist.progress import progress_bar
from simdist.tasks.peg_insertion.expert import ExpertTuning, ScriptedExpert
from simdist.tasks.peg_insertion.reward import PegState
from simdist.tasks.peg_insertion.task import PegInsertionTask

BIAS_RANGE_M = (0.0015, 0.004)
TAKEOVER_HEIGHT_RANGE_M = (0.0005, 0.015)
MIN_OFFSET_M, NEAR_M = 0.001, 0.01  # take over a peg this far off the hole axis
CARRIED_M = 0.5 * ExpertTuning().carry_clearance_m  # above the mouth: the expert travels only this high


class LateAligner:
    """The expert aiming at a biased hole until the held peg is low and off the axis; then the exact expert."""

    name = "late_aligner"

    def __init__(self, takeover: ExpertTuning = ExpertTuning()):
        self.exact = ScriptedExpert(takeover)
        self.biased = ScriptedExpert()
        self.took_over: list[bool] = []
        self.height = 0.0
        self.carried = False

    def reset(self, rng: np.random.Generator) -> None:
        angle, size = rng.uniform(0.0, 2 * np.pi), rng.uniform(*BIAS_RANGE_M)
        self.biased = ScriptedExpert(replace(ExpertTuning(), name="biased",
                                             hole_bias_m=(size * np.cos(angle), size * np.sin(angle))))
        self.exact.reset(rng)
        self.biased.reset(rng)
        self.height = rng.uniform(*TAKEOVER_HEIGHT_RANGE_M)
        self.took_over = []
        self.carried = False  # the peg starts below the mouth's height: take over only once it was carried

    def act(self, privileged: np.ndarray) -> np.ndarray:
        s = PegState.from_privileged(privileged)
        exact = self.exact.act(privileged)  # every step, so its stall counter follows the episode
        biased = self.biased.act(privileged)
        above = s.peg_bottom_z - s.hole_pos[2]
        self.carried = self.carried or (s.grasped and above >= CARRIED_M)
        near = MIN_OFFSET_M < s.lateral_to_hole < NEAR_M
        taking_over = self.carried and s.grasped and near and above < self.height
        self.took_over.append(bool(taking_over or (self.took_over and self.took_over[-1])))
        return exact if self.took_over[-1] else biased


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--episodes", type=int, default=400)
    p.add_argument("--seed", type=int, default=40)
    p.add_argument("--out", required=True)
    p.add_argument("--takeover-align-tolerance", type=float, default=ExpertTuning().align_tolerance_m,
                   help="m: the taking-over expert inserts (pushes down, correcting xy) once this close to the axis, "
                        "and lifts to re-align from further off")
    args = p.parse_args()
    task = PegInsertionTask()
    spec = task.spec
    cfg = expert_only(generation_preset("manipulation"))  # no noise windows
    create_dataset(args.out, DatasetInfo(task=spec.name, domain="sim", control_period_s=spec.control_period_s,
                                         obs_shapes=spec.obs_shapes, action_dim=spec.action_dim,
                                         command_dim=spec.command_dim, action_low=spec.action_low,
                                         action_high=spec.action_high,
                                         notes="late-aligner episodes (benchmarks/peg_late_aligner_data.py)"))
    rng = np.random.default_rng(args.seed)
    env, critic = task.make_env("sim", None, seed=args.seed), task.critic()
    policy = LateAligner(replace(ExpertTuning(), align_tolerance_m=args.takeover_align_tolerance))
    buffer = []
    for i in progress_bar(range(args.episodes), desc="late-aligner episodes"):
        episode = run_episode(task, env, policy, True, critic, cfg, rng)
        episode.expert = np.asarray(policy.took_over[:len(episode)], bool)  # the exact expert's steps only
        buffer.append(episode)
        if len(buffer) == cfg.episodes_per_file or i == args.episodes - 1:
            write_episodes(args.out, buffer, name=f"late_s{args.seed}_{i // cfg.episodes_per_file:05d}")
            buffer = []
    stats = dataset_statistics(args.out)
    took_over = stats["expert_action_share"]
    logging.info("%d episodes, %d steps, success %.2f, expert (taken-over) share %.3f", stats["episodes"],
                 stats["steps"], stats["success_rate"], took_over)


if __name__ == "__main__":
    main()
