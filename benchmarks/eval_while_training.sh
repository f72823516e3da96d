#!/usr/bin/env bash
# Evaluate each checkpoint of a running pretraining as it lands, on a 2-core machine: pause the trainer (SIGSTOP),
# run the BC head's staged evaluation, SEEDS in parallel single-thread processes (a thread each beside a running
# 2-thread trainer makes both crawl), then resume it (SIGCONT; also on exit, so it is never left stopped).
# Session 29 used it on the 200,000-step Table Leg run:
#   PID=$(pgrep -f 'pretrain.*tl_noact_200k') RUN=runs/tl_noact_200k bash benchmarks/eval_while_training.sh
# TASK (table-leg), DOMAINS ("sim real"), SEEDS ("0 1 2 3"), TRIALS (10 per seed), FROM (the first checkpoint to
# evaluate, e.g. step_030000), REC (benchmarks/results/table_leg_stages.jsonl). A checkpoint × domain whose rows are
# already in REC is skipped; the loop ends when the trainer has exited.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${PID:?the trainer process id}" "${RUN:?the run folder with step_* checkpoints}"
TASK=${TASK:-table-leg}; DOMAINS=${DOMAINS:-sim real}; FROM=${FROM:-step_0}; SEEDS=${SEEDS:-0 1 2 3}; TRIALS=${TRIALS:-10}
REC=${REC:-benchmarks/results/table_leg_stages.jsonl}
trap 'kill -CONT "$PID" 2>/dev/null || true' EXIT
# config.json is written after the weights, so its presence means a complete checkpoint; rows with a `physics`
# override (between "domain" and "seed") are other worlds and do not count.
evaluated() { grep -q "\"checkpoint\": \"$1\", \"agent\": \"policy\".*\"domain\": \"$2\", \"seed\"" "$REC" 2>/dev/null; }
while :; do
  alive=0; kill -0 "$PID" 2>/dev/null && alive=1
  for ckpt in $(ls -d "$RUN"/step_* 2>/dev/null | sort); do
    [ -f "$ckpt/config.json" ] && [[ ! "$(basename "$ckpt")" < "$FROM" ]] || continue
    fresh=0
    for domain in $DOMAINS; do
      evaluated "$ckpt" "$domain" && continue
      fresh=1
      kill -STOP "$PID" 2>/dev/null || true
      for s in $SEEDS; do
        OMP_NUM_THREADS=1 python benchmarks/manipulation_stages.py --task "$TASK" --checkpoint "$ckpt" \
          --domain "$domain" --grid narrow --trials "$TRIALS" --seed "$s" --out "$REC" > /dev/null &
      done
      wait
      kill -CONT "$PID" 2>/dev/null || true
    done
    [ "$fresh" = 0 ] || python benchmarks/stages_table.py "$REC" --checkpoint "$ckpt" | tail -n +3
  done
  [ "$alive" = 1 ] || break
  sleep 60
done
