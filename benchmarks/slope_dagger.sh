#!/usr/bin/env bash
# Session 16: one round of DAgger for the slope's history head (benchmarks/slope_dagger.py): the shipped head drives
# in `sim` on randomised slippery panels (μ 0.15–0.4), 60 episodes at 0.1 m/s and 60 at 0.3 m/s, the privileged
# expert labels every state; then the head alone is trained 5,000 steps on those labels with half of each batch
# replayed from its simulation data, and evaluated in `real` at μ = 0.19 (head alone and MPPI, λ = 10).
# Needs runs/quadruped_data_v3 (benchmarks/slope_low_friction_pretrain.sh). Records:
# benchmarks/results/slope_dagger.jsonl. ≈ 5 min of data (two processes), ≈ 5 min of training, one core.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; CKPT=${CKPT:-checkpoints/quadruped-lowfric-history}; OUT=$R/q_lowfric_phist_dagger1
REC=benchmarks/results/slope_dagger.jsonl
for speed in 0.1 0.3; do
  [ -d "$R/slope_dagger_$speed" ] || OMP_NUM_THREADS=1 python benchmarks/slope_dagger.py --checkpoint "$CKPT" \
    --physics benchmarks/physics/sim_panel_friction.json --speeds "$speed" --episodes 60 --out "$R/slope_dagger_$speed" &
done
wait
[ -d "$R/slope_dagger" ] || simdist merge "$R/slope_dagger_0.1" "$R/slope_dagger_0.3" --out "$R/slope_dagger"
[ -f "$OUT/model.safetensors" ] || OMP_NUM_THREADS=1 simdist finetune --checkpoint "$CKPT" --data "$R/slope_dagger" \
  --sim-data "$R/quadruped_data_v3" --sim-replay 0.5 --out "$OUT" --preset quadruped-cpu --trainable policy \
  --set loss.latent=0 --set loss.bc=1 --steps 5000 --set finetune.batch_size=128 --set finetune.lr=1e-4 --set finetune.lr_end=5e-5 \
  --set finetune.warmup_steps=100 --quiet
slope_mu019_to "$REC" '"model": "q_lowfric_phist_dagger1"' "$OUT" "policy mppi" "${SEEDS:-0 1 2}"
