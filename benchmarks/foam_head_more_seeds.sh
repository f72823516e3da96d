#!/usr/bin/env bash
# Session 24: more evaluation seeds for session 23's Foam comparison, whose 5 trials × 3 speeds × 3 seeds per model
# leave a standard error near 0.06 on a mean and 0.1 on one speed. Each MODELS entry TAG=CHECKPOINT is evaluated
# alone (the BC head, or the baseline's own policy) in `real`, eval seeds SEEDS (default 3 4 5) × 5 trials × 3 speeds,
# two evaluations at a time, rows appended to benchmarks/results/foam_bc_dagger.jsonl under TAG (the tags of session
# 23's rows by default, so pooling needs no new names). ≈ 1 min per evaluation on one core.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; REC=benchmarks/results/foam_bc_dagger.jsonl
MODELS=${MODELS:-"dagger_offset_foam_r2_s0=$R/dagger_offset_foam_s0/model dagger_offset_foam_r2_s1=$R/dagger_offset_foam_s1/model
dagger_bc_foam_s0_build23=$R/dagger_bc_foam_s0/model dagger_bc_foam_s1_build23=$R/dagger_bc_foam_s1/model"}
for seed in ${SEEDS:-3 4 5}; do
  for entry in $MODELS; do
    tag=${entry%%=*}; ck=${entry#*=}
    evaluate_to "$REC" "{\"model\": \"$tag\", \"world\": \"real\", \"agent\": \"policy\", \"seed\": $seed}" \
      simdist evaluate foam --checkpoint "$ck" --domain real --grid all --trials 5 --agent policy --seed "$seed" --json &
    [ "$(jobs -rp | wc -l)" -ge 2 ] && wait -n
  done
done
wait
