#!/usr/bin/env bash
# Session 17: where a slope BC head loses its slow climbs: the head alone on the μ = 0.19 panel in `sim` (clean
# sensors), in `sim` with the `real` sensor noise, and in `real` with the sensor noise off (seeds 0 1 2 each).
# MODELS are checkpoint paths (the record's "model" is the folder name); CONDS are "DOMAIN PHYSICS" pairs.
# Records: benchmarks/results/slope_dagger_rounds.jsonl. ≈ 1–2 min per evaluation on one core.
# Usage: MODELS="checkpoints/quadruped-lowfric-dagger" bash benchmarks/slope_head_noise_diag.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
REC=benchmarks/results/slope_dagger_rounds.jsonl
MODELS=${MODELS:-"checkpoints/quadruped-lowfric-history runs/q_lowfric_phist_dagger1 checkpoints/quadruped-lowfric-dagger"}
CONDS=${CONDS:-"sim:slope_sim_panel_mu0.19 sim:slope_sim_panel_mu0.19_noise real:slope_real_mu0.19_noise_off"}
for seed in ${SEEDS:-0 1 2}; do
  for m in $MODELS; do
    for cond in $CONDS; do
      domain=${cond%%:*}; physics=${cond#*:}
      evaluate_to "$REC" "{\"model\": \"$(basename "$m")\", \"domain\": \"$domain\", \"physics\": \"$physics\", \"agent\": \"policy\", \"seed\": $seed}" \
        simdist evaluate slippery-slope --checkpoint "$m" --domain "$domain" --grid all --trials 5 --agent policy \
        --physics "benchmarks/physics/$physics.json" --seed "$seed" --json
    done
  done
done
