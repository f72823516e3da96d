"""Peg Insertion (session 44): which of the expert's BC labels lead the shipped head away from seating?

Session 43 found that 100 steps of the BC term alone at a constant 2e-6 (from the shipped model, on the 10,000
episodes of its own recipe, `runs/peg_data`) take the head's `sim` success on 40 Narrow trials from 0.25 to 0.00,
while every other term, and a random change of the same size, do not. Here the same 100 steps see the labels of
one phase only, or of all phases but one: the dataset's `expert` flag is the BC term's mask, so each variant is a
copy of `runs/peg_data` with the flags cleared where its phase says (nothing else differs; the other terms are
off). The BC mask is the product of the flags along the chunk from the window's start, so a variant keeps the
windows that start in its phases, each up to where the episode leaves them. The episodes' last steps are windows
too (`tail_windows=true`, future past the end masked): without them the windows that start in `insert` are 0.1 %
of all (0.2 per batch) and their rare gradients move Adam much further than dense ones; with them 0.5 %. Variant
`all` keeps every label under the same setting (session 43's probe had no tail windows). Phases come from the
robot's observation, as the head sees the state:

    pick    the gripper is open (reaching, closing on the peg, or after a release)
    carry   the peg is held and its estimate is more than NEAR_M from the hole's axis
    mouth   held, within NEAR_M of the axis, and above MOUTH_Z_M (the carry height is ~0.05 m)
    insert  held, within NEAR_M of the axis, and at or below MOUTH_Z_M (seated is ~0.01 m)

Each record also has the root-mean-square change of the BC head's weights from the shipped ones (Adam moves each
weight by up to the learning rate per step whatever the gradient's size, so variants are comparable in size).
Each head alone drives the same 40 Narrow trials per domain (seed 1) via `simdist select`, as the records of
benchmarks/peg_loss_term_probe.sh. About 2 min per variant on 2 cores; resumable; records are appended once.

    python benchmarks/peg_bc_phase_probe.py --variants all,only_pick,only_carry,only_mouth,only_insert,without_insert
    python benchmarks/peg_bc_phase_probe.py --seed 1 --variants …   # another draw of the batches
    python benchmarks/peg_bc_phase_probe.py --data runs/peg_dagger44_shipped200/dagger_data --name dagger200 \
        --variants only_carry,without_mouth+insert [--lr 4e-7]   # DAgger labels (peg_diffusion_dagger.sh) by phase
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import subprocess
from pathlib import Path

import h5py
import numpy as np
import torch
from safetensors.torch import load_file

from simdist.tasks.peg_insertion.layout import PROPRIO

log = logging.getLogger("peg_bc_phase_probe")
PHASES = ("pick", "carry", "mouth", "insert")
OPEN_GRIPPER_M = 0.03  # a closed grasp on the peg reads ~0.015 m, an open gripper 0.085 m
NEAR_M = 0.02
MOUTH_Z_M = 0.035
SHIPPED = "checkpoints/peg-insertion"
LR = 2e-6  # constant: session 43's rate, at which 100 steps on all of the recipe's labels take the head to 0.00


def phase_of(proprio: np.ndarray) -> np.ndarray:
    """(N,) index into PHASES for (N, 46) observations."""
    opening = PROPRIO.get(proprio, "gripper_opening")[:, 0]
    to_hole = PROPRIO.get(proprio, "peg_to_hole_est")
    near = np.linalg.norm(to_hole[:, :2], axis=1) <= NEAR_M
    phase = np.where(near, np.where(to_hole[:, 2] > MOUTH_Z_M, 2, 3), 1)
    return np.where(opening > OPEN_GRIPPER_M, 0, phase)


def keep_mask(phase: np.ndarray, variant: str) -> np.ndarray:
    """Which steps keep their expert flag: `all`, `only_<phase>` or `without_<phase>[+<phase>…]`."""
    if variant == "all":
        return np.ones_like(phase, dtype=bool)
    kind, _, names = variant.partition("_")
    unknown = [n for n in names.split("+") if n not in PHASES]
    if kind not in ("only", "without") or unknown or not names:
        raise SystemExit(f"variant {variant!r}: use only_<phase> or without_<phase>[+<phase>…], phases {PHASES}")
    chosen = np.isin(phase, [PHASES.index(n) for n in names.split("+")])
    return chosen if kind == "only" else ~chosen


def filtered_copy(data: Path, out: Path, variant: str) -> dict:
    """`data` with the expert flags cleared outside `variant`'s steps; returns the label counts."""
    counts = {"labels_kept": 0, "labels_all": 0, **{f"labels_{p}": 0 for p in PHASES}}
    if (out / ".done").exists():
        return json.loads((out / ".done").read_text())
    shutil.rmtree(out, ignore_errors=True)
    (out / "episodes").mkdir(parents=True)
    for name in ("dataset.json", "stats.json"):  # a DAgger collection has no stats.json
        if (data / name).exists():
            shutil.copy(data / name, out / name)
    for src in sorted((data / "episodes").glob("*.h5")):
        dst = out / "episodes" / src.name
        shutil.copy(src, dst)
        with h5py.File(dst, "r+") as f:
            expert = f["expert"][:]
            phase = phase_of(f["obs/proprio"][:])
            for i, p in enumerate(PHASES):
                counts[f"labels_{p}"] += int((expert & (phase == i)).sum())
            kept = expert & keep_mask(phase, variant)
            counts["labels_all"] += int(expert.sum())
            counts["labels_kept"] += int(kept.sum())
            f["expert"][...] = kept
    (out / ".done").write_text(json.dumps(counts))
    return counts


def head_change(run_dir: Path) -> float:
    """RMS change of the BC head's weights from the shipped model's."""
    shipped, moved = load_file(f"{SHIPPED}/model.safetensors"), load_file(str(run_dir / "model.safetensors"))
    deltas = [(moved[k] - v).flatten() for k, v in shipped.items() if k.startswith("policy.")]
    return float(torch.cat(deltas).pow(2).mean().sqrt())


def run(cmd: list[str], log_file: Path) -> None:
    with open(log_file, "w") as f:
        subprocess.run(cmd, check=True, stdout=f, stderr=subprocess.STDOUT, env={**os.environ, "OMP_NUM_THREADS": "2"})


def probe(variant: str, data: Path, runs: Path, records: Path, keep_data: bool, seed: int, name: str,
          lr: float) -> None:
    out = runs / f"peg_probe_{name}_{variant}{f'_s{seed}' if seed else ''}{f'_lr{lr:g}' if lr != LR else ''}"
    copy = runs / f"peg_data_{name}_{variant}"
    if not (out / ".done").exists():
        counts = filtered_copy(data, copy, variant)
        train = ["steps=100", f"lr={lr}", f"lr_end={lr}", "warmup_steps=0", "tail_windows=true", f"seed={seed}"]
        run(["simdist", "pretrain", "--data", str(copy), "--out", str(out), "--preset", "paper-manipulation",
             "--steps", "5000", "--init-from", SHIPPED, *[a for t in train for a in ("--train-set", t)],
             *[a for t in ("latent=0", "reward=0", "value=0") for a in ("--loss-set", t)], "--quiet"],
            Path(f"{out}.log"))
        (out / "labels.json").write_text(json.dumps({**counts, "head_rms_change": head_change(out)}))
        (out / ".done").touch()
    if not keep_data:
        shutil.rmtree(copy, ignore_errors=True)
    counts = json.loads((out / "labels.json").read_text())
    for domain in ("sim", "real"):
        result = out / f"select_{domain}.json"
        if not result.exists():
            run(["simdist", "select", "peg-insertion", str(out), "--grid", "narrow", "--trials", "40", "--seed", "1",
                 "--domain", domain, "--out", str(result), "--quiet"], out / f"select_{domain}.log")
        marker = Path(f"{result}.recorded")
        if marker.exists():
            continue
        row = {"model": str(out), "data": str(data), "bc_labels": variant, **counts, "steps": 100, "lr": lr,
               "losses": "bc alone", "tail_windows": True, "train_seed": seed,
               "agent": "policy", "domain": domain, "grid": "narrow", "seed": 1, "trials": 40,
               "success": json.loads(result.read_text())["best_success"]}
        with open(records, "a") as f:
            f.write(json.dumps(row) + "\n")
        marker.touch()
        log.info("%s %s: %.3f (%d of %d labels, head RMS change %.2g)", variant, domain, row["success"],
                 counts["labels_kept"], counts["labels_all"], counts["head_rms_change"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", default="all,only_pick,only_carry,only_mouth,only_insert,without_insert",
                        help="comma-separated only_<phase> / without_<phase>[+<phase>…]")
    parser.add_argument("--data", type=Path, default=Path("runs/peg_data"))
    parser.add_argument("--runs", type=Path, default=Path("runs"))
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/peg_bc_phase_probe.jsonl"))
    parser.add_argument("--seed", type=int, default=0, help="training seed (the batches drawn)")
    parser.add_argument("--lr", type=float, default=LR, help="the constant learning rate of the 100 steps")
    parser.add_argument("--name", default="phase", help="runs are RUNS/peg_probe_<name>_<variant>[_s<seed>]")
    parser.add_argument("--keep-data", action="store_true", help="keep each variant's filtered dataset copy")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    for variant in args.variants.split(","):
        probe(variant, args.data, args.runs, args.out, args.keep_data, args.seed, args.name, args.lr)


if __name__ == "__main__":
    main()
