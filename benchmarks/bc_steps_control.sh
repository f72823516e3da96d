#!/usr/bin/env bash
# Session 19: BC trained as `simdist dagger` trains it, on simulation expert data instead of DAgger labels
# (benchmarks/bc_steps_control.py), for the BC checkpoints of slope_bc_dagger.sh and foam_bc_dagger.sh; then alone in
# `real` with the same evaluations. TASK=slope|foam, SEED=s. Records: benchmarks/results/bc_steps_control.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; SEED=${SEED:-0}; TASK=${TASK:-slope}; REC=benchmarks/results/bc_steps_control.jsonl
OUT=$R/bc_control_${TASK}_s$SEED; TAG=$(basename "$OUT")
if [ "$TASK" = slope ]; then
  [ -e "$OUT/model" ] || OMP_NUM_THREADS=1 python benchmarks/bc_steps_control.py \
    --bc "$R/compare_slope_mu019_bc/bc/seed_$SEED/checkpoint" --sim-data "$R/quadruped_data_v3" --seed "$SEED" --out "$OUT"
  slope_mu019_to "$REC" "\"model\": \"$TAG\"" "$OUT/model" policy "${SEEDS:-0 1 2}"
else
  [ -e "$OUT/model" ] || OMP_NUM_THREADS=1 python benchmarks/bc_steps_control.py \
    --bc "$R/compare_foam_bc/bc/seed_$SEED/checkpoint" --sim-data "$R/quadruped_data_v2" --seed "$SEED" --out "$OUT" \
    --sensor-noise-steps 0
  for seed in ${SEEDS:-0 1 2}; do
    evaluate_to "$REC" "{\"model\": \"$TAG\", \"domain\": \"real\", \"agent\": \"policy\", \"seed\": $seed}" \
      simdist evaluate foam --checkpoint "$OUT/model" --domain real --grid all --trials 5 --agent policy --seed "$seed" --json
  done
fi
