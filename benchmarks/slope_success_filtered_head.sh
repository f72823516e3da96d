#!/usr/bin/env bash
# Session 16: success-filtered BC for the slope's history head. In the low-friction course data the expert fails
# about half of its slow episodes (feet μ 0.15–0.4), and the BC term imitates it all the way to each fall. This
# repeats session 15's recipe for checkpoints/quadruped-lowfric-history (the low-friction model's BC head, allowed to
# see the history, trained alone for 10,000 steps) with `--set bc_successful_only=true`, so that the head learns
# only from episodes that reached the finish; then evaluates it in `real` at μ = 0.19 (BC head alone and MPPI).
# Needs runs/quadruped_data_v3 (benchmarks/slope_low_friction_pretrain.sh). Records:
# benchmarks/results/slope_success_filtered_head.jsonl. ≈ 10 min of training, ≈ 1.5 min per evaluation, one core.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; OUT=$R/q_lowfric_phist_succ_bc10k
REC=benchmarks/results/slope_success_filtered_head.jsonl
[ -f "$OUT/model.safetensors" ] || OMP_NUM_THREADS=1 simdist finetune --checkpoint checkpoints/quadruped-lowfric \
  --data "$R/quadruped_data_v3" --out "$OUT" --preset quadruped-cpu --trainable policy --set loss.latent=0 \
  --set loss.bc=1 --sim-replay 0 --steps 10000 --set finetune.batch_size=128 --set finetune.lr=1e-4 --set finetune.lr_end=5e-5 \
  --set finetune.warmup_steps=100 --set finetune.bc_successful_only=true --set model.policy_sees_history=true --quiet
slope_mu019_to "$REC" '"model": "q_lowfric_phist_succ_bc10k"' "$OUT" "policy mppi" "${SEEDS:-0 1 2}"
