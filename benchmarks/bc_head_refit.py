"""Retrain a world model's BC head (optionally with a new shape) with everything else frozen.

    python benchmarks/bc_head_refit.py --checkpoint checkpoints/quadruped-cpu --data runs/quadruped_data_v2 \
        --out runs/q_bc_wide --steps 4000 --set model.policy_ffn_dim=256
    python benchmarks/bc_head_refit.py --checkpoint runs/peg_teacher --data runs/peg_teacher_data \
        --out runs/peg_teacher_tail --steps 4000 --preset paper-manipulation --tail-windows

Every parameter outside the policy group is copied from the checkpoint and frozen; the policy group is copied too
when its shapes are unchanged (`--reinit` starts it afresh), then trained on the BC term of Eq. 2 alone. This
isolates the head: the encoder, dynamics, reward and value (and so the planner's returns) are bit-identical.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

import torch

from simdist.config import LossConfig, ModelConfig, parse_overrides, replace, train_preset
from simdist.model.world_model import WorldModel
from simdist.training.checkpoint import load_model
from simdist.training.train import load_windows, set_trainable, train_loop

log = logging.getLogger("bc_head_refit")


def widened(model: WorldModel, overrides: dict, reinit: bool) -> WorldModel:
    new = WorldModel(replace(model.cfg, **overrides), model.spec)
    own = new.state_dict()
    policy = {n for n, _ in new.parameter_group("policy")}
    keep = {k: v for k, v in model.state_dict().items()
            if k in own and own[k].shape == v.shape and not (reinit and k in policy)}
    missing = sorted(set(own) - set(keep))
    if any(k not in policy for k in missing):
        raise SystemExit(f"only the policy group may change shape; would lose {missing}")
    new.load_state_dict(keep, strict=False)
    log.info("copied %d tensors, policy tensors started afresh: %d", len(keep), len(missing))
    return new


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--steps", type=int, default=4000)
    p.add_argument("--preset", default="quadruped-cpu", help="training preset for batch size and learning rate")
    p.add_argument("--model-set", action="append", default=[], help="ModelConfig FIELD=VALUE for the new head")
    p.add_argument("--reinit", action="store_true", help="start the policy head afresh even if its shape is kept")
    p.add_argument("--tail-windows", action="store_true",
                   help="also start windows in each episode's last T steps (TrainConfig.tail_windows)")
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    torch.manual_seed(0)
    model = widened(load_model(args.checkpoint), parse_overrides(ModelConfig, args.model_set), args.reinit)
    params = set_trainable(model, ("policy",))
    cfg = train_preset(args.preset)
    data = load_windows(args.data, model.cfg, torch.device("cpu"), args.tail_windows)
    weights = LossConfig(latent=0.0, reward=0.0, value=0.0, bc=cfg.loss.bc)
    extra = {"stage": "bc-refit", "refit_from": args.checkpoint, "data": args.data, "steps": args.steps,
             "tail_windows": args.tail_windows}
    cfg = replace(cfg, steps=args.steps, warmup_steps=min(cfg.warmup_steps, args.steps // 10), decay_steps=args.steps,
                  val_every=max(1, args.steps // 4), checkpoint_every=args.steps, loss=weights, grad_clip=None,
                  amp=False, compile=False, ema_decay=0.0, keep_checkpoints=False)
    result = train_loop(model, params, data, Path(args.out), cfg, extra, progress=False)
    log.info("validation %s", result.val_loss)


if __name__ == "__main__":
    main()
