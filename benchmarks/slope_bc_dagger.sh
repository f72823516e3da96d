#!/usr/bin/env bash
# Session 19: the fair baseline for the slope's DAgger head. Single-step BC (the `simdist compare` baseline, trained
# on runs/quadruped_data_v3 as in session 12's comparison) gets exactly the SimDist head's recipe (slope_dagger_cli.sh):
# it drives on randomised slippery panels in `sim`, 60 episodes at 0.1 and at 0.3 m/s, the privileged expert labels;
# 5,000 steps on the labels with half of each batch from the simulation expert data, then 5,000 with the sensor noise.
# Then the BC policy before and after, alone in `real` at μ = 0.19 (`simdist evaluate`, 5 trials × 3 speeds, eval
# seeds 0 1 2), the protocol of the SimDist head's "alone" figures; and the DAgger'd policy in `sim` on a μ = 0.19 panel
# with the `real` sensor noise, the rule that chose the shipped SimDist head without real data. EVALS picks them.
# SEED=s: BC seed s (runs/compare_slope_mu019_bc/bc/seed_s), DAgger collection seed 100 + s, training seed s.
# Records: benchmarks/results/slope_bc_dagger.jsonl. ≈ 5 min of DAgger on 2 cores, ≈ 1 min per evaluation.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; SEED=${SEED:-0}; REC=benchmarks/results/slope_bc_dagger.jsonl
BC=$R/compare_slope_mu019_bc
if [ ! -f "$BC/bc/seed_$SEED/baseline_results.json" ]; then
  OMP_NUM_THREADS=1 simdist compare slippery-slope --methods bc --seeds "$((SEED + 1))" --sim-data "$R/quadruped_data_v3" \
    --checkpoint runs/q_lowfric --budget 60 --episodes-per-round 15 --episodes-per-update 15 --grid all \
    --physics benchmarks/physics/slope_real_mu0.19.json --out "$BC" --json --quiet > /dev/null
fi
OUT=$R/dagger_bc_slope_s$SEED; TAG=$(basename "$OUT")
dagger_to "$REC" "$OUT" simdist dagger slippery-slope --checkpoint "$BC/bc/seed_$SEED/checkpoint" \
    --sim-data "$R/quadruped_data_v3" --physics benchmarks/physics/sim_panel_friction.json --grid 0.1 --grid 0.3 \
    --episodes-per-grid 60 --workers "${WORKERS:-2}" --set dagger.seed=$((100 + SEED)) --set dagger.train_seed="$SEED"
for ev in ${EVALS:-real sim_noise}; do
  case $ev in
    real) slope_mu019_to "$REC" "\"model\": \"bc_s$SEED\"" "$BC/bc/seed_$SEED/checkpoint" policy "${SEEDS:-0 1 2}"
          slope_mu019_to "$REC" "\"model\": \"$TAG\"" "$OUT/model" policy "${SEEDS:-0 1 2}" ;;
    sim_noise) for seed in ${SEEDS:-0 1 2}; do  # the no-real-data selection rule of the SimDist head
        evaluate_to "$REC" "{\"model\": \"$TAG\", \"domain\": \"sim\", \"physics\": \"slope_sim_panel_mu0.19_noise\", \"agent\": \"policy\", \"seed\": $seed}" \
          simdist evaluate slippery-slope --checkpoint "$OUT/model" --domain sim --grid all --trials 5 --agent policy \
          --physics benchmarks/physics/slope_sim_panel_mu0.19_noise.json --seed "$seed" --json
      done ;;
  esac
done
