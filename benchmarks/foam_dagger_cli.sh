#!/usr/bin/env bash
# Session 19: SimDist's Foam head through `simdist dagger` with exactly the flags of benchmarks/foam_bc_dagger.sh (the
# session-17 Foam recipe: the shipped head drives in `sim`, 40 episodes at each of 0.2 / 0.7 / 1.2 m/s, the privileged
# expert labels, 5,000 head-only steps with half of each batch replayed from runs/quadruped_data_v2, the model's own
# sensor-noise augmentation, no separate noise stage), seed for seed against single-step BC given the same recipe.
# Then the head alone in `real` and `sim`, eval seeds 0 1 2 × 5 trials × 3 speeds. SEED=s: collection seed 100 + s,
# training seed s. Records: benchmarks/results/foam_bc_dagger.jsonl (rows `dagger_cli_foam_sS`). ≈ 7 min of DAgger.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; SEED=${SEED:-0}; REC=benchmarks/results/foam_bc_dagger.jsonl; CKPT=checkpoints/quadruped-cpu
OUT=$R/dagger_cli_foam_s$SEED; TAG=$(basename "$OUT")
dagger_to "$REC" "$OUT" simdist dagger foam --checkpoint "$CKPT" --sim-data "$R/quadruped_data_v2" \
    --episodes-per-grid 40 --workers "${WORKERS:-2}" --set dagger.seed=$((100 + SEED)) --set dagger.train_seed="$SEED" \
    --set dagger.sensor_noise_steps=0
for seed in ${SEEDS:-0 1 2}; do
  for domain in real sim; do
    evaluate_to "$REC" "{\"model\": \"$TAG\", \"domain\": \"$domain\", \"agent\": \"policy\", \"seed\": $seed}" \
      simdist evaluate foam --checkpoint "$OUT/model" --domain "$domain" --grid all --trials 5 --agent policy \
      --seed "$seed" --json
  done
done
