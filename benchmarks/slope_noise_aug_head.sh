#!/usr/bin/env bash
# Session 17, the control for benchmarks/slope_dagger_noise_aug.sh: the shipped history head trained 5,000 more
# head-only steps on its own simulation data with the task's sensor noise added to its inputs
# (`--set model.sensor_noise_scale=1`), without any DAgger data; evaluated alone in `real` at μ = 0.19 (seeds 0 1 2).
# Needs runs/quadruped_data_v3. Records: benchmarks/results/slope_dagger_rounds.jsonl. ≈ 5 min + 3 evaluations.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; CKPT=${CKPT:-checkpoints/quadruped-lowfric-history}; OUT=$R/q_lowfric_phist_aug
REC=benchmarks/results/slope_dagger_rounds.jsonl
[ -f "$OUT/model.safetensors" ] || OMP_NUM_THREADS=1 simdist finetune --checkpoint "$CKPT" \
  --data "$R/quadruped_data_v3" --sim-replay 0 --out "$OUT" --preset quadruped-cpu --trainable policy \
  --set loss.latent=0 --set loss.bc=1 --steps 5000 --set finetune.batch_size=128 --set finetune.lr=1e-4 --set finetune.lr_end=5e-5 \
  --set finetune.warmup_steps=100 --set model.sensor_noise_scale=1 --quiet
slope_mu019_to "$REC" '"model": "q_lowfric_phist_aug"' "$OUT" "${AGENTS:-policy}" "${SEEDS:-0 1 2}"
