#!/usr/bin/env bash
# Session 16: is the history head's capacity what limits the slow (0.1 m/s) low-friction gait? Starts a BC head
# afresh with an 8× wider feed-forward layer (policy_ffn_dim 512 instead of ffn_dim 64; `--set fresh_policy=true`)
# on the frozen low-friction world model, trains it 30,000 steps on the same simulation data as
# checkpoints/quadruped-lowfric-history, and evaluates it in `real` at μ = 0.19 (BC head alone and MPPI, λ = 10).
# Needs runs/quadruped_data_v3 (benchmarks/slope_low_friction_pretrain.sh). Records:
# benchmarks/results/slope_wide_head.jsonl. ≈ 25 min of training on one core beside two jobs, ≈ 1 min per evaluation.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; CKPT=${CKPT:-checkpoints/quadruped-lowfric-history}; OUT=$R/q_lowfric_whead512
REC=benchmarks/results/slope_wide_head.jsonl
[ -f "$OUT/model.safetensors" ] || OMP_NUM_THREADS=1 simdist finetune --checkpoint "$CKPT" --data "$R/quadruped_data_v3" \
  --out "$OUT" --preset quadruped-cpu --trainable policy --set loss.latent=0 --set loss.bc=1 --sim-replay 0 \
  --steps 30000 --set finetune.batch_size=128 --set finetune.lr=3e-4 --set finetune.lr_end=3e-5 --set finetune.warmup_steps=500 \
  --set finetune.fresh_policy=true --set model.policy_ffn_dim=512 --quiet
slope_mu019_to "$REC" '"model": "q_lowfric_whead512"' "$OUT" "policy mppi" "0 1 2"
