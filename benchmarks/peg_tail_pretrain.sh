#!/usr/bin/env bash
# Peg Insertion (session 43): does the whole world model (Eq. 2, not a head refit) learn the seating push from
# windows in each episode's last T steps (`--set train.tail_windows=true`)? Session 42 found no Peg head had been
# trained on them. Continues the shipped model for STEPS steps on its recipe's 10,000 Alg. 2 episodes (the
# paper-manipulation preset's batch and learning rate, 10 % warmup), with and without tail windows: the arm without
# them controls for the continuation itself. Each arm: the head alone on 40 Narrow trials per domain at every
# 1,000 steps (a Peg head's closed-loop success swings between nearby checkpoints), on 40 Wide trials per domain at
# the end, and the planner (`manipulation-prior`) on 40 Narrow trials per domain at the end (seed 1). About 15 min
# of data on 2 cores, 6 min per 5,000-step continuation (2 threads, compiled), 9 min per planner pair (one thread each).
# STOP / EVERY: stop the run at step STOP of the STEPS-step schedule, keeping a checkpoint every EVERY steps
# (`STOP=500 EVERY=100`: how soon the continuation changes what the head does). LR: a constant learning rate
# instead of the preset's (warmup and decay from 2e-4 to 1e-4). PLANNER=0 skips the planner.
# SEED: the continuation's training seed. EMA: an exponential moving average of the weights
# (TrainConfig.ema_decay, e.g. 0.999; 0 off), which the saved and kept models then are. Resumable; records are
# appended once. Records: benchmarks/results/peg_tail_pretrain.jsonl (figure and summary:
# benchmarks/peg_checkpoint_swing.py).
set -euo pipefail
R=${R:-runs}
STEPS=${STEPS:-5000}
SEED=${SEED:-0}
EMA=${EMA:-0}
ARMS=${ARMS:-"0 1"}
PLANNER=${PLANNER:-1}
STOP=${STOP:-$STEPS}
EVERY=${EVERY:-1000}
PART=$([ "$STOP" = "$STEPS" ] && [ "$EVERY" = 1000 ] || echo "_to${STOP}_every$EVERY")
LR=${LR:-}
SCHEDULE=()
[ -z "$LR" ] || { PART="${PART}_lr$LR";
  SCHEDULE=(--set train.lr="$LR" --set train.lr_end="$LR" --set train.warmup_steps=0); }
RECORDS=${RECORDS:-benchmarks/results/peg_tail_pretrain.jsonl}
[ -f "$R/peg_data/stats.json" ] || { rm -rf "$R/peg_data";
  simdist generate peg-insertion --episodes 10000 --workers 2 --out "$R/peg_data" --quiet; }
evaluate() {  # model tail agent domain grid step
  local out="$1/eval_$3_$4_$5_s1.json"
  [ -f "$out" ] || OMP_NUM_THREADS=1 simdist evaluate peg-insertion --checkpoint "$1" --domain "$4" --grid "$5" \
    --trials 40 --agent "$3" --mppi manipulation-prior --seed 1 --out "$out" --json --quiet > /dev/null
  [ -f "$out.recorded" ] && return 0
  python -c "import json
d = json.load(open('$out'))
print(json.dumps({'model': '$1', 'init_from': 'checkpoints/peg-insertion', 'tail_windows': bool($2),
                  'steps': $6, 'schedule_steps': $STEPS, 'train_seed': $SEED, 'ema_decay': $EMA,
                  'lr': '${LR:-preset}', 'agent': '$3', 'domain': '$4', 'grid': '$5', 'seed': 1, 'trials': 40,
                  'success': d['grids']['$5']['success_rate']}))" >> "$RECORDS"
  touch "$out.recorded"
}
for TAIL in $ARMS; do
  OUT="$R/peg_cont${STEPS}_tail${TAIL}_s$SEED$([ "$EMA" = 0 ] || echo "_ema$EMA")$PART"
  [ -f "$OUT/model.safetensors" ] && [ -f "$OUT/.done" ] || {
    OMP_NUM_THREADS=2 simdist pretrain --data "$R/peg_data" --out "$OUT" --preset paper-manipulation \
      --steps "$STEPS" --init-from checkpoints/peg-insertion --set train.tail_windows=$([ "$TAIL" = 1 ] \
      && echo true || echo false) --set train.seed="$SEED" --set train.compile=true --set train.steps="$STOP" \
      --set train.checkpoint_every="$EVERY" --set train.keep_checkpoints=true --set train.ema_decay="$EMA" \
      "${SCHEDULE[@]}" --quiet > "$OUT.log" 2>&1
    touch "$OUT/.done"; }
  for CK in "$OUT"/step_*; do
    STEP=$((10#${CK##*step_}))
    evaluate "$CK" "$TAIL" policy sim narrow "$STEP" & evaluate "$CK" "$TAIL" policy real narrow "$STEP" & wait
  done
  [ "$STOP" = "$STEPS" ] || continue
  evaluate "$OUT" "$TAIL" policy sim wide "$STEPS" & evaluate "$OUT" "$TAIL" policy real wide "$STEPS" & wait
done
[ "$PLANNER" = 1 ] && [ "$STOP" = "$STEPS" ] || exit 0
for TAIL in $ARMS; do  # the planner after both heads, so that the cheap comparison comes first
  OUT="$R/peg_cont${STEPS}_tail${TAIL}_s$SEED$([ "$EMA" = 0 ] || echo "_ema$EMA")$PART"
  evaluate "$OUT" "$TAIL" mppi sim narrow "$STEPS" & evaluate "$OUT" "$TAIL" mppi real narrow "$STEPS" & wait
done
