#!/bin/bash
# Session 13: the low-friction model (runs/q_lowfric, benchmarks/slope_low_friction_pretrain.sh) loses nearly every
# 0.1 m/s trial on the μ = 0.19 panel although its low-friction data hold ~380 successful slow expert episodes.
# Does more pretraining on the Slippery Slope data alone (course + low-friction course data, 60 % low friction
# instead of 18 %) teach the slow gait? 8,000 warm-start steps, then `real` at μ = 0.19 (3 seeds × 5 trials × 3
# speeds, the same episode seeds as the pretrained rows of slope_upper_bound.jsonl) and randomised `sim`.
# Records: benchmarks/results/slope_low_friction.jsonl ("model": "q_lowfric_slope8k"). One core, ~1 h.
set -e
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
[ -d runs/slope_only_data ] || simdist merge runs/slope_course_data runs/slope_lowfric_data --out runs/slope_only_data
OMP_NUM_THREADS=1 simdist pretrain --data runs/slope_only_data --out runs/q_lowfric_slope8k --init-from runs/q_lowfric \
  --preset quadruped-cpu --steps 8000 --set train.lr=2e-4 --set train.lr_end=1e-4 --set train.warmup_steps=200 --quiet
for seed in 0 1 2; do
  evaluate_to benchmarks/results/slope_low_friction.jsonl "{\"domain\": \"real\", \"panel_friction\": 0.19, \"seed\": $seed, \"model\": \"q_lowfric_slope8k\"}" \
    simdist evaluate slippery-slope --checkpoint runs/q_lowfric_slope8k --domain real --grid all --trials 5 --mppi quadruped-cpu \
    --prior-weight 10 --physics benchmarks/physics/slope_real_mu0.19.json --seed $seed --json
done
evaluate_to benchmarks/results/slope_low_friction.jsonl "{\"domain\": \"sim\", \"seed\": 0, \"model\": \"q_lowfric_slope8k\"}" \
  simdist evaluate slippery-slope --checkpoint runs/q_lowfric_slope8k --domain sim --grid all --trials 5 --mppi quadruped-cpu \
  --prior-weight 10 --seed 0 --json
