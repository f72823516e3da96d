"""Peg Insertion (session 43): is the shipped head's collapse after a few training steps the gradient's direction,
or would any change of that size do it?

Takes the update a short continuation made to the shipped model (`--moved`, e.g. 100 steps at a constant 2e-6 from
`LR=2e-6 STOP=500 EVERY=100 ARMS=0 PLANNER=0 bash benchmarks/peg_tail_pretrain.sh`), and builds the shipped model
plus that update with every element's sign flipped at random (`--draws` seeds): the same magnitudes in every
tensor, a random direction. Each head alone drives the same 40 Narrow trials per domain (seed 1) as the records of
benchmarks/peg_tail_pretrain.sh, where the shipped head seats 0.25 / 0.33 and the continued one its own record.

    python benchmarks/peg_perturbation_probe.py --moved runs/peg_cont5000_tail0_s0_to500_every100_lr2e-6/step_000100 \
        --draws 2 --out benchmarks/results/peg_perturbation_probe.jsonl
"""

from __future__ import annotations

import argparse
import logging

import torch
from records import emit

from simdist.eval.rollout import evaluate_grids
from simdist.planning.agent import PolicyAgent
from simdist.tasks import get_task
from simdist.training.checkpoint import load_model

SHIPPED = "checkpoints/peg-insertion"


def sign_flipped(shipped: torch.nn.Module, moved: torch.nn.Module, seed: int) -> torch.nn.Module:
    """`shipped` + the update (moved − shipped) with each element's sign drawn at random; buffers (the normaliser)
    untouched."""
    gen = torch.Generator().manual_seed(seed)
    moved_params = dict(moved.named_parameters())
    with torch.no_grad():
        for name, p in shipped.named_parameters():
            delta = moved_params[name] - p
            signs = torch.randint(0, 2, delta.shape, generator=gen).float() * 2 - 1
            p.add_(delta * signs)
    return shipped


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moved", required=True, help="a checkpoint of a short continuation of the shipped model")
    ap.add_argument("--draws", type=int, default=2)
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--domains", nargs="+", default=["sim", "real"])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    task, moved = get_task("peg-insertion"), load_model(args.moved)
    norms = {n: float((q - p).abs().max()) for (n, p), q in zip(load_model(SHIPPED).named_parameters(),
                                                                 moved.parameters())}
    for draw in range(args.draws):
        model = sign_flipped(load_model(SHIPPED), moved, seed=draw).eval()
        for domain in args.domains:
            result = evaluate_grids(task, lambda env: PolicyAgent(model), domain, ("narrow",), args.trials, seed=1)
            emit({"model": f"{SHIPPED} + sign-flipped update of {args.moved}", "draw": draw, "agent": "policy",
                  "domain": domain, "grid": "narrow", "seed": 1, "trials": args.trials,
                  "largest_element_change": max(norms.values()),
                  "success": result["grids"]["narrow"]["success_rate"]}, args.out)


if __name__ == "__main__":
    main()
