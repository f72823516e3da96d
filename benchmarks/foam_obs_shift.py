"""Session 22 probe: what the foam changes in what the robot sees. One policy (default: this session's single-step BC +
DAgger, which walks the foam) drives the same `real` trials on the foam and on rigid pads (session 21's
benchmarks/physics/foam_real_rigid.json), both with the sensor noise off; per observation group, how far the foam
moves the observations, in units of the world model's normaliser std (the scale its frozen encoder was trained on),
and how far it moves the latent z = E(o) against the spread of z on rigid pads, also with one group at a time
put back to its rigid-pad mean.

    python benchmarks/foam_obs_shift.py [--policy runs/dagger_bc_foam_s0/model] [--checkpoint checkpoints/quadruped-cpu]
        [--grid 0.2] [--trials 5] [--seed 0]
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch

from simdist.baselines.bc import BCLearner
from simdist.eval.rollout import rollout
from simdist.tasks import get_task
from simdist.training import checkpoint as ckpt

WORLDS = {"foam": "benchmarks/physics/foam_real_noise_off.json",
          "rigid": "benchmarks/physics/foam_real_rigid_noise_off.json"}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--policy", default="runs/dagger_bc_foam_s0/model")
    p.add_argument("--checkpoint", default="checkpoints/quadruped-cpu")
    p.add_argument("--grid", default="0.2")
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    task, model = get_task("foam"), ckpt.load_model(args.checkpoint)
    agent = BCLearner.load(args.policy).agent()
    obs, success = {}, {}
    for world, physics in WORLDS.items():
        env = task.make_env("real", physics, seed=args.seed)
        res = rollout(task, env, agent, task.initial_conditions(args.grid, args.trials, seed=args.seed), seed=args.seed)
        obs[world] = {g: np.concatenate([e.obs[g] for e in res.episodes]) for g in res.episodes[0].obs}
        success[world] = float(np.mean([m.get("success", 0.0) for m in res.metrics]))
    row = {"policy": args.policy, "grid": args.grid, "trials": args.trials, "seed": args.seed, "success": success}
    for group in obs["foam"]:
        std = getattr(model.normalizer, f"{group}_std").numpy()
        shift = (obs["foam"][group].mean(0) - obs["rigid"][group].mean(0)) / std
        row[f"{group}_mean_shift_in_std"] = round(float(np.abs(shift).mean()), 3)
        row[f"{group}_max_shift_in_std"] = round(float(np.abs(shift).max()), 3)
        row[f"{group}_raw_mean"] = {w: round(float(obs[w][group].mean()), 4) for w in obs}
    with torch.no_grad():
        z = {w: model.encode({g: torch.as_tensor(v) for g, v in o.items()}).numpy()
             for w, o in obs.items()}
    spread = float(np.linalg.norm(z["rigid"] - z["rigid"].mean(0), axis=1).mean())
    row["latent_mean_shift_over_rigid_spread"] = round(float(np.linalg.norm(z["foam"].mean(0) - z["rigid"].mean(0))
                                                               / spread), 3)
    for group in obs["foam"]:  # the foam's observations with one group put back to its rigid-pad mean
        swapped = {g: (np.broadcast_to(obs["rigid"][g].mean(0), v.shape) if g == group else v)
                   for g, v in obs["foam"].items()}
        with torch.no_grad():
            zs = model.encode({g: torch.as_tensor(np.ascontiguousarray(v)) for g, v in swapped.items()}).numpy()
        row[f"latent_shift_with_{group}_at_rigid_mean"] = round(float(
            np.linalg.norm(zs.mean(0) - z["rigid"].mean(0)) / spread), 3)
    print(json.dumps(row))


if __name__ == "__main__":
    main()
