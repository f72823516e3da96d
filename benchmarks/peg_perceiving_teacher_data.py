"""Peg Insertion: Alg. 2 data whose teacher acts on what the robot perceives, for pretraining a model from scratch.

The shipped data's teacher reads exact poses and aligns to 0.5 mm, below the perception noise, so near the hole its
actions are unpredictable from the observations and the BC head learns to ignore the perceived offset
(docs/results/peg-insertion.md, session 40). Here the expert and every sub-optimal policy of the ladder act on the
peg and hole positions one observation reports (the `perceived` view of benchmarks/peg_perceiving_expert.py), with
the compliant, millimetre-tolerant tuning that inserts best from single observations in `sim` (fine gain 0.4,
alignment tolerance 1 mm: 0.75 of 40 `sim` Narrow trials, session 37), so every action is a function of what the
model sees. Everything else is `simdist generate`'s (the same generator, given these policies): the generation
preset's noise windows and expert share, the training resets of the `sim` domain, the expert critic's value (fitted
to the exact-pose expert, so optimistic for this one), the episode files, `stats.json` and the dataset's layout.
`--perceive held` keeps the exact pick and perceives only the peg-to-hole offset once the peg is held. What models
trained on either learn: docs/results/peg-insertion.md, session 41.

    python benchmarks/peg_perceiving_teacher_data.py --episodes 10000 --workers 2 [--perceive held] \
        --out runs/peg_teacher_data
    python benchmarks/peg_perceiving_teacher_data.py --teacher-trials 40 [--perceive held]  # the teacher alone
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
from dataclasses import asdict, fields, replace
from pathlib import Path

import numpy as np

from simdist.config import parse_overrides
from simdist.data.generate import generate
from simdist.tasks import get_task
from simdist.tasks.peg_insertion.expert import ExpertTuning, ScriptedExpert, suboptimal_tunings
from simdist.tasks.peg_insertion.layout import PRIVILEGED, PROPRIO
from simdist.tasks.peg_insertion.reward import PegState

TEACHER = ExpertTuning(name="perceiving_expert", fine_gain=0.4, align_tolerance_m=0.001)


class ObservationTap:
    """The environment, remembering its latest observation for the policies that act on it."""

    def __init__(self, env):
        self.env, self.obs = env, None

    def reset(self, **kwargs):
        self.obs, info = self.env.reset(**kwargs)
        return self.obs, info

    def step(self, action):
        out = self.env.step(action)
        self.obs = out[0]
        return out


class PerceivingPolicy:
    """A scripted policy acting on perceived positions. `always`: the peg and hole positions are the latest
    observation's estimates in every phase. `held`: exact poses until the peg is held (its grasp and its own
    held-or-not test need millimetres that perception blurs), then the exact peg and the hole displaced by the
    perception error of the peg-to-hole offset, so the carry and insertion act on the perceived offset."""

    def __init__(self, tuning: ExpertTuning, tap: ObservationTap, perceive: str = "always"):
        self.policy, self.tap, self.name, self.perceive = ScriptedExpert(tuning), tap, tuning.name, perceive

    def reset(self, rng: np.random.Generator) -> None:
        self.policy.reset(rng)

    def act(self, privileged: np.ndarray) -> np.ndarray:
        seen, proprio = privileged.copy(), self.tap.obs["proprio"]
        peg, hole = PRIVILEGED.slice("peg_pos"), PRIVILEGED.slice("hole_pos")
        peg_est, hole_est = PROPRIO.get(proprio, "peg_pos_est"), PROPRIO.get(proprio, "hole_pos_est")
        if self.perceive == "always":
            seen[peg], seen[hole] = peg_est, hole_est
        elif PegState.from_privileged(privileged).grasped:
            seen[hole] = privileged[peg] + (hole_est - peg_est)
        return self.policy.act(seen)


def ladder(teacher: ExpertTuning) -> list[ExpertTuning]:
    """The task's sub-optimal ladder, each rung's degradation applied to the teacher instead of the exact expert."""
    base = ExpertTuning()
    rungs = []
    for rung in suboptimal_tunings():
        changed = {f.name: getattr(rung, f.name) for f in fields(rung)
                   if getattr(rung, f.name) != getattr(base, f.name)}
        rungs.append(replace(teacher, **changed))
    return rungs


def perceiving_setup(task, env, teacher: ExpertTuning, perceive: str):
    """`simdist.data.generate`'s setup hook: the teacher and its ladder, acting on what the environment perceives."""
    tap = ObservationTap(env)
    return tap, PerceivingPolicy(teacher, tap, perceive), [PerceivingPolicy(t, tap, perceive) for t in ladder(teacher)]


def teacher_success(teacher: ExpertTuning, perceive: str, domain: str, trials: int) -> float:
    """The clean teacher (no noise windows) on the first `trials` Narrow evaluation conditions of `domain`."""
    task = get_task("peg-insertion")
    tap = ObservationTap(task.make_env(domain, seed=0))
    policy, seated = PerceivingPolicy(teacher, tap, perceive), []
    for i, ic in enumerate(task.initial_conditions("narrow", trials, seed=0)):
        policy.reset(np.random.default_rng([0, i]))
        tap.reset(seed=i, options={"initial_condition": ic})
        done, info = False, {}
        while not done:
            _, _, terminated, truncated, info = tap.step(policy.act(tap.env.oracle_privileged_state()))
            done = terminated or truncated
        seated.append(bool(info["success"]))
    return float(np.mean(seated))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--episodes", type=int, default=10_000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--teacher-set", action="append", default=[], metavar="FIELD=VALUE",
                   help="override an ExpertTuning field of the teacher (repeatable)")
    p.add_argument("--perceive", choices=("always", "held"), default="always",
                   help="perceived positions in every phase, or only the peg-to-hole offset once the peg is held")
    p.add_argument("--out", type=Path, help="the dataset to write (required unless --teacher-trials)")
    p.add_argument("--teacher-trials", type=int, metavar="N",
                   help="instead of generating, print the clean teacher's success on N Narrow trials per domain")
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    teacher = replace(TEACHER, **parse_overrides(ExpertTuning, args.teacher_set))
    if args.teacher_trials:
        print(json.dumps({"teacher_perceives": args.perceive, "teacher_set": args.teacher_set, "grid": "narrow",
                          "trials": args.teacher_trials, **{f"{domain}_success": teacher_success(
                              teacher, args.perceive, domain, args.teacher_trials) for domain in ("sim", "real")}}))
        return
    if args.out is None:
        p.error("--out is required to generate data")
    stats = generate(get_task("peg-insertion"), args.out, args.episodes, workers=args.workers, seed=args.seed,
                     setup=functools.partial(perceiving_setup, teacher=teacher, perceive=args.perceive),
                     notes=f"; every policy acts on perceived positions ({args.perceive}); teacher {asdict(teacher)} "
                           "(benchmarks/peg_perceiving_teacher_data.py)")
    print(json.dumps({k: stats[k] for k in ("episodes", "steps", "expert_action_share", "success_rate", "wall_s")}))


if __name__ == "__main__":
    main()
