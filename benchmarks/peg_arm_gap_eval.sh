#!/usr/bin/env bash
# Peg Insertion (session 45): the pretrained model and the round-4 models of benchmarks/peg_arm_gap_adapt.sh on the
# same 40 Narrow trials (evaluation seed 1, which no Alg. 1 round used) in the arm-gap `real` variant, with the planner
# Alg. 1 deployed (`manipulation-prior`, λ = 1000; PRIOR=100 loosens it). One thread per model, two at a time: about
# 13 min on 2 cores.
# Record: benchmarks/results/peg_arm_gap_eval.jsonl (one row per model).
set -euo pipefail
GAP=${GAP:-moderate}
NAME=${NAME:-armgap_$GAP}
TRIALS=${TRIALS:-40}
PRIOR=${PRIOR:-}  # the planner's prior_weight λ, when not the preset's 1000
tag=${PRIOR:+_prior$PRIOR}
physics=benchmarks/physics/peg_real_arm_only_$GAP.json
rec=benchmarks/results/peg_arm_gap_eval.jsonl
evaluate() {  # label checkpoint
  local out=runs/armgap/eval_${NAME}_$1$tag.json
  [ -f "$out" ] || OMP_NUM_THREADS=1 simdist evaluate peg-insertion --checkpoint "$2" --domain real --physics "$physics" \
    --grid narrow --trials "$TRIALS" --mppi manipulation-prior ${PRIOR:+--prior-weight $PRIOR} --seed 1 --out "$out" \
    --quiet > /dev/null
  python -c "import json; d = json.load(open('$out')); g = d['grids']['narrow']
print(json.dumps(dict(gap='$GAP', model='$1', checkpoint='$2', prior_weight='${PRIOR:-1000}', trials=g['trials'],
                      success_rate=g['success_rate'],
                      success_ci95=g['success_ci95'])))" >> "$rec"
}
mkdir -p runs/armgap
evaluate pretrained checkpoints/peg-insertion &
evaluate round4_s0 "runs/adapt_peg_${NAME}_s0/round_04/model" &
wait
evaluate round4_s1 "runs/adapt_peg_${NAME}_s1/round_04/model"
