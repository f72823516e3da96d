#!/usr/bin/env bash
# Session 24: is it the CPU planner's small search that keeps Alg. 1's finetuned dynamics from paying off on the
# foam's slow walk? The `quadruped-cpu` sampler (64 + 8 candidates, 2 iterations) against a 4× larger one (192 + 16,
# 3 iterations, 32 elites; about 70 ms a plan, too slow for 50 Hz on 2 cores, fine on a GPU), both at the λ = 2 of
# the Alg. 1 run, on the zero-shot model (checkpoints/quadruped-foam-dagger) and on the dynamics that run finetuned
# for 14 rounds (29 robot minutes, runs/adapt_foam_offset_dagger_l2_s0/round_14/model). The 0.2 m/s grid only,
# eval seeds SEEDS (default 0 1) × 15 trials in `real`, two evaluations at a time.
# Records: benchmarks/results/foam_big_planner.jsonl. ≈ 12 min per large-planner evaluation on one core.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; REC=benchmarks/results/foam_big_planner.jsonl
ADAPTED=${ADAPTED:-$R/adapt_foam_offset_dagger_l2_s0/round_14/model}
BIG=(--set mppi.samples=192 --set mppi.policy_samples=16 --set mppi.iterations=3 --set mppi.elites=32)
for seed in ${SEEDS:-0 1}; do
  for planner in small big; do
    extra=(); [ "$planner" = big ] && extra=("${BIG[@]}")
    for model in zero_shot adapted_r14; do
      ck=checkpoints/quadruped-foam-dagger; [ "$model" = adapted_r14 ] && ck=$ADAPTED
      evaluate_to "$REC" "{\"model\": \"$model\", \"planner\": \"$planner\", \"prior_weight\": 2, \"seed\": $seed}" \
        simdist evaluate foam --checkpoint "$ck" --domain real --grid 0.2 --trials 15 --agent mppi \
        --mppi quadruped-cpu --prior-weight 2 "${extra[@]}" --seed "$seed" --json &
      [ "$(jobs -rp | wc -l)" -ge 2 ] && wait -n
    done
  done
done
wait
