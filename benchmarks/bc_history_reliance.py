"""How much a world model's BC head leans on the past actions in its context (the copycat check).

On expert-labelled windows of a dataset, the BC loss on the first action of the chunk is measured four ways: as
trained, with each window's past actions swapped for another window's, with its observation and proprioceptive
history swapped instead (past actions kept), and with the past actions zeroed. A head whose error jumps when the past
actions are swapped but hardly moves when the observations are swapped predicts the expert by copying what was just
done, a shortcut that pays in the data (expert actions are smooth) and fails in closed loop, where the past actions
are its own.

    python benchmarks/bc_history_reliance.py --data runs/tl_data --checkpoints runs/tl/step_006000 runs/tl/step_024000
"""
from __future__ import annotations

import argparse
import json
import logging

import numpy as np
import torch

from simdist.data.windows import WindowDataset
from simdist.training.checkpoint import load_model

log = logging.getLogger("bc_history_reliance")


def first_action_error(model, batch: dict) -> float:
    """Mean squared error (normalised units) of the chunk's first action on expert steps."""
    out = model(batch)
    err = ((out["policy"][:, 0] - out["actions_n"][:, 0]) ** 2).mean(-1)
    mask = batch["expert"][:, 0]
    return float((err * mask).sum() / mask.sum().clamp(min=1))


def swapped(batch: dict, keys: tuple[str, ...], perm: torch.Tensor) -> dict:
    out = dict(batch)
    for k in keys:
        out[k] = {g: v[perm] for g, v in batch[k].items()} if isinstance(batch[k], dict) else batch[k][perm]
    return out


@torch.no_grad()
def reliance(model, data: WindowDataset, windows: np.ndarray, seed: int) -> dict[str, float]:
    batch = data.batch(windows)
    perm = torch.randperm(len(windows), generator=torch.Generator().manual_seed(seed))
    zeroed = dict(batch, hist_action=torch.zeros_like(batch["hist_action"]))
    return {
        "as_trained": first_action_error(model, batch),
        "past_actions_swapped": first_action_error(model, swapped(batch, ("hist_action",), perm)),
        "observations_swapped": first_action_error(model, swapped(batch, ("obs", "hist_proprio"), perm)),
        "past_actions_zeroed": first_action_error(model, zeroed),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True)
    p.add_argument("--checkpoints", nargs="+", required=True)
    p.add_argument("--windows", type=int, default=4096, help="expert-labelled windows to score")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", help="append one JSON row per checkpoint to this file")
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    first = load_model(args.checkpoints[0])
    data = WindowDataset.from_dir(args.data, first.cfg.history, first.cfg.horizon)
    rng = np.random.default_rng(args.seed)
    expert_windows = np.flatnonzero(data.expert[torch.as_tensor(data.window_t)].numpy() > 0)
    if len(expert_windows) == 0:
        raise SystemExit(f"{args.data} has no window that starts on an expert-labelled step: nothing to score")
    windows = rng.choice(expert_windows, size=min(args.windows, len(expert_windows)), replace=False)
    for ckpt in args.checkpoints:
        model = load_model(ckpt).eval()
        shapes = {k: tuple(v) for k, v in data.info.obs_shapes.items()}
        if shapes != dict(model.spec.obs_shapes) or data.info.action_dim != model.spec.action_dim:
            raise SystemExit(f"{ckpt} was built for observations {dict(model.spec.obs_shapes)} and "
                             f"{model.spec.action_dim} actions, {args.data} has {shapes} and {data.info.action_dim}")
        if (model.cfg.history, model.cfg.horizon) != (first.cfg.history, first.cfg.horizon):
            raise SystemExit(f"{ckpt} has history/horizon {model.cfg.history}/{model.cfg.horizon}, "
                             f"{args.checkpoints[0]} {first.cfg.history}/{first.cfg.horizon}: score them separately")
        row = {"checkpoint": ckpt, "data": args.data, "windows": len(windows),
               "policy_sees_actions": model.cfg.policy_sees_actions, **reliance(model, data, windows, args.seed)}
        log.info(json.dumps(row))
        if args.out:
            with open(args.out, "a") as f:
                f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
