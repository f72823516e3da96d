#!/usr/bin/env bash
# Session 17: is the Foam DAgger head's `real` loss the sensor noise (as on the slope) or the foam? The BC heads alone
# (benchmarks/foam_dagger.sh's and the shipped one) in `real` with the sensor noise off, seeds 0 1 2.
# Records: benchmarks/results/foam_dagger.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; REC=benchmarks/results/foam_dagger.jsonl
for seed in ${SEEDS:-0 1 2}; do
  for m in "$R/q_foam_dagger1" checkpoints/quadruped-cpu; do
    evaluate_to "$REC" "{\"model\": \"$(basename "$m")\", \"domain\": \"real\", \"physics\": \"foam_real_noise_off\", \"agent\": \"policy\", \"seed\": $seed}" \
      simdist evaluate foam --checkpoint "$m" --domain real --grid all --trials 5 --agent policy \
      --physics benchmarks/physics/foam_real_noise_off.json --seed "$seed" --json
  done
done
