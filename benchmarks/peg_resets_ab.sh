#!/bin/bash
# Peg Insertion's data levers (issue: Peg that SimDist solves), arms at the same training budget:
#   A  5,000 Alg. 2 episodes from grid starts (21 min on one worker)
#   B 12,000 episodes, 75 % of them mid-task starts recorded for 5 s (--set data.mid_task_prob=0.75
#     --set data.mid_task_s=5; 32 min on one worker: about 1.5x A's simulator time, 0.85x its steps)
#   D  B with the perceiving teacher in the expert's slot (--set data.teacher=perceiving; 18 min on 2 workers)
#   E  B with mid-task starts taken from runs of the misaligned starter (--set data.mid_task_starter=misaligned: the
#     expert aiming a few mm off the hole, redrawn every ~2 s), so the starts hover, press and stall beside the mouth
#   F  B with the gated teacher in the expert's slot (--set data.teacher=gated: the privileged expert descending only
#     while the camera's current reading puts the peg within 1.5 mm of the hole axis)
#   G  F's data, the BC head without its past actions (--set model.policy_sees_actions=false): with a gate it can
#     see, need it copy its own descent? (trains on DIR/F; with F, about 2 h on 2 cores)
#   H  B with the gated teacher that holds its height while the gate is closed (--set data.teacher=gated-hold)
#     instead of backing up to carry height
#   I  H on the carry-frame task (`peg-insertion`; the arms before it act in `peg-insertion-tool-frame`): while the
#     pads hold the peg, x/y actions are offsets from the perceived alignment point, so a constant output follows
#     the camera with gain 1
#   J  I's flags with the expert that holds still while its pads close (the default since; A-I were recorded with
#     the one that lifted as they closed, so the peg sat 18 mm deep in its hand, not 15, and a head one step late
#     gripped it by its top; rerunning I now makes J)
#   C    400 held-out episodes from grid starts (seed 99)
# then the same `paper-manipulation` pretraining on each (36,000 steps at batch 256, lr 3e-4 -> 3e-5, EMA 0.999;
# about 65 min on one thread each, side by side), the held-out BC error on C (all and near-hole expert steps), the
# BC head on both grids at 18,000, 27,000 and 36,000 steps and the manipulation-prior planner on Narrow, 40 trials
# each, and with B: B's 18,000-step head in `real` with and without the dynamics back to `sim`. Records: DIR/*.json.
#
#   bash benchmarks/peg_resets_ab.sh [DIR [ARM ...]]   # default runs/peg_resets_ab A B; about 2 h 15 min on 2 cores
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-runs/peg_resets_ab}
shift || true
ARMS=("${@:-A B}")
read -r -a ARMS <<< "${ARMS[*]}"
mkdir -p "$DIR"
export OMP_NUM_THREADS=1
declare -A TASK=([I]=peg-insertion [J]=peg-insertion)  # the carry frame; the other arms act in the tool's frame
task() { echo "${TASK[$1]:-peg-insertion-tool-frame}"; }
gen() { [ -f "$DIR/$1/stats.json" ] || simdist generate "$(task "$1")" --quiet --json --out "$DIR/$1" "${@:2}" > "$DIR/$1.json"; }
MID=(--set data.mid_task_prob=0.75 --set data.mid_task_s=5)
declare -A DATA=(
  [A]="--workers 1 --episodes 5000 --seed 1"
  [B]="--workers 1 --episodes 12000 --seed 1 ${MID[*]}"
  [D]="--workers 2 --episodes 12000 --seed 1 ${MID[*]} --set data.teacher=perceiving"
  [E]="--workers 2 --episodes 12000 --seed 1 ${MID[*]} --set data.mid_task_starter=misaligned"
  [F]="--workers 2 --episodes 12000 --seed 1 ${MID[*]} --set data.teacher=gated"
  [H]="--workers 2 --episodes 12000 --seed 1 ${MID[*]} --set data.teacher=gated-hold"
  [I]="--workers 2 --episodes 12000 --seed 1 ${MID[*]} --set data.teacher=gated-hold"
  [J]="--workers 2 --episodes 12000 --seed 1 ${MID[*]} --set data.teacher=gated-hold"
)
declare -A DATA_OF=([G]=F)  # arms trained on another arm's data
declare -A MODEL=([G]="--set model.policy_sees_actions=false")
for data in $(for arm in "${ARMS[@]}"; do echo "${DATA_OF[$arm]:-$arm}"; done | sort -u); do
  # shellcheck disable=SC2086
  gen "$data" ${DATA[$data]} &
done
wait
gen C --workers 1 --episodes 400 --seed 99
train() {
  # shellcheck disable=SC2086
  simdist pretrain --data "$DIR/${DATA_OF[$1]:-$1}" --out "$DIR/m$1" --preset paper-manipulation \
    --set train.steps=36000 --set train.lr=3e-4 --set train.lr_end=3e-5 --set train.ema_decay=0.999 \
    --set train.keep_checkpoints=true --set train.val_fraction=0.01 --set train.val_every=2000 ${MODEL[$1]:-} \
    --quiet > "$DIR/m$1.log" 2>&1
}
for arm in "${ARMS[@]}"; do train "$arm" & done
wait
PROBED=()  # C's actions are tool-frame: the carry-frame arms' BC error on it means nothing
for arm in "${ARMS[@]}"; do [ "$(task "$arm")" = peg-insertion-tool-frame ] && PROBED+=("$DIR/m$arm"); done
[ ${#PROBED[@]} -eq 0 ] || python benchmarks/peg_data_probe.py bc-error "$DIR/C" "${PROBED[@]}" > "$DIR/bc_error.jsonl"
head_eval() { simdist evaluate "$(task "$3")" --checkpoint "$1" --trials 40 --agent policy --quiet --json "${@:4}" | tail -1 > "$2"; }
evaluate() {
  local m=$DIR/m$1
  for g in narrow wide; do
    head_eval "$m" "$m.head_$g.json" "$1" --grid $g
    for s in 018000 027000; do head_eval "$m/step_$s" "$m.step$s.head_$g.json" "$1" --grid $g; done
  done
  simdist evaluate "$(task "$1")" --checkpoint "$m" --grid narrow --trials 40 --mppi manipulation-prior --quiet --json \
    | tail -1 > "$m.prior_narrow.json"
}
for arm in "${ARMS[@]}"; do evaluate "$arm" & done
wait
[[ " ${ARMS[*]} " == *" B "* ]] || exit 0
# B's best head (18,000 steps): the planner beside it, and calibration rule 1b's two `real` cells
m=$DIR/mB/step_018000
simdist evaluate "$(task B)" --checkpoint "$m" --grid narrow --trials 40 --mppi manipulation-prior --quiet --json \
  | tail -1 > "$DIR/mB18.prior_narrow.json" &
head_eval "$m" "$DIR/mB18.head_narrow_real.json" B --grid narrow --domain real
echo '{"with_sim": ["arm", "contact"]}' > "$DIR/dynamics_sim.json"
head_eval "$m" "$DIR/mB18.head_narrow_real_dynamics_sim.json" B --grid narrow --domain real --physics "$DIR/dynamics_sim.json"
wait
