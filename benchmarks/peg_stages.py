"""How far a Peg Insertion agent gets through the task's stages in `sim` (where success alone reads 0 / N).

    python benchmarks/peg_stages.py --checkpoint runs/peg46/pm200 --grid narrow --trials 5 [--mppi paper-manipulation --set prior_weight=10] [--domain real]

For every episode, from the exact state (what the `sim` domain puts in `info`; in `real`, read from the env's
diagnostic oracle, which no learning code sees): the best value of each dense-reward
stage (reach, grasp, lift, align, insert; each in [0, 1], see docs/tasks/peg-insertion.md), the share of steps
the peg is held, and the closest lateral peg-hole distance while held. One JSON line per run (mean over episodes,
and the per-episode rows) to stdout and, appended, to `--out`.
"""

from __future__ import annotations

import argparse
import logging

import numpy as np
from records import emit

from simdist.checkpoint import load_model
from simdist.config import MPPIConfig, mppi_preset, parse_overrides, replace
from simdist.eval.rollout import rollout
from simdist.planning.agent import MPPIAgent, PolicyAgent
from simdist.tasks.peg_insertion.reward import PegState, reward_terms
from simdist.tasks.registry import get_task

STAGES = ("reach", "grasp", "lift", "align", "insert")


def episode_stages(infos: list[dict]) -> dict:
    states = [PegState.from_privileged(i["privileged"]) for i in infos]
    terms = [reward_terms(s) for s in states]
    held = [s for s in states if s.grasped]
    closest = min(held, key=lambda s: s.lateral_to_hole) if held else None
    return {**{k: max(t[k] for t in terms) for k in STAGES},
            "held_share": len(held) / len(states),
            # at the held step closest to the hole axis: what still stands between the agent and success
            "closest_held_lateral_mm": 1e3 * closest.lateral_to_hole if closest else None,
            "yaw_error_deg_there": float(np.degrees(closest.yaw_error)) if closest else None,
            "depth_mm_there": 1e3 * closest.insertion_depth if closest else None,
            "tilt_deg_there": float(np.degrees(closest.peg_tilt)) if closest else None,
            "success": bool(infos[-1]["success"])}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--grid", default="narrow")
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--domain", default="sim", choices=("sim", "real"))
    p.add_argument("--mppi", default=None, help="MPPI preset (default: the BC head alone)")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="override an MPPIConfig field")
    p.add_argument("--out", default=None, help="JSON-lines file to append the result to")
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    task = get_task("peg-insertion")
    model = load_model(args.checkpoint)
    mppi = replace(mppi_preset(args.mppi), **parse_overrides(MPPIConfig, args.set)) if args.mppi else None
    agent = MPPIAgent(model, mppi) if mppi else PolicyAgent(model)
    env = task.make_env(args.domain, seed=args.seed)
    rows = []

    class Recorder:  # rollout() keeps metrics, not per-step infos: collect them on the way through
        def __init__(self, inner):
            self.inner, self.infos = inner, []

        def reset(self, **kw):
            if self.infos:
                rows.append(episode_stages(self.infos))
            self.infos = []
            return self.inner.reset(**kw)

        def step(self, action):
            out = self.inner.step(action)
            self.infos.append({**out[4], "privileged": self.inner.oracle_privileged_state()})
            return out

    recorder = Recorder(env)
    rollout(task, recorder, agent, task.initial_conditions(args.grid, args.trials, args.seed), seed=args.seed)
    rows.append(episode_stages(recorder.infos))
    mean = {k: float(np.mean([r[k] for r in rows])) for k in (*STAGES, "held_share", "success")}
    closest = [r["closest_held_lateral_mm"] for r in rows if r["closest_held_lateral_mm"] is not None]
    emit({"task": "peg-insertion", "checkpoint": args.checkpoint, "agent": args.mppi or "policy", "set": args.set, "grid": args.grid,
          "domain": args.domain,
          "trials": args.trials, "mean": mean, "closest_held_lateral_mm": closest, "episodes": rows}, args.out)


if __name__ == "__main__":
    main()
