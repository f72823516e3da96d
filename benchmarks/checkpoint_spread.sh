#!/usr/bin/env bash
# How much a task's closed-loop success varies between the kept checkpoints of one pretraining run, and whether the
# checkpoint best in `sim` is also good in `real` (session 43; Peg Insertion's own measurement is
# benchmarks/peg_tail_pretrain.sh). Generates EPISODES Alg. 2 episodes of TASK, pretrains the PRESET model keeping a
# checkpoint every EVERY steps, then `simdist select` evaluates every checkpoint on the same TRIALS trials per domain
# (seed 2), with the BC head alone and with the planner (AGENTS). Defaults: the pendulum's `cpu` run (the demo's
# model, 500 episodes, 3,000 steps) with a checkpoint every 250 steps: a few minutes on 2 cores.
# Resumable; records are appended once. Records: benchmarks/results/checkpoint_spread.jsonl (one `simdist select`
# result per row).
set -euo pipefail
R=${R:-runs}
TASK=${TASK:-pendulum}
PRESET=${PRESET:-cpu}
EPISODES=${EPISODES:-500}
EVERY=${EVERY:-250}
TRIALS=${TRIALS:-20}
AGENTS=${AGENTS:-"policy mppi"}
RECORDS=${RECORDS:-benchmarks/results/checkpoint_spread.jsonl}
DATA="$R/spread_${TASK}_data"
RUN="$R/spread_${TASK}_${PRESET}"
[ -f "$DATA/stats.json" ] || { rm -rf "$DATA"; simdist generate "$TASK" --episodes "$EPISODES" --workers 2 \
  --out "$DATA" --quiet; }
[ -f "$RUN/.done" ] || { simdist pretrain --data "$DATA" --out "$RUN" --preset "$PRESET" \
  --set train.checkpoint_every="$EVERY" --set train.keep_checkpoints=true --quiet > "$RUN.log" 2>&1;
  touch "$RUN/.done"; }
for AGENT in $AGENTS; do
  for DOMAIN in sim real; do
    OUT="$RUN/select_${AGENT}_${DOMAIN}.json"
    [ -f "$OUT" ] || simdist select "$TASK" "$RUN" --agent "$AGENT" --domain "$DOMAIN" --trials "$TRIALS" \
      --seed 2 --out "$OUT" --quiet > /dev/null
    [ -f "$OUT.recorded" ] && continue
    python -c "import json
d = json.load(open('$OUT'))
d.update(run='$RUN', preset='$PRESET', every=$EVERY)
print(json.dumps(d))" >> "$RECORDS"
    touch "$OUT.recorded"
  done
done
