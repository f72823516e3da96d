#!/usr/bin/env bash
# One prepared GPU run: training throughput eager vs torch.compile (default, reduce-overhead = CUDA graphs) and
# larger batches, and planner latency eager vs compiled, both paper presets; the current code's H200 figures.
# Phase 1 compiles every compiled variant at once (parallel processes fill inductor's on-disk cache; their
# first_steps_s are cold compiles under contention); phase 2 times each variant alone, one process after another.
# Usage (device machine): OUT=dir bash benchmarks/gpu_compile.sh   (DEVICE=cpu MANIP=cpu QUAD=cpu: a dry run here;
# PHASE=cold or PHASE=timed runs one phase, as benchmarks/gpu_check.sh does around its other jobs)
set -uo pipefail
export PYTHONPATH=src PYTHONUNBUFFERED=1
out=${OUT:-/tmp}
dev=${DEVICE:-cuda}
manip=${MANIP:-paper-manipulation}
quad=${QUAD:-paper-quadruped}
limit=${LIMIT:-150}
phase=${PHASE:-both}
bench() {  # bench NAME ARGS...: one JSON line appended to $out/NAME.jsonl, stderr kept beside it
  local name=$1; shift
  timeout "$limit" python3 -m simdist.cli bench "$@" --device "$dev" --json --quiet >> "$out/$name.jsonl" \
    2>> "$out/bench.err" || echo "{\"failed\": \"$*\", \"rc\": $?}" >> "$out/$name.jsonl"
}
compiled=(
  "train --preset $manip --compile default"
  "train --preset $manip --compile reduce-overhead"
  "train --preset $manip --compile default --batch 1024"
  "train --preset $quad --amp --compile default"
  "plan --preset $manip --set compile=true"
  "plan --preset $quad --set compile=true"
)
if [ "$phase" != timed ]; then
  date +%T
  for args in "${compiled[@]}"; do bench cold $args --repeats 3 & done
  wait
fi
[ "$phase" = cold ] && exit 0
date +%T
for args in "train --preset $manip" "train --preset $manip --batch 1024" "train --preset $manip --batch 4096" \
    "train --preset $quad --amp" "plan --preset $manip" "plan --preset $quad" "${compiled[@]}"; do
  bench timed $args --repeats 30
done
date +%T
cat "$out/timed.jsonl"
