#!/usr/bin/env bash
# Peg Insertion: the shipped model's BC head polished (session 36's gentle recipe: head only, lr 3e-5, 1,000 steps) on
# 400 clean `sim` episodes of the expert acting on one VIEW of perception (exact = the data's labeller, the control;
# filtered; perceived), then the head alone on 40 `sim` and 40 `real` Narrow trials (seed 1).
# docs/results/peg-insertion.md, session 37. About 15 min a view on one core; two views run side by side with
# OMP_NUM_THREADS=1. Records: benchmarks/results/peg_perceiving_labels.jsonl.
# Usage: VIEW=perceived bash benchmarks/peg_perceiving_labels.sh
set -euo pipefail
R=${R:-runs}
VIEW=${VIEW:?set VIEW to exact, bias, filtered or perceived}
EPISODES=${EPISODES:-400}
OUT=${OUT:-benchmarks/results/peg_perceiving_labels.jsonl}
data="$R/peg_labels_$VIEW"
model="$R/peg_head_labels_$VIEW"
if [ ! -f "$data.json" ]; then  # the generator's summary, written once every episode is
  rm -rf "$data"
  (cd benchmarks && python peg_perceiving_labels.py --view "$VIEW" --episodes "$EPISODES" --out "../$data") \
    | tail -1 > "$data.json.tmp"
  mv "$data.json.tmp" "$data.json"
fi
bash benchmarks/peg_polish_eval.sh "$data" "$model" "$OUT" "$(python -c "import json
labels = json.load(open('$data.json'))
print(json.dumps({'view': '$VIEW', 'labeller_sim_success': labels['success'], 'episodes': labels['episodes']}))")"
