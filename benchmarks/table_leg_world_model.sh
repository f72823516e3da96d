#!/usr/bin/env bash
# Session 25: a Table Leg world model at Peg Insertion's scale (the `cpu` preset's 3,000-step model on 500 episodes
# scored 0.00 everywhere). 4,000 Alg. 2 episodes (≈ 0.86 M transitions, ≈ 30 min with 2 workers), then the
# paper-manipulation architecture for STEPS steps at batch 256 on a schedule that decays over those steps
# (≈ 7 steps/s on the 2 cores), keeping every EVERY-step checkpoint (default 5,000) to pick by closed-loop
# evaluation; then how far the BC head and the planner get through the task's stages in `sim` and `real`, Narrow grid.
# Usage: R=runs STEPS=30000 bash benchmarks/table_leg_world_model.sh
#        NAME=tl_noact MODEL_SET="policy_sees_actions=false" AGENTS=policy R=runs STEPS=24000 EVERY=6000 bash ...
# NAME: the run folder under R (default tl); MODEL_SET: ModelConfig overrides (space-separated); AGENTS: which of
# `policy` and `manipulation-prior` (MPPI) to evaluate (default both).
# Records: benchmarks/results/table_leg_stages.jsonl (one row per checkpoint × domain × agent).
set -euo pipefail
cd "$(dirname "$0")/.."
R=${R:-runs}; STEPS=${STEPS:-30000}; TRIALS=${TRIALS:-10}; REC=benchmarks/results/table_leg_stages.jsonl
[ -f "$R/tl_data/stats.json" ] || simdist generate table-leg --episodes 4000 --workers 2 --out "$R/tl_data" --quiet
NAME=${NAME:-tl}; MS=(); for kv in ${MODEL_SET:-}; do MS+=(--set "model.$kv"); done
simdist pretrain --data "$R/tl_data" --out "$R/$NAME" --preset paper-manipulation --quiet "${MS[@]}" \
  --set train.steps="$STEPS" --set train.warmup_steps=1000 --set train.decay_steps="$STEPS" --set train.lr_end=2e-5 \
  --set train.checkpoint_every="${EVERY:-5000}" --set train.keep_checkpoints=true
for ckpt in ${CKPTS:-$(ls -d "$R/$NAME"/step_* | sort)}; do
  for domain in sim real; do
    for agent in ${AGENTS:-policy manipulation-prior}; do
      MPPI=(); [ "$agent" = policy ] || MPPI=(--mppi "$agent")
      python benchmarks/manipulation_stages.py --task table-leg --checkpoint "$ckpt" --domain "$domain" \
        --grid narrow --trials "$TRIALS" "${MPPI[@]}" --out "$REC"
    done
  done
done
