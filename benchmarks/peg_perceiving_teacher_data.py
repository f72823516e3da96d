"""Peg Insertion: Alg. 2 data whose teacher acts on what the robot perceives, for pretraining a model from scratch.

The shipped data's teacher reads exact poses and aligns to 0.5 mm, below the perception noise, so near the hole its
actions are unpredictable from the observations and the BC head learns to ignore the perceived offset
(docs/results/peg-insertion.md, session 40). Here the expert and every sub-optimal policy of the ladder act on the
peg and hole positions one observation reports (the `perceived` view of benchmarks/peg_perceiving_expert.py), with
the compliant, millimetre-tolerant tuning that inserts best from single observations in `sim` (fine gain 0.4,
alignment tolerance 1 mm: 0.75 of 40 `sim` Narrow trials, session 37), so every action is a function of what the
model sees. Everything else is `simdist generate`'s: the generation preset's noise windows and expert share, the
training resets of the `sim` domain, the expert critic's value (fitted to the exact-pose expert, so optimistic
for this one). Episode files, `stats.json` and the dataset's documented layout are as `simdist generate` writes them.
`--perceive held` keeps the exact pick and perceives only the peg-to-hole offset once the peg is held. What models
trained on either learn: docs/results/peg-insertion.md, session 41.

    python benchmarks/peg_perceiving_teacher_data.py --episodes 10000 --workers 2 [--perceive held] \
        --out runs/peg_teacher_data
    python benchmarks/peg_perceiving_teacher_data.py --teacher-trials 40 [--perceive held]  # the teacher alone
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing as mp
import time
from dataclasses import asdict, fields, replace
from pathlib import Path

import numpy as np

from simdist.config import parse_overrides
from simdist.data.episodes import DatasetInfo, create_dataset, write_episodes
from simdist.data.generate import dataset_statistics, generation_preset, run_episode
from simdist.tasks import get_task
from simdist.tasks.peg_insertion.expert import ExpertTuning, ScriptedExpert, suboptimal_tunings
from simdist.tasks.peg_insertion.layout import PRIVILEGED, PROPRIO
from simdist.tasks.peg_insertion.reward import PegState

log = logging.getLogger(__name__)
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


def worker(out: str, episodes: int, seed: int, index: int, teacher: ExpertTuning, perceive: str) -> None:
    import torch

    torch.set_num_threads(1)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    task = get_task("peg-insertion")
    cfg = generation_preset("manipulation")
    rng = np.random.default_rng([seed, index])
    tap = ObservationTap(task.make_env("sim", seed=seed * 1000 + index))
    expert = PerceivingPolicy(teacher, tap, perceive)
    others = [PerceivingPolicy(t, tap, perceive) for t in ladder(teacher)]
    critic, buffer, start = task.critic(), [], time.perf_counter()
    for i in range(episodes):
        use_expert = rng.random() < cfg.expert_prob
        policy = expert if use_expert else others[int(rng.integers(len(others)))]
        buffer.append(run_episode(task, tap, policy, use_expert, critic, cfg, rng))
        if len(buffer) == cfg.episodes_per_file or i == episodes - 1:
            write_episodes(out, buffer, name=f"s{seed}_w{index}_{i // cfg.episodes_per_file:05d}")
            buffer = []
            log.info("worker %d: %d / %d episodes, %.0f s", index, i + 1, episodes, time.perf_counter() - start)


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
    task, cfg = get_task("peg-insertion"), generation_preset("manipulation")
    spec = task.spec
    create_dataset(args.out, DatasetInfo(
        task=spec.name, domain="sim", control_period_s=spec.control_period_s, obs_shapes=spec.obs_shapes,
        action_dim=spec.action_dim, command_dim=spec.command_dim, action_low=spec.action_low,
        action_high=spec.action_high,
        notes=f"Alg. 2 generation {asdict(cfg)}; every policy acts on perceived positions ({args.perceive}); "
              f"teacher {asdict(teacher)} (benchmarks/peg_perceiving_teacher_data.py)"))
    shares = [args.episodes // args.workers + (w < args.episodes % args.workers) for w in range(args.workers)]
    start = time.perf_counter()
    context = mp.get_context("spawn")
    procs = [context.Process(target=worker, args=(str(args.out), n, args.seed, w, teacher, args.perceive))
             for w, n in enumerate(shares) if n]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join()
    if any(proc.exitcode for proc in procs):
        raise SystemExit(f"generation worker(s) failed: exit codes {[proc.exitcode for proc in procs]}")
    stats = dataset_statistics(args.out)
    stats["wall_s"] = time.perf_counter() - start
    Path(args.out, "stats.json").write_text(json.dumps(stats, indent=2))
    print(json.dumps({k: stats[k] for k in ("episodes", "steps", "expert_action_share", "success_rate", "wall_s")}))


if __name__ == "__main__":
    main()
