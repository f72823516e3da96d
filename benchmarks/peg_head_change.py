"""Peg Insertion (session 44): how much does an update change what the BC head does, and in which phase?

Session 43 read the shipped head's collapse after 100 BC steps as the gradient's direction, because the same update
with random signs kept its success. But a random-sign update may just change the head's output less than a coherent
one of the same weight magnitudes. This measures the change in output directly: the RMS difference between each
model's action chunk and the shipped model's, in normalised action units, on the same windows of the recipe's data
(`--data`, the first `--files` episode files), by phase of the window's first state (benchmarks/peg_bc_phase_probe.py),
and the BC error to the expert's labels there. Besides the given checkpoints it can build, from each, the shipped
model minus the update (`reverse`: the same change in the opposite direction) and the sign-flipped update of
benchmarks/peg_perturbation_probe.py (`signflip`), and drive each head alone on the same 40 Narrow trials per domain
(seed 1) as those probes (`--trials`; 0 skips the rollouts).

    python benchmarks/peg_head_change.py --models runs/peg_probe_phase_all runs/peg_probe_phase_only_carry \
        --derive reverse,signflip --trials 40 --out benchmarks/results/peg_head_change.jsonl
"""

from __future__ import annotations

import argparse
import logging
import tempfile
from pathlib import Path

import numpy as np
import torch
from peg_bc_phase_probe import PHASES, SHIPPED, phase_of
from peg_perturbation_probe import sign_flipped
from records import emit

from simdist.data.windows import WindowDataset
from simdist.eval.rollout import evaluate_grids
from simdist.model.world_model import ACTION, PROPRIO
from simdist.planning.agent import PolicyAgent
from simdist.tasks import get_task
from simdist.training.checkpoint import load_model

log = logging.getLogger("peg_head_change")


def reversed_update(shipped: torch.nn.Module, moved: torch.nn.Module) -> torch.nn.Module:
    """shipped − (moved − shipped): the same weight change, in the opposite direction; buffers untouched."""
    with torch.no_grad():
        for p, q in zip(shipped.parameters(), moved.parameters()):
            p.sub_(q - p)
    return shipped


def sample_windows(data: Path, files: int, history: int, horizon: int) -> WindowDataset:
    """The windows (tail windows included) of the first `files` episode files of `data`."""
    tmp = Path(tempfile.mkdtemp(prefix="peg_head_change_"))
    (tmp / "episodes").mkdir()
    for name in ("dataset.json", "stats.json"):
        (tmp / name).symlink_to((data / name).resolve())
    for src in sorted((data / "episodes").glob("*.h5"))[:files]:
        (tmp / "episodes" / src.name).symlink_to(src.resolve())
    return WindowDataset.from_dir(tmp, history, horizon, tail_windows=True)


@torch.no_grad()
def chunks(model: torch.nn.Module, batch: dict) -> torch.Tensor:
    return model.eval()(batch)["policy"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", required=True, help="checkpoints derived from the shipped model")
    ap.add_argument("--derive", default="", help="comma-separated: reverse, signflip (from each --models)")
    ap.add_argument("--data", type=Path, default=Path("runs/peg_data"))
    ap.add_argument("--files", type=int, default=4)
    ap.add_argument("--windows", type=int, default=8192)
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    torch.set_num_threads(2)
    shipped = load_model(SHIPPED)
    data = sample_windows(args.data, args.files, shipped.cfg.history, shipped.cfg.horizon)
    ids = np.random.default_rng(0).permutation(len(data))[: args.windows]
    batch = data.batch(ids)
    phase = torch.as_tensor(phase_of(batch["obs"][PROPRIO].numpy()))
    labels = shipped.normalizer.normalize(ACTION, batch["actions"])
    mask = torch.cumprod(batch["expert"].float(), dim=1)  # the BC term's mask (simdist.model.loss.bc_mask)
    base = chunks(shipped, batch)
    task = get_task("peg-insertion")

    variants = []
    for path in args.models:
        variants.append((path, lambda p=path: load_model(p)))
        for kind in filter(None, args.derive.split(",")):
            build = {"reverse": lambda p=path: reversed_update(load_model(SHIPPED), load_model(p)),
                     "signflip": lambda p=path: sign_flipped(load_model(SHIPPED), load_model(p), seed=0)}[kind]
            variants.append((f"{kind} of {path}", build))
    for name, build in [(SHIPPED, lambda: load_model(SHIPPED))] + variants:
        model = build().eval()
        out = chunks(model, batch)
        row = {"model": name, "windows": len(ids), "data": str(args.data), "files": args.files}
        for i, p in enumerate(PHASES):
            sel = phase == i
            row[f"change_{p}"] = float((out[sel] - base[sel]).pow(2).mean().sqrt())
            m = mask[sel].unsqueeze(-1)
            row[f"bc_error_{p}"] = float(((out[sel] - labels[sel]).pow(2) * m).sum() / (m.sum() * out.shape[-1]))
        row["change"] = float((out - base).pow(2).mean().sqrt())
        for domain in ("sim", "real") if args.trials else ():
            result = evaluate_grids(task, lambda env: PolicyAgent(model), domain, ("narrow",), args.trials, seed=1)
            row[f"success_{domain}"] = result["grids"]["narrow"]["success_rate"]
        log.info("%s", row)
        emit(row, args.out)


if __name__ == "__main__":
    main()
