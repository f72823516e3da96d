#!/usr/bin/env bash
# Compiled planner A/B across processes, alternating each round (docs/benchmarks.md, issue #3): the tree at
# BEFORE (matmul self-attention inside the compiled graph) against this tree (samples-last unrolled
# self-attention, `SelfAttention._samples_last`). Same arithmetic, same FLOP count; records `simdist bench plan`
# JSON lines tagged with the variant into OUT. Run on an otherwise idle machine.
# Usage: BEFORE=dddcc55 ROUNDS=3 OUT=benchmarks/results/cpu_2core_unrolled_ab.jsonl bash benchmarks/plan_unrolled_ab.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=${BEFORE:-dddcc55}; ROUNDS=${ROUNDS:-3}; OUT=${OUT:-benchmarks/results/cpu_2core_unrolled_ab.jsonl}
PAIRS=${PAIRS:-"paper-quadruped:quadruped-cpu-compiled paper-manipulation:paper-manipulation"}
OLD=$(mktemp -d); trap 'rm -rf "$OLD"' EXIT
git archive "$BEFORE" src | tar -x -C "$OLD"
bench() {  # $1: PYTHONPATH ('' for this tree), $2 model preset, $3 MPPI preset
  PYTHONPATH="$1" python -c "import json; from simdist.experiments.bench import bench_plan
print(json.dumps(bench_plan('$2', '$3', compile=True)))" 2>/dev/null | tail -1
}
for _ in $(seq 1 "$ROUNDS"); do
  for pair in $PAIRS; do
    model=${pair%%:*}; mp=${pair##*:}
    for variant in before after; do
      path=""; [ "$variant" = before ] && path="$OLD/src"
      python -c "import json,sys; r=json.loads(sys.argv[1]); r['variant']=sys.argv[2]; r['before_commit']=sys.argv[3]
print(json.dumps(r))" "$(bench "$path" "$model" "$mp")" "$variant" "$BEFORE" | tee -a "$OUT"
    done
  done
done
