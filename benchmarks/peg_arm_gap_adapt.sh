#!/usr/bin/env bash
# Peg Insertion (session 45): Alg. 1 where the sim-to-real gap is the arm's dynamics alone, stronger than `real`'s.
# `real` with its perception and contact effects put back to `sim` and a softer, heavier, later arm
# (benchmarks/physics/peg_real_arm_only_{moderate,strong}.json; `real`'s own arm gap alone is peg_real_arm_only.json,
# where the shipped head seats its `sim` level): the paper's setting, a gap in the dynamics only. Session 38's recipe
# (4 rounds × 20 Narrow episodes, 1,000-step dynamics finetunes, the 300 held-out episodes of runs/peg_heldout as
# `sim` replay), seeds side by side on one core each: about 25 min on 2 cores.
# Records: benchmarks/results/adapt_peg_armgap_${GAP}_narrow_s{0,1}.json (each run's adapt_results.json).
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
RUN=${RUN:-checkpoints/peg-insertion}
GAP=${GAP:-moderate}
NAME=${NAME:-armgap_$GAP}
for seed in ${SEEDS:-0 1}; do
  peg_alg1_to "benchmarks/results/adapt_peg_${NAME}_narrow_s$seed.json" "$RUN" "runs/adapt_peg_${NAME}_s$seed" "$seed" \
    --physics "benchmarks/physics/peg_real_arm_only_$GAP.json" &
done
wait
