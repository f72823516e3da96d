#!/usr/bin/env bash
# Session 18: the session-17 slope recipe (benchmarks/slope_dagger.sh + slope_dagger_noise_aug.sh, shipped as
# checkpoints/quadruped-lowfric-dagger) rerun through the package command `simdist dagger`: the history head drives on
# randomised slippery panels in `sim`, 60 episodes at 0.1 and at 0.3 m/s, the privileged expert labels; 5,000
# head-only steps, then 5,000 with the sensor noise. Then the head alone, seeds 0 1 2, in `real` at μ = 0.19 and in
# `sim` on a μ = 0.19 panel with the `real` sensor noise (session 17's selection rule, which needs no real data).
# SEED=s collects with seed 100 + s and trains with seed s (OUT runs/dagger_cli_slope for 0, _s<s> otherwise);
# EVALS picks the evaluations ("real sim_noise"); WORKERS collection processes. Needs runs/quadruped_data_v3.
# Records: benchmarks/results/slope_dagger_cli.jsonl. ≈ 12 min of DAgger on 2 cores, ≈ 1.5 min per evaluation.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; SEED=${SEED:-0}; REC=benchmarks/results/slope_dagger_cli.jsonl
OUT=${OUT:-$R/dagger_cli_slope$([ "$SEED" = 0 ] || echo "_s$SEED")}; TAG=$(basename "$OUT")
dagger_to "$REC" "$OUT" simdist dagger slippery-slope --checkpoint checkpoints/quadruped-lowfric-history \
    --sim-data "$R/quadruped_data_v3" --physics benchmarks/physics/sim_panel_friction.json --grid 0.1 --grid 0.3 \
    --episodes-per-grid 60 --workers "${WORKERS:-2}" --set dagger.seed=$((100 + SEED)) --set dagger.train_seed="$SEED"
for ev in ${EVALS:-real sim_noise}; do
  case $ev in
    real) slope_mu019_to "$REC" "\"model\": \"$TAG\"" "$OUT/model" policy "${SEEDS:-0 1 2}" ;;
    sim_noise) for seed in ${SEEDS:-0 1 2}; do
        evaluate_to "$REC" "{\"model\": \"$TAG\", \"domain\": \"sim\", \"physics\": \"slope_sim_panel_mu0.19_noise\", \"agent\": \"policy\", \"seed\": $seed}" \
          simdist evaluate slippery-slope --checkpoint "$OUT/model" --domain sim --grid all --trials 5 --agent policy \
          --mppi quadruped-cpu --physics benchmarks/physics/slope_sim_panel_mu0.19_noise.json --seed "$seed" --json
      done ;;
  esac
done
