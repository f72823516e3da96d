#!/usr/bin/env bash
# Session 18: does the Foam DAgger model's finetuned dynamics pay off once the planner may leave the BC chunk?
# Alg. 1 (benchmarks/foam_dagger_adapt.sh) ran at MPPI λ = 10, where the planner stays near the frozen head's chunk,
# and was flat (0.13 -> 0.17). Here the pretrained head (q_foam_dagger1) and its round-4 finetune (seed 0) are each
# evaluated in `real` at a looser prior, λ ∈ {0, 2} and λ = 2 with value_weight = 0.5 (the planner leans on the
# rewards that the finetuned dynamics moves), 5 trials × 3 speeds, seeds 0 1. Two evaluations at a time.
# Records: benchmarks/results/foam_planner_sweep.jsonl ("agent" names the planner setting).
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; PRE=${PRE:-$R/q_foam_dagger1}; FT=${FT:-$R/adapt_foam_dagger_s0/round_04/model}
REC=benchmarks/results/foam_planner_sweep.jsonl
ev() {  # MODEL_TAG CHECKPOINT AGENT_TAG SEED PLANNER_FLAGS...
  local tag=$1 ck=$2 agent=$3 seed=$4
  shift 4
  evaluate_to "$REC" "{\"model\": \"$tag\", \"domain\": \"real\", \"agent\": \"$agent\", \"seed\": $seed}" \
    simdist evaluate foam --checkpoint "$ck" --domain real --grid all --trials 5 --mppi quadruped-cpu --seed "$seed" \
    "$@" --json
}
for seed in ${SEEDS:-0 1}; do
  for setting in "0" "2" "2 value_weight=0.5"; do
    set -- $setting
    lam=$1; extra=(); agent="mppi λ=$lam"
    [ $# -gt 1 ] && { extra=(--set "mppi.$2"); agent="$agent $2"; }
    ev q_foam_dagger1 "$PRE" "$agent" "$seed" --prior-weight "$lam" "${extra[@]}" &
    ev q_foam_dagger1_adapt_s0_r4 "$FT" "$agent" "$seed" --prior-weight "$lam" "${extra[@]}" &
    wait
  done
done
