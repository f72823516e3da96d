"""The uniform average of the weights of several checkpoints of one run (checkpoint averaging, as in SWA).

    python benchmarks/average_checkpoints.py runs/tl_noact_200k/step_0{80,85,90,95}000 runs/tl_noact_200k/step_100000 \
        --out runs/tl_avg_80_100

Closed-loop skill swings between checkpoints a few thousand steps apart whose validation losses agree (Table Leg:
0–7 of 40 seated); an average over a stretch of the run is the standard remedy, and unlike a slower EMA it needs no
retraining. The checkpoints must share the architecture and the data normaliser (one run); floating-point tensors are
averaged, any other tensor is taken from the last checkpoint. Writes a loadable checkpoint (model.safetensors +
config.json naming its sources).
"""

from __future__ import annotations

import argparse
import logging

import torch

from simdist.training.checkpoint import load_model, read_config, save_model


def average(paths: list[str]):
    models = [load_model(p) for p in paths]
    first = models[0]
    for path, model in zip(paths[1:], models[1:]):
        if model.cfg != first.cfg or model.spec != first.spec:
            raise SystemExit(f"{path} has another architecture or data spec than {paths[0]}: not one run")
    states = [m.state_dict() for m in models]
    norm = [k for k in states[0] if k.startswith("normalizer.")]
    if any(not torch.equal(s[k], states[0][k]) for s in states[1:] for k in norm):
        raise SystemExit("the checkpoints' data normalisers differ: they were not trained on the same data")
    averaged = {k: (torch.stack([s[k] for s in states]).mean(0) if v.is_floating_point() else states[-1][k])
                for k, v in states[0].items()}
    out = models[-1]
    out.load_state_dict(averaged)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checkpoints", nargs="+")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    if len(args.checkpoints) < 2:
        raise SystemExit("give at least two checkpoints to average")
    model = average(args.checkpoints)
    extra = {k: v for k, v in read_config(args.checkpoints[-1]).items() if k not in ("version", "model", "spec")}
    save_model(args.out, model, {**extra, "averaged_from": args.checkpoints})
    logging.info("averaged %d checkpoints into %s", len(args.checkpoints), args.out)


if __name__ == "__main__":
    main()
