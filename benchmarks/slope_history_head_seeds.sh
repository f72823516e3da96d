#!/usr/bin/env bash
# Session 16: how much of the shipped history head's `real` score is its training seed? Repeats session 15's recipe
# for checkpoints/quadruped-lowfric-history (benchmarks/slope_history_head.sh: the low-friction model's BC head,
# allowed to see the history, trained alone 10,000 steps on quadruped_data_v3) with other finetune seeds (batch order,
# validation split), and evaluates each head, alone and under MPPI (λ = 10), in `real` at μ = 0.19, 3 evaluation
# seeds. Records: benchmarks/results/slope_history_head_seeds.jsonl. ≈ 10 min of training and 10 min of evaluation
# per training seed, one core. Usage: TRAIN_SEEDS="1 2" bash benchmarks/slope_history_head_seeds.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; REC=benchmarks/results/slope_history_head_seeds.jsonl
for ts in ${TRAIN_SEEDS:-1}; do
  OUT=$R/q_lowfric_phist_bc10k_seed$ts
  [ -f "$OUT/model.safetensors" ] || OMP_NUM_THREADS=1 simdist finetune --checkpoint checkpoints/quadruped-lowfric \
    --data "$R/quadruped_data_v3" --out "$OUT" --preset quadruped-cpu --trainable policy --set loss.latent=0 \
    --set loss.bc=1 --sim-replay 0 --steps 10000 --set finetune.batch_size=128 --set finetune.lr=1e-4 --set finetune.lr_end=5e-5 \
    --set finetune.warmup_steps=100 --set finetune.seed="$ts" --set model.policy_sees_history=true --quiet
  slope_mu019_to "$REC" "\"model\": \"q_lowfric_phist_bc10k_seed$ts\", \"train_seed\": $ts" "$OUT" "policy mppi" "0 1 2"
done
