"""Eq. 2's loss terms of several checkpoints on one held-out simulation dataset (fresh episodes none of them saw).

    simdist generate peg-insertion --episodes 300 --seed 38 --out /tmp/peg_heldout
    python benchmarks/heldout_losses.py --data /tmp/peg_heldout --checkpoints checkpoints/peg-insertion \
        runs/peg_gpu/step_010000 --out benchmarks/results/peg_gpu_heldout_losses.jsonl

Every window of the dataset in eval mode (no dropout), the checkpoints' own loss weights. The BC, reward and value
terms compare across checkpoints that share a normaliser (one warm-started from another); the latent term does not
(each model's targets are its own encoder's). One JSON line per checkpoint.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from records import emit

from simdist.config import LossConfig, from_dict
from simdist.model.loss import world_model_loss
from simdist.training.checkpoint import load_model, read_config
from simdist.training.train import load_windows


@torch.no_grad()
def heldout_losses(checkpoint: str, data_dir: str, batch_size: int) -> dict:
    model = load_model(checkpoint).eval()
    weights = from_dict(LossConfig, read_config(checkpoint)["train"]["loss"])
    data = load_windows(data_dir, model.cfg, torch.device("cpu"))
    sums: dict[str, float] = {}
    for chunk in np.array_split(np.arange(len(data)), max(1, len(data) // batch_size)):
        _, logs = world_model_loss(model, data.batch(chunk), weights)
        for k, v in logs.items():
            sums[k] = sums.get(k, 0.0) + v * len(chunk)
    return {"checkpoint": checkpoint, "data": data_dir, "windows": len(data),
            **{k: v / len(data) for k, v in sums.items()}}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", required=True)
    p.add_argument("--checkpoints", nargs="+", required=True)
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--out", default=None, help="JSON-lines file to append to")
    args = p.parse_args()
    for checkpoint in args.checkpoints:
        emit(heldout_losses(checkpoint, args.data, args.batch_size), args.out)


if __name__ == "__main__":
    main()
