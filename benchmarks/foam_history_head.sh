#!/usr/bin/env bash
# Session 15: the history-aware BC head (benchmarks/slope_history_head.sh) on Foam. Trains only the BC head of the
# shipped quadruped-cpu model (sensor-noise augmentation as shipped) on its simulation data with the proprio
# history visible, then evaluates it on Foam in `real` and `sim` (MPPI quadruped-cpu, λ = 10, 5 trials × 3 speeds).
# Needs runs/quadruped_data_v2 (benchmarks/quadruped_data_v2.sh). Records: benchmarks/results/foam_history_head.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; CKPT=${CKPT:-checkpoints/quadruped-cpu}; STEPS=${STEPS:-10000}; SEEDS=${SEEDS:-"0 1 2"}
REC=benchmarks/results/foam_history_head.jsonl
OUT=$R/q_foam_phist_bc$((STEPS / 1000))k
[ -f "$OUT/model.safetensors" ] || OMP_NUM_THREADS=1 simdist finetune --checkpoint "$CKPT" --data "$R/quadruped_data_v2" \
  --out "$OUT" --preset quadruped-cpu --trainable policy --set loss.latent=0 --set loss.bc=1 --sim-replay 0 \
  --steps "$STEPS" --set finetune.batch_size=128 --set finetune.lr=1e-4 --set finetune.lr_end=5e-5 --set finetune.warmup_steps=100 \
  --set model.policy_sees_history=true --quiet
for model in "$OUT" "$CKPT"; do  # the shipped head with the same evaluation seeds, for comparison
  for seed in $SEEDS; do
    for domain in real sim; do
      evaluate_to "$REC" "{\"model\": \"$(basename "$model")\", \"domain\": \"$domain\", \"seed\": $seed}" \
        simdist evaluate foam --checkpoint "$model" --domain "$domain" --grid all --trials 5 --mppi quadruped-cpu \
        --prior-weight 10 --seed "$seed" --json &
    done
    wait
  done
done
