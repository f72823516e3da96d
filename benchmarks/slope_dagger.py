"""DAgger data for the Slippery Slope BC head (session 16): the head drives in `sim`, the privileged expert labels.

Since session 18 the package command `simdist dagger` runs the whole recipe (collection, head training, sensor-noise
stage); this script keeps the collection step that sessions 16-17's records were made with.

The history head climbs slowly in only 4-7 of 15 `real` trials although the expert, whose actions it imitates,
climbs every one: the head's own slow walk reaches states the expert's data never shows. Here the head drives the
robot on the course in `sim` (panel physics from --physics, e.g. randomised slippery panels) and at every step the
privileged expert, on the true state, says what it would do. Each episode is written with the expert's labels as its
actions and every step flagged expert, and no reward or value: a BC-only dataset for

    simdist finetune --checkpoint CKPT --data OUT --trainable policy --set loss.latent=0 --set loss.bc=1 \
        --sim-data runs/quadruped_data_v3 --sim-replay 0.5 ...

(the states come from the head's actions, so never train dynamics on it). Usage:

    python benchmarks/slope_dagger.py --checkpoint checkpoints/quadruped-lowfric-history \
        --physics benchmarks/physics/sim_panel_friction.json --out runs/slope_dagger --episodes 40
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

import numpy as np

from simdist.adaptation.dagger import dagger_episode
from simdist.data.episodes import DatasetInfo, create_dataset, write_episodes
from simdist.eval.rollout import PrivilegedAgent, episode_seed
from simdist.planning.agent import PolicyAgent
from simdist.tasks.registry import get_task
from simdist.training.checkpoint import load_model

log = logging.getLogger("slope_dagger")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default="slippery-slope", help="a quadruped task (foam, slippery-slope)")
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--physics")
    ap.add_argument("--out", required=True)
    ap.add_argument("--speeds", nargs="+", default=["0.1", "0.3"], help="trial speeds (the task's grids)")
    ap.add_argument("--episodes", type=int, default=40, help="per speed")
    ap.add_argument("--seed", type=int, default=100)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    task = get_task(args.task)
    spec = task.spec
    create_dataset(args.out, DatasetInfo(task=spec.name, domain="sim", control_period_s=spec.control_period_s,
                                         obs_shapes=spec.obs_shapes, action_dim=spec.action_dim,
                                         command_dim=spec.command_dim, action_low=spec.action_low,
                                         action_high=spec.action_high,
                                         notes=f"DAgger: {args.checkpoint} drives, the expert labels; physics "
                                               f"{args.physics}; BC labels only (benchmarks/slope_dagger.py)"))
    env = task.make_env("sim", args.physics, seed=args.seed)
    head, expert = PolicyAgent(load_model(args.checkpoint)), PrivilegedAgent(task.expert(), env, seed=args.seed)
    summary = {"checkpoint": args.checkpoint, "physics": args.physics, "seed": args.seed, "success": {}}
    for k, speed in enumerate(args.speeds):
        ics = task.initial_conditions(speed, args.episodes, seed=args.seed + k)
        episodes = [dagger_episode(task, env, head, expert, ic, episode_seed((args.seed, k), i))
                    for i, ic in enumerate(ics)]
        write_episodes(args.out, episodes)
        success = float(np.mean([e.success for e in episodes]))
        summary["success"][speed] = success
        log.info("%s m/s: %d episodes, %d steps, head success %.2f", speed, len(episodes),
                 sum(len(e) for e in episodes), success)
    # The head's own success in `sim` while it drove: the on-policy measure each DAgger round gets for free.
    (Path(args.out) / "collection.json").write_text(json.dumps(summary) + "\n")


if __name__ == "__main__":
    main()
