#!/usr/bin/env bash
# Which part of Table Leg's sim-to-real gap costs a checkpoint: `real` with one group of effects put back to the
# `sim` range midpoint (benchmarks/physics/table_leg_real_{perception,arm,grasp,thread,all}_sim.json name the groups,
# TableLegPhysics's GAP_GROUPS, which cover every field in which the two domains differ; simdist.tasks.gaps computes
# the values from the documented physics at run time), staged evaluation of the BC head,
# Narrow grid, SEEDS × TRIALS, two single-thread evaluations at a time. With PID set, that process (a running
# pretraining) is paused meanwhile. Session 29:
#   CKPT=runs/tl_noact_200k/step_045000 PID=$(pgrep -f 'pretrain.*tl_noact_200k') bash benchmarks/table_leg_real_gaps.sh
# Table: python benchmarks/stages_table.py benchmarks/results/table_leg_stages.jsonl --checkpoint CKPT
set -euo pipefail
cd "$(dirname "$0")/.."
: "${CKPT:?the checkpoint to evaluate}"
SEEDS=${SEEDS:-0 1 2 3}; TRIALS=${TRIALS:-10}; REC=${REC:-benchmarks/results/table_leg_stages.jsonl}
GROUPS_=${GROUPS_:-perception arm grasp thread all}
if [ -n "${PID:-}" ]; then trap 'kill -CONT "$PID" 2>/dev/null || true' EXIT; kill -STOP "$PID"; fi
jobs_=()
for g in $GROUPS_; do for s in $SEEDS; do jobs_+=("$g $s"); done; done
for ((i = 0; i < ${#jobs_[@]}; i += 2)); do
  for job in "${jobs_[@]:i:2}"; do
    read -r g s <<< "$job"
    OMP_NUM_THREADS=1 python benchmarks/manipulation_stages.py --task table-leg --checkpoint "$CKPT" --domain real \
      --physics "benchmarks/physics/table_leg_real_${g}_sim.json" --grid narrow --trials "$TRIALS" --seed "$s" \
      --out "$REC" > /dev/null &
  done
  wait
done
