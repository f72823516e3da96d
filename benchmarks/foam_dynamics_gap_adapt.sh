#!/bin/bash
# Foam adaptation when the `real` gap is dynamics only: the `real` domain with its sensor noise switched off
# (benchmarks/physics/foam_real_noise_off.json), so what differs from `sim` is the compliant foam and the fixed robot.
# Session 9 measured that the sensor noise, which no dynamics finetuning can undo, is most of Foam's gap; this asks
# whether Alg. 1 recovers the rest. Seeds × prior weights, two runs at a time (one core each); records in
# benchmarks/results/adapt_foam_nonoise_l{λ}_s{seed}.json.
set -euo pipefail
cd "$(dirname "$0")/.."
CKPT=${CKPT:-checkpoints/quadruped-cpu}
SIM=${SIM:-runs/quadruped_data_v2}
SEEDS=${SEEDS:-"0 1 2"}
PRIORS=${PRIORS:-"10 2"}
run() {  # prior seed
  local out=runs/adapt_foam_nonoise_l$1_s$2
  OMP_NUM_THREADS=1 simdist adapt foam --checkpoint "$CKPT" --rounds 6 --episodes-per-round 15 --grid all \
    --preset quadruped-cpu --prior-weight "$1" --physics benchmarks/physics/foam_real_noise_off.json \
    --sim-data "$SIM" --seed "$2" --out "$out" --quiet --json > "$out.log" 2>&1
  tail -n 1 "$out.log" > "benchmarks/results/adapt_foam_nonoise_l$1_s$2.json"
}
for seed in $SEEDS; do
  pids=()
  for prior in $PRIORS; do run "$prior" "$seed" & pids+=($!); done
  wait "${pids[@]}"
done
