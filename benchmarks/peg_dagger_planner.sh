#!/usr/bin/env bash
# Peg Insertion (session 44): does the planner follow the head that a small dose of DAgger labels lifted in `sim`
# (0.25 -> 0.43 alone, `real` 0.33 -> 0.10; benchmarks/peg_bc_phase_probe.py --data … --name dagger200 --lr 4e-7)?
# MPPI (`manipulation-prior`) with that model on the same 40 Narrow trials per domain (seed 1) as session 43's planner
# rows, one thread per domain side by side; `RUN=checkpoints/peg-insertion` gives the shipped planner on the same
# trials. About 9 min per model on 2 cores. Record: benchmarks/results/peg_dagger_planner.jsonl.
set -euo pipefail
source "$(dirname "$0")/eval_record.sh"
RUN=${RUN:-runs/peg_probe_dagger200_all_lr4e-07}
REC=benchmarks/results/peg_dagger_planner.jsonl
for domain in sim real; do
  evaluate_to "$REC" "{\"model\": \"$RUN\", \"agent\": \"mppi\", \"mppi\": \"manipulation-prior\", \"domain\": \"$domain\"}" \
    simdist evaluate peg-insertion --checkpoint "$RUN" --domain "$domain" --grid narrow --trials 40 --agent mppi \
    --mppi manipulation-prior --seed 1 --json &
done
wait
