#!/bin/bash
# Session 11 found that the Slippery Slope model cannot walk on μ ≈ 0.2 even in `sim` (the bottom of its foot-friction
# randomisation, 0.2–1.2). This adds Alg. 2 course data with foot friction 0.15–0.4
# (benchmarks/physics/sim_low_foot_friction.json) to quadruped_data_v2, continues pretraining runs/q_v2_nohist on the
# merge, and evaluates in `sim` (randomised, and at the friction floor) and in `real` at panel μ 0.15 / 0.19. Then
# Alg. 1 on the new model at μ = 0.19: `simdist adapt slippery-slope --checkpoint runs/q_lowfric --physics
# benchmarks/physics/slope_real_mu0.19.json --sim-data runs/quadruped_data_v3 …` (docs/results/slippery-slope.md,
# session 11). Records: benchmarks/results/slope_low_friction.jsonl. One core.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}
STEPS=${STEPS:-6000}
SEEDS=${SEEDS:-"0"}
RECORD=benchmarks/results/slope_low_friction.jsonl
OUT=$R/q_lowfric
# Its inputs, if missing: the shipped model before session 9's sensor-noise steps (git history) and quadruped_data_v2
# (benchmarks/quadruped_data_v2.sh, ≈ 12 min on an idle machine).
if [ ! -f "$R/q_v2_nohist/model.safetensors" ]; then
  mkdir -p "$R/q_v2_nohist"
  for f in config.json model.safetensors metrics.jsonl; do
    git show "5445b93^:checkpoints/quadruped-cpu/$f" > "$R/q_v2_nohist/$f"
  done
fi
R="$R" bash benchmarks/quadruped_data_v2.sh
[ -d "$R/slope_lowfric_data" ] || OMP_NUM_THREADS=1 python -m simdist.tasks.quadruped.generate_batched \
  --task slippery-slope --scene course --physics benchmarks/physics/sim_low_foot_friction.json --envs 64 \
  --transitions 600000 --seed 20 --out "$R/slope_lowfric_data"
[ -d "$R/quadruped_data_v3" ] || simdist merge "$R/quadruped_data_v2" "$R/slope_lowfric_data" --out "$R/quadruped_data_v3"
[ -f "$OUT/model.safetensors" ] || OMP_NUM_THREADS=1 simdist pretrain --data "$R/quadruped_data_v3" --out "$OUT" \
  --init-from "$R/q_v2_nohist" --preset quadruped-cpu --steps "$STEPS" --set train.lr=2e-4 --set train.lr_end=1e-4 \
  --set train.warmup_steps=200 --quiet
# The shipped copy (checkpoints/quadruped-lowfric): SHIP=1 bash benchmarks/slope_low_friction_pretrain.sh
if [ "${SHIP:-0}" = 1 ]; then
  mkdir -p checkpoints/quadruped-lowfric && cp "$OUT"/{config.json,model.safetensors,metrics.jsonl} checkpoints/quadruped-lowfric/
fi
for seed in $SEEDS; do
  for model in "$OUT" "$R/q_v2_nohist"; do
    evaluate_to "$RECORD" "{\"domain\": \"sim\", \"foot_friction\": 0.2, \"seed\": $seed}" \
      simdist evaluate slippery-slope --checkpoint "$model" --domain sim --grid all --trials 5 --mppi quadruped-cpu \
      --prior-weight 10 --physics benchmarks/physics/slope_sim_foot_mu0.2.json --seed "$seed" --json
    [ "$model" = "$OUT" ] || continue  # the pretrained model's `real` rows are in slope_friction_sweep.jsonl
    evaluate_to "$RECORD" "{\"domain\": \"sim\", \"seed\": $seed}" \
      simdist evaluate slippery-slope --checkpoint "$model" --domain sim --grid all --trials 5 --mppi quadruped-cpu \
      --prior-weight 10 --seed "$seed" --json
    for mu in 0.19 0.15; do
      evaluate_to "$RECORD" "{\"domain\": \"real\", \"panel_friction\": $mu, \"seed\": $seed}" \
        simdist evaluate slippery-slope --checkpoint "$model" --domain real --grid all --trials 5 --mppi quadruped-cpu \
        --prior-weight 10 --physics benchmarks/physics/slope_real_mu$mu.json --seed "$seed" --json
    done
  done
done
