#!/usr/bin/env bash
# Session 19: Foam's DAgger labels used to continue pretraining the whole world model instead of the BC head alone.
# The head-only recipe (foam_dagger_cli.sh) trains the head on a frozen encoder's latents of states the encoder never
# saw, and the head gets worse in `real`, while single-step BC, whose encoder learns with it, gets better
# (foam_bc_dagger.sh). Here the world model trains on the same DAgger data (runs/dagger_cli_foam_sS/dagger_data:
# latent and BC terms) with half of each batch replayed from runs/quadruped_data_v2 (with its reward labels, so the
# reward head follows the encoder), 5,000 steps at `simdist dagger`'s batch and learning rates. The value head stays
# frozen (`simdist finetune` trains a trainable value by TD on the data, the Fig. 10 ablation, not wanted here), so
# MPPI's terminal value reads a moved latent: its rows are a lower bound. Then the head alone and MPPI (λ = 10) in
# `real`, and the head alone in `sim`, eval seeds 0 1 2 × 5 trials × 3 speeds. SEED=s picks the collection.
# START=step starts from the single-step-head model of foam_dagger_step_head.sh's round 1 on the same data
# (runs/dagger_step_foam_sS/round_01, session 20) instead of checkpoints/quadruped-cpu: rows `foam_whole_step_sS`.
# Records: benchmarks/results/foam_bc_dagger.jsonl (rows `foam_whole_sS`). ≈ 10 min of training on one core.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; SEED=${SEED:-0}; REC=benchmarks/results/foam_bc_dagger.jsonl
CKPT=checkpoints/quadruped-cpu; OUT=$R/foam_whole_s$SEED
[ "${START:-}" = step ] && CKPT=$R/dagger_step_foam_s$SEED/round_01 && OUT=$R/foam_whole_step_s$SEED
TAG=$(basename "$OUT")
[ -f "$OUT/model.safetensors" ] || OMP_NUM_THREADS=1 simdist finetune --checkpoint "$CKPT" \
  --data "$R/dagger_cli_foam_s$SEED/dagger_data" --sim-data "$R/quadruped_data_v2" --sim-replay 0.5 --out "$OUT" \
  --preset quadruped-cpu --trainable encoder,history,action_embedding,dynamics,reward,policy \
  --set loss.latent=1 --set loss.reward=1 --set loss.value=0 --set loss.bc=4 --steps 5000 --set finetune.batch_size=128 \
  --set finetune.lr=1e-4 --set finetune.lr_end=5e-5 --set finetune.warmup_steps=100 --set finetune.seed="$SEED" --quiet
for seed in ${SEEDS:-0 1 2}; do
  for run in "real policy" "real mppi" "sim policy"; do
    set -- $run
    evaluate_to "$REC" "{\"model\": \"$TAG\", \"domain\": \"$1\", \"agent\": \"$2\", \"seed\": $seed}" \
      simdist evaluate foam --checkpoint "$OUT" --domain "$1" --grid all --trials 5 --agent "$2" --mppi quadruped-cpu \
      --prior-weight 10 --seed "$seed" --json
  done
done
