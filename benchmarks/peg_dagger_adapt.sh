#!/usr/bin/env bash
# Peg Insertion (session 44): Alg. 1 on the model whose head a small dose of DAgger labels lifted in `sim` and
# lowered in `real` (benchmarks/peg_bc_phase_probe.py --data runs/peg_dagger44_shipped200/dagger_data --name dagger200
# --variants all --lr 4e-7; its planner seats 0.48 in `sim` and 0.13 in `real` on 40 Narrow trials,
# benchmarks/peg_dagger_planner.sh): a model with a sim-to-real gap, as session 38's GPU checkpoint. Session 38's
# recipe (4 rounds × 20 Narrow `real` episodes, 1,000-step dynamics finetunes, the 300 held-out episodes of
# runs/peg_heldout as `sim` replay), seeds 0 and 1 side by side on one core each: about 25 min on 2 cores.
# Records: benchmarks/results/adapt_peg_daggerdose_narrow_s{0,1}.json (each run's adapt_results.json).
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
RUN=${RUN:-runs/peg_probe_dagger200_all_lr4e-07}
for seed in ${SEEDS:-0 1}; do
  peg_alg1_to "benchmarks/results/adapt_peg_daggerdose_narrow_s$seed.json" "$RUN" "runs/adapt_peg_daggerdose_s$seed" \
    "$seed" &
done
wait
