"""How far a manipulation agent gets through the task's stages (where success alone reads 0 / N).

    python benchmarks/manipulation_stages.py --checkpoint runs/peg46/pm200 --grid narrow --trials 5 \
        [--mppi paper-manipulation --set prior_weight=10] [--domain real]
    python benchmarks/manipulation_stages.py --task table-leg --checkpoint runs/table_leg/pretrained --trials 10
    python benchmarks/manipulation_stages.py --task table-leg --bc-checkpoint RUN/bc/seed_0/checkpoint  # the baseline
    python benchmarks/manipulation_stages.py --task table-leg --checkpoint CKPT --domain real \
        --physics benchmarks/physics/table_leg_real_arm_sim.json   # `real` with one gap group put back to sim

For every episode, from the exact state (read from the env's diagnostic oracle, which no learning code sees): the
best value of each dense-reward stage (each in [0, 1]; Peg Insertion: reach, grasp, lift, align, insert, see
docs/tasks/peg-insertion.md; Table Leg adds thread, docs/tasks/table-leg.md), the share of steps the part is held,
and, at the held step closest to the hole axis, the lateral distance, depth and tilt. One JSON line per run (mean
over episodes, and the per-episode rows) to stdout and, appended, to `--out`.
"""

from __future__ import annotations

import argparse
import functools
import logging

import numpy as np
from records import emit

from simdist.baselines.bc import BCLearner
from simdist.config import parse_overrides, replace
from simdist.eval.rollout import rollout
from simdist.planning.agent import MPPIAgent, PolicyAgent
from simdist.planning.settings import MPPIConfig, mppi_preset
from simdist.tasks.base import domain_physics
from simdist.tasks.peg_insertion import reward as peg_reward
from simdist.tasks.registry import get_task
from simdist.tasks.table_leg import reward as leg_reward
from simdist.training.checkpoint import load_model


def peg_terms(env, privileged: np.ndarray) -> tuple[dict, dict | None]:
    """Stage values, and (when the peg is held) what still stands between the agent and success."""
    s = peg_reward.PegState.from_privileged(privileged)
    where = {"lateral_mm": 1e3 * s.lateral_to_hole, "yaw_error_deg": float(np.degrees(s.yaw_error)),
             "depth_mm": 1e3 * s.insertion_depth, "tilt_deg": float(np.degrees(s.peg_tilt))}
    return peg_reward.reward_terms(s), where if s.grasped else None


def leg_terms(env, privileged: np.ndarray) -> tuple[dict, dict | None]:
    s = leg_reward.LegState.from_privileged(privileged)
    where = {"lateral_mm": 1e3 * s.lateral_to_hole, "depth_mm": 1e3 * s.stud_depth,
             "tilt_deg": float(np.degrees(s.tilt)), "turns": s.turns}
    return leg_reward.reward_terms(s, env.physics.seated_turns), where if (s.grasped or s.engaged) else None


STAGE_TERMS = {"peg-insertion": peg_terms, "table-leg": leg_terms}


def episode_stages(terms_of, infos: list[dict]) -> dict:
    per_step = [terms_of(i["privileged"]) for i in infos]
    held = [where for _, where in per_step if where is not None]
    closest = min(held, key=lambda w: w["lateral_mm"]) if held else None
    stages = per_step[0][0].keys()
    return {**{k: max(t[k] for t, _ in per_step) for k in stages}, "held_share": len(held) / len(per_step),
            # at the held step closest to the hole axis: what still stands between the agent and success
            "closest_held": closest, "success": bool(infos[-1]["success"])}


def recorded_episodes(task, env, agent, grid: str, trials: int, seed: int) -> list[list[dict]]:
    """`trials` episodes of `agent` in `env` from the grid's initial conditions: per step, the env's info, the action
    and the oracle's privileged state."""
    episodes: list[list[dict]] = []

    class Recorder:  # rollout() keeps metrics, not per-step infos: collect them on the way through
        def __init__(self, inner):
            self.inner, self.infos = inner, []

        def reset(self, **kw):
            if self.infos:
                episodes.append(self.infos)
            self.infos = []
            return self.inner.reset(**kw)

        def step(self, action):
            out = self.inner.step(action)
            self.infos.append({**out[4], "action": np.asarray(action).copy(),
                               "privileged": self.inner.oracle_privileged_state()})
            return out

    recorder = Recorder(env)
    rollout(task, recorder, agent, task.initial_conditions(grid, trials, seed), seed=seed)
    episodes.append(recorder.infos)
    return episodes


def staged_rollouts(task, domain: str, physics, agent, grid: str, trials: int, seed: int) -> list[dict]:
    """`trials` episodes of `agent` from the grid's initial conditions, each summarised by `episode_stages`."""
    env = task.make_env(domain, physics, seed=seed)
    terms_of = functools.partial(STAGE_TERMS[task.spec.name], env)
    return [episode_stages(terms_of, infos) for infos in recorded_episodes(task, env, agent, grid, trials, seed)]


def stage_means(rows: list[dict]) -> dict[str, float]:
    return {k: float(np.mean([r[k] for r in rows])) for k in rows[0] if k != "closest_held"}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--task", default="peg-insertion", choices=sorted(STAGE_TERMS))
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--checkpoint", help="a SimDist world model (its BC head, or MPPI with --mppi)")
    who.add_argument("--bc-checkpoint", help="a single-step BC baseline's checkpoint (`simdist compare … bc`)")
    p.add_argument("--grid", default="narrow")
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--domain", default="sim", choices=("sim", "real"))
    p.add_argument("--physics", default=None, help="JSON/YAML file overriding the domain's physics")
    p.add_argument("--mppi", default=None, help="MPPI preset (default: the BC head alone)")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="override an MPPIConfig field")
    p.add_argument("--out", default=None, help="JSON-lines file to append the result to")
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    task = get_task(args.task)
    mppi = replace(mppi_preset(args.mppi), **parse_overrides(MPPIConfig, args.set)) if args.mppi else None
    if args.bc_checkpoint:
        if mppi:
            raise SystemExit("--mppi plans with a world model; a BC baseline acts alone")
        agent = BCLearner.load(args.bc_checkpoint).agent()
    else:
        model = load_model(args.checkpoint)
        agent = MPPIAgent(model, mppi) if mppi else PolicyAgent(model)
    physics = domain_physics(task, args.domain, args.physics)
    rows = staged_rollouts(task, args.domain, physics, agent, args.grid, args.trials, args.seed)
    mean = stage_means(rows)
    closest = [r["closest_held"]["lateral_mm"] for r in rows if r["closest_held"] is not None]
    agent_name = "bc" if args.bc_checkpoint else args.mppi or "policy"
    emit({"task": args.task, "checkpoint": args.checkpoint or args.bc_checkpoint, "agent": agent_name, "set": args.set,
          "grid": args.grid, "domain": args.domain,
          **({"physics": args.physics} if args.physics else {}), "seed": args.seed, "trials": args.trials,
          "mean": mean, "closest_held_lateral_mm": closest, "episodes": rows}, args.out)


if __name__ == "__main__":
    main()
