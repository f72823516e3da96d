#!/usr/bin/env bash
# Peg Insertion (session 45): the pretrained model and the round-4 models of benchmarks/peg_arm_gap_adapt.sh on the
# same 40 Narrow trials (evaluation seed 1, which no Alg. 1 round used) in the arm-gap `real` variant, with the planner
# Alg. 1 deployed (`manipulation-prior`, λ = 1000; PRIOR=100 loosens it). One thread per model, two at a time: about
# 13 min on 2 cores.
# Record: benchmarks/results/peg_arm_gap_eval.jsonl (one row per model).
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
GAP=${GAP:-moderate}
NAME=${NAME:-armgap_$GAP}
PRIOR=${PRIOR:-}  # the planner's prior_weight λ, when not the preset's 1000
physics=benchmarks/physics/peg_real_arm_only_$GAP.json
evaluate() {  # label checkpoint
  evaluate_once_to benchmarks/results/peg_arm_gap_eval.jsonl "runs/armgap/eval_${NAME}_$1${PRIOR:+_prior$PRIOR}.json" \
    "{\"gap\": \"$GAP\", \"model\": \"$1\", \"checkpoint\": \"$2\", \"prior_weight\": \"${PRIOR:-1000}\"}" \
    simdist evaluate peg-insertion --checkpoint "$2" --domain real --physics "$physics" --grid narrow --trials 40 \
    --mppi manipulation-prior ${PRIOR:+--prior-weight $PRIOR} --seed 1
}
mkdir -p runs/armgap
evaluate pretrained checkpoints/peg-insertion &
evaluate round4_s0 "runs/adapt_peg_${NAME}_s0/round_04/model" &
wait
evaluate round4_s1 "runs/adapt_peg_${NAME}_s1/round_04/model"
