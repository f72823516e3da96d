#!/bin/bash
# Peg Insertion's diverse-reset lever (issue: Peg that SimDist solves), A against B at the same training budget:
#   A  5,000 Alg. 2 episodes from grid starts (21 min on one worker)
#   B 12,000 episodes, 75 % of them mid-task starts recorded for 5 s (--set data.mid_task_prob=0.75
#     --set data.mid_task_s=5; 32 min on one worker: about 1.5x A's simulator time, 0.85x its steps)
#   C    400 held-out episodes from grid starts (seed 99)
# then the same `paper-manipulation` pretraining on each (36,000 steps at batch 256, lr 3e-4 -> 3e-5, EMA 0.999;
# about 65 min on one thread each, side by side), the held-out BC error on C (all and near-hole expert steps), the
# BC head on both grids and the manipulation-prior planner on Narrow, 40 trials each. Records: DIR/*.json.
#
#   bash benchmarks/peg_resets_ab.sh [DIR]        # default runs/peg_resets_ab; about 2 h 15 min on 2 cores
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-runs/peg_resets_ab}
mkdir -p "$DIR"
export OMP_NUM_THREADS=1
gen() { [ -f "$DIR/$1/stats.json" ] || simdist generate peg-insertion --workers 1 --quiet --json --out "$DIR/$1" "${@:2}" > "$DIR/$1.json"; }
gen A --episodes 5000 --seed 1 &
gen B --episodes 12000 --seed 1 --set data.mid_task_prob=0.75 --set data.mid_task_s=5 &
wait
gen C --episodes 400 --seed 99
train() {
  simdist pretrain --data "$DIR/$1" --out "$DIR/m$1" --preset paper-manipulation --set train.steps=36000 \
    --set train.lr=3e-4 --set train.lr_end=3e-5 --set train.ema_decay=0.999 --set train.keep_checkpoints=true \
    --set train.val_fraction=0.01 --set train.val_every=2000 --quiet > "$DIR/m$1.log" 2>&1
}
train A & train B &
wait
python benchmarks/peg_data_probe.py bc-error "$DIR/C" "$DIR/mA" "$DIR/mB" > "$DIR/bc_error.jsonl"
evaluate() {
  local m=$DIR/m$1
  for g in narrow wide; do
    simdist evaluate peg-insertion --checkpoint "$m" --grid $g --trials 40 --agent policy --quiet --json | tail -1 > "$m.head_$g.json"
  done
  simdist evaluate peg-insertion --checkpoint "$m" --grid narrow --trials 40 --mppi manipulation-prior --quiet --json \
    | tail -1 > "$m.prior_narrow.json"
}
evaluate A & evaluate B &
wait
