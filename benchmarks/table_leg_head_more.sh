#!/usr/bin/env bash
# Session 28: is Table Leg's BC head limited by its training length? The world model of a finished run (default
# runs/tl_noact/step_024000: 24,000 joint steps, past actions hidden from the head) is frozen and its BC head trains
# on for ROUNDS × STEPS more steps on the same data (head-only training costs a fraction of a joint step), with the
# stage evaluation (BC head, Narrow, `sim` and `real`, seeds 0 and 1 × 10 trials) after each round. If the head
# grasps, lifts and inserts more often with more steps, the joint run to 200,000 steps is worth its 8 hours.
# Usage: bash benchmarks/table_leg_head_more.sh   (≈ 10-15 min per round on one core, ≈ 2 min of evaluation)
#        BASE=runs/tl/step_024000 NAME=tl_head_more bash ...   (the head with the paper's context)
#        BASE=runs/tl/step_024000 NAME=tl_head_actdrop MODEL_SET="policy_action_dropout=0.5" ROUNDS=1 bash ...
# MODEL_SET: ModelConfig fields the finetune may change (space-separated FIELD=VALUE).
# Records: benchmarks/results/table_leg_stages.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
R=${R:-runs}; BASE=${BASE:-$R/tl_noact/step_024000}; NAME=${NAME:-tl_noact_head_more}; STEPS=${STEPS:-5000}
ROUNDS=${ROUNDS:-3}; REC=${REC:-benchmarks/results/table_leg_stages.jsonl}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
MS=(); for kv in ${MODEL_SET:-}; do MS+=(--set "model.$kv"); done
prev=$BASE
for round in $(seq 1 "$ROUNDS"); do
  out=$R/$NAME/round_$round
  # the joint run's schedule ended at 2e-5; each round restarts a short one from 1e-4 down to it
  [ -f "$out/model.safetensors" ] || simdist finetune --checkpoint "$prev" --data "$R/tl_data" --out "$out" \
    --preset cpu --trainable policy --set loss.latent=0 --set loss.bc=1 --sim-replay 0 --steps "$STEPS" \
    --set finetune.batch_size=256 --set finetune.lr=1e-4 --set finetune.lr_end=2e-5 --set finetune.warmup_steps=100 --set finetune.val_every=1000 "${MS[@]}" --quiet
  for domain in sim real; do
    for seed in 0 1; do
      python benchmarks/manipulation_stages.py --task table-leg --checkpoint "$out" --domain "$domain" \
        --grid narrow --trials 10 --seed "$seed" --out "$REC" > /dev/null
    done
  done
  prev=$out
done
python benchmarks/stages_table.py "$REC" --checkpoint "$R/$NAME"
