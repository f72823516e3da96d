#!/usr/bin/env bash
# Session 19: does DAgger in `sim` hurt single-step BC on Foam as it hurt SimDist's head (session 17: 0.82 in `sim`,
# 0.29 -> 0.11 alone in `real`)? Single-step BC as in session 11's comparison (runs/quadruped_data_v2, sensor-noise
# augmentation, `simdist compare`), then the Foam head recipe of benchmarks/foam_dagger.sh through `simdist dagger`:
# the policy drives in `sim`, 40 episodes at each of 0.2 / 0.7 / 1.2 m/s, the privileged expert labels, 5,000 steps
# on the labels with half of each batch from the simulation expert data (the augmentation stays on, as in the
# session-17 recipe; no separate noise stage). Then BC before and after, alone in `real` and the DAgger'd one in
# `sim`, eval seeds 0 1 2 × 5 trials × 3 speeds. SEED=s: BC seed s, collection seed 100 + s, training seed s.
# Records: benchmarks/results/foam_bc_dagger.jsonl. ≈ 4 min of DAgger on 2 cores, ≈ 1 min per evaluation.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; SEED=${SEED:-0}; REC=benchmarks/results/foam_bc_dagger.jsonl; BC=$R/compare_foam_bc
if [ ! -f "$BC/bc/seed_$SEED/baseline_results.json" ]; then
  OMP_NUM_THREADS=1 simdist compare foam --methods bc --seeds "$((SEED + 1))" --sim-data "$R/quadruped_data_v2" \
    --checkpoint checkpoints/quadruped-cpu --budget 105 --episodes-per-round 15 --episodes-per-update 15 --grid all \
    --set baseline.sensor_noise_scale=1 --out "$BC" --json --quiet > /dev/null
fi
OUT=$R/dagger_bc_foam_s$SEED; TAG=$(basename "$OUT")
dagger_to "$REC" "$OUT" simdist dagger foam --checkpoint "$BC/bc/seed_$SEED/checkpoint" --sim-data "$R/quadruped_data_v2" \
    --episodes-per-grid 40 --workers "${WORKERS:-2}" --set dagger.seed=$((100 + SEED)) --set dagger.train_seed="$SEED" \
    --set dagger.sensor_noise_steps=0
for seed in ${SEEDS:-0 1 2}; do
  for run in "bc_s$SEED $BC/bc/seed_$SEED/checkpoint real" "$TAG $OUT/model real" "$TAG $OUT/model sim"; do
    set -- $run
    evaluate_to "$REC" "{\"model\": \"$1\", \"domain\": \"$3\", \"agent\": \"policy\", \"seed\": $seed}" \
      simdist evaluate foam --checkpoint "$2" --domain "$3" --grid all --trials 5 --agent policy --seed "$seed" --json
  done
done
