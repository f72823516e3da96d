#!/bin/bash
# Issue #3's success condition for the CPU planner preset: is `quadruped-cpu` (64 + 8 samples × 2 iterations) within
# 5 points of the paper's quadruped planner (450 + 22 × 8) on the same model? Foam, `checkpoints/quadruped-cpu`,
# λ = 10 for both, seeds 0-2 of 5 trials × 3 speeds in `sim` and `real`, two evaluations at a time on one core each.
# The quadruped-cpu rows are session 9's (model q_sensor_noise = the shipped one) in quadruped_sensor_noise.jsonl;
# this adds the paper planner's to benchmarks/results/foam_planner_parity.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
MPPI=${MPPI:-paper-quadruped}
source benchmarks/eval_record.sh
for seed in 0 1 2; do
  for domain in sim real; do
    evaluate_to benchmarks/results/foam_planner_parity.jsonl "{\"mppi\": \"$MPPI\", \"seed\": $seed}" \
      simdist evaluate foam --checkpoint checkpoints/quadruped-cpu --domain "$domain" --grid all --trials 5 \
      --mppi "$MPPI" --prior-weight 10 --seed "$seed" --json &
  done
  wait
done
