"""Control for "DAgger doubles single-step BC" (docs/results.md, session 19): the same training as `simdist dagger`'s
for a BC checkpoint (steps, batch, learning rates, the sensor-noise stage) with the simulation expert data in place of
the DAgger labels, so that only the labels differ. Writes OUT/model (a BC checkpoint) for `simdist evaluate`.

    python benchmarks/bc_steps_control.py --bc runs/compare_slope_mu019_bc/bc/seed_0/checkpoint \
        --sim-data runs/quadruped_data_v3 --seed 0 --out runs/bc_control_slope_s0 [--sensor-noise-steps 0]
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from simdist.adaptation.dagger import DaggerConfig
from simdist.baselines.bc import retrain_on_labels, sim_expert_transitions


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bc", required=True, help="single-step BC checkpoint (simdist compare's bc/seed_S/checkpoint)")
    p.add_argument("--sim-data", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=0, help="training seed (simdist dagger's train_seed)")
    p.add_argument("--sensor-noise-steps", type=int, default=DaggerConfig.sensor_noise_steps)
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    cfg, out, sim = DaggerConfig(), Path(args.out), sim_expert_transitions(args.sim_data)
    train = dict(lr=cfg.lr, lr_end=cfg.lr_end, batch_size=cfg.batch_size, replay_fraction=cfg.sim_replay_fraction,
                 seed=args.seed)
    retrain_on_labels(args.bc, sim, sim, out / "stage_1", steps=cfg.steps, **train)
    last = out / "stage_1"
    if args.sensor_noise_steps:
        retrain_on_labels(last, sim, sim, out / "stage_2", steps=args.sensor_noise_steps, sensor_noise_scale=1.0,
                          **train)
        last = out / "stage_2"
    (out / "model").unlink(missing_ok=True)
    (out / "model").symlink_to(last.name)


if __name__ == "__main__":
    main()
