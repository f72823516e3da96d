#!/usr/bin/env bash
# Peg Insertion (session 45): the shipped BC head alone on 40 Narrow trials (seed 1) in `real` variants whose gap is the
# arm's dynamics alone (perception and contact put back to `sim`): `real`'s own arm gap (peg_real_arm_only.json), then
# a softer, heavier, later arm (…_moderate, …_strong). About 40 s per variant on one core.
# Record: benchmarks/results/peg_arm_gap_head.jsonl (one row per variant).
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
mkdir -p runs/armgap
for gap in ${GAPS:-arm_only arm_only_moderate arm_only_strong}; do
  evaluate_once_to benchmarks/results/peg_arm_gap_head.jsonl "runs/armgap/head_$gap.json" \
    "{\"physics\": \"peg_real_$gap.json\", \"agent\": \"policy\"}" \
    simdist evaluate peg-insertion --checkpoint checkpoints/peg-insertion --domain real \
    --physics "benchmarks/physics/peg_real_$gap.json" --grid narrow --trials 40 --agent policy --seed 1
done
