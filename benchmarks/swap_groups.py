"""Attribute a finetune's effect to its parameter groups: a checkpoint made of BASE with GROUPS taken from DONOR.

    python benchmarks/swap_groups.py --base runs/q_lowfric --donor runs/adapt_corr_mu019_s0/round_01/model \
        --groups policy --out runs/hybrid_policy

Evaluating the hybrid beside BASE and DONOR (`simdist evaluate`) tells whether, e.g., a finetune of the dynamics
and the policy head changed success through the one or the other. Both checkpoints must share one architecture.
"""

from __future__ import annotations

import argparse

import torch

from simdist.training import checkpoint as ckpt


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", required=True)
    p.add_argument("--donor", required=True)
    p.add_argument("--groups", required=True, help="comma-separated parameter groups, e.g. policy or dynamics")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    base, donor = ckpt.load_model(args.base), ckpt.load_model(args.donor)
    donor_state = donor.state_dict()
    with torch.no_grad():
        for group in args.groups.split(","):
            for name, param in base.parameter_group(group):
                param.copy_(donor_state[name])
    ckpt.save_model(args.out, base, extra={"stage": "hybrid", "base": args.base, "donor": args.donor,
                                           "groups_from_donor": args.groups.split(",")})


if __name__ == "__main__":
    main()
