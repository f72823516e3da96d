"""Peg Insertion (session 44): is a BC head's peg tilted before it meets the fixture, or only once it jams there?

    python benchmarks/peg_tilt_trace.py checkpoints/peg-insertion runs/peg_probe_phase_all [--trials 40] \
        [--domain sim] [--out benchmarks/results/peg_tilt_trace.jsonl]
    python benchmarks/peg_tilt_trace.py --data runs/peg_data --files 20 --out benchmarks/results/peg_tilt_trace.jsonl

Per head, on the Narrow grid (seed 1, the trials of benchmarks/peg_bc_phase_probe.py), from the env's diagnostic
oracle over the steps the peg is held: its tilt from vertical while carried (more than 20 mm from the hole's axis),
while above the mouth (within 5 mm of the axis, its bottom 2–20 mm above the mouth) and at the mouth (bottom within
2 mm of it or lower), and the share of episodes it seats. One JSON line per head (medians over episodes of each
episode's median tilt in each zone, degrees).

With `--data`, instead: how tilted the peg is, as the robot perceives its axis, in the steps of a dataset whose
actions are the expert's (the BC labels) and in all of its steps, by phase (benchmarks/peg_bc_phase_probe.py).
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

import h5py

import numpy as np
import torch
from manipulation_stages import recorded_episodes
from peg_bc_phase_probe import PHASES, phase_of
from records import emit

from simdist.planning.agent import PolicyAgent
from simdist.tasks.peg_insertion import reward as peg_reward
from simdist.tasks.peg_insertion.layout import PROPRIO
from simdist.tasks.registry import get_task
from simdist.training.checkpoint import load_model

ZONES = {  # (lateral to the hole's axis, depth of the peg's bottom below the mouth), metres
    "carry": lambda lat, depth: lat > 0.020,
    "above_mouth": lambda lat, depth: lat < 0.005 and -0.020 < depth < -0.002,
    "at_mouth": lambda lat, depth: lat < 0.005 and depth >= -0.002,
}


def zone_tilts(infos: list[dict]) -> dict[str, float]:
    """Median tilt (degrees) of the held peg in each zone of one episode (NaN where the episode never is)."""
    tilts: dict[str, list[float]] = {z: [] for z in ZONES}
    for info in infos:
        s = peg_reward.PegState.from_privileged(info["privileged"])
        if not s.grasped:
            continue
        for zone, inside in ZONES.items():
            if inside(s.lateral_to_hole, s.insertion_depth):
                tilts[zone].append(np.degrees(s.peg_tilt))
    return {z: float(np.median(t)) if t else float("nan") for z, t in tilts.items()}


def label_tilts(data: Path, files: int) -> dict:
    """Share of steps with a perceived tilt above 10 degrees, and the median tilt, per phase: labelled and all."""
    tilt, phase, expert = [], [], []
    for path in sorted((data / "episodes").glob("*.h5"))[:files]:
        with h5py.File(path, "r") as f:
            obs = f["obs/proprio"][:]
            axis_z = np.abs(PROPRIO.get(obs, "peg_axis_est")[:, 2])
            tilt.append(np.degrees(np.arccos(np.clip(axis_z, 0.0, 1.0))))
            phase.append(phase_of(obs))
            expert.append(f["expert"][:])
    t, p, e = map(np.concatenate, (tilt, phase, expert))
    row: dict = {"data": str(data), "files": files, "tilt": "perceived axis (peg_axis_est)"}
    for i, name in enumerate(PHASES):
        for steps, keep in (("labelled", e), ("all", np.ones_like(e))):
            sel = (p == i) & keep
            row[f"{name}_{steps}_steps"] = int(sel.sum())
            row[f"{name}_{steps}_share_above_10deg"] = round(float((t[sel] > 10).mean()), 4)
            row[f"{name}_{steps}_median_deg"] = round(float(np.median(t[sel])), 2)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkpoints", nargs="*")
    ap.add_argument("--data", type=Path, default=None, help="a Peg dataset: its labels' tilt instead of rollouts")
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--domain", default="sim", choices=("sim", "real"))
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    torch.set_num_threads(2)
    if args.data is not None:
        row = label_tilts(args.data, args.files)
        logging.info("%s", row)
        if args.out:
            emit(row, args.out)
        return
    task = get_task("peg-insertion")
    for checkpoint in args.checkpoints:
        env = task.make_env(args.domain, None, seed=1)
        episodes = recorded_episodes(task, env, PolicyAgent(load_model(checkpoint)), "narrow", args.trials, 1)
        per_episode = [zone_tilts(infos) for infos in episodes]
        row = {"checkpoint": checkpoint, "domain": args.domain, "grid": "narrow", "seed": 1, "trials": args.trials,
               "success": float(np.mean([any(i["success"] for i in e) for e in episodes]))}
        for zone in ZONES:
            values = np.array([t[zone] for t in per_episode])
            seen = values[~np.isnan(values)]
            quartiles = np.percentile(seen, [25, 50, 75]) if len(seen) else []
            row[f"tilt_deg_{zone}"] = [round(float(q), 2) for q in quartiles]
            row[f"episodes_{zone}"] = int(len(seen))
        logging.info("%s", row)
        if args.out:
            emit(row, args.out)


if __name__ == "__main__":
    main()
