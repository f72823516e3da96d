"""Session 20 probe: is it the states SimDist's head drives to, or SimDist's frozen encoder, that keeps Foam's DAgger
rounds from transferring? Single-step BC (`simdist compare`'s seed S, its encoder trained with its head) gets the
DAgger update of foam_bc_dagger.sh (`retrain_on_labels`: 5,000 steps, lr 1e-4 → 5e-5, batch 128, half of each batch
from the simulation expert data), but on the labels of another driver's DAgger round, e.g. SimDist's head's
(runs/dagger_cli_foam_sS) or the two rounds of foam_dagger_step_head.sh (runs/dagger_step_foam_sS). Then alone in
`real` and `sim`, eval seeds 0 1 2 × 5 trials × 3 speeds, appended to benchmarks/results/foam_bc_dagger.jsonl.

    python benchmarks/foam_bc_on_simdist_states.py --seed 0 --labels runs/dagger_cli_foam_s0/dagger_data --tag r1
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from simdist.baselines.bc import dagger_labels, retrain_on_labels, sim_expert_transitions
from simdist.data.episodes import load_episodes
from simdist.eval.rollout import evaluate_grids
from simdist.tasks import get_task

RECORD = Path(__file__).parent / "results" / "foam_bc_dagger.jsonl"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--labels", required=True, help="a DAgger dataset (simdist dagger's OUT/dagger_data)")
    p.add_argument("--tag", required=True, help="names the record rows: bc_on_TAG_sS")
    p.add_argument("--runs", default="runs")
    p.add_argument("--domains", default="real,sim")
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    runs, task, tag = Path(args.runs), get_task("foam"), f"bc_on_{args.tag}_s{args.seed}"
    labels = dagger_labels(load_episodes(args.labels)[1])
    learner = retrain_on_labels(runs / f"compare_foam_bc/bc/seed_{args.seed}/checkpoint", labels,
                                sim_expert_transitions(runs / "quadruped_data_v2"), runs / tag, steps=5000, lr=1e-4,
                                lr_end=5e-5, batch_size=128, replay_fraction=0.5, seed=args.seed)
    agent = learner.agent()
    command = (f"python benchmarks/foam_bc_on_simdist_states.py --seed {args.seed} --labels {args.labels} "
               f"--tag {args.tag}")
    with RECORD.open("a") as f:
        for seed in (0, 1, 2):
            for domain in args.domains.split(","):
                out = evaluate_grids(task, lambda env: agent, domain, task.grids, 5, seed)
                out.update(model=tag, agent="policy", seed=seed, command=command)
                f.write(json.dumps(out) + "\n")
                f.flush()
                logging.info("%s seed %d: success %.2f", domain, seed, out["success_rate"])


if __name__ == "__main__":
    main()
