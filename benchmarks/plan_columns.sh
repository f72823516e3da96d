#!/usr/bin/env bash
# Column-layout scoring (model/columns.py) against the row layout, compiled CPU planner (issue #3,
# docs/benchmarks.md). Alternates the two in separate processes, ROUNDS times, for the quadruped-cpu planner on
# the paper-quadruped model and the paper manipulation configuration; appends `simdist bench plan --json` records,
# tagged with "variant", to benchmarks/results/cpu_2core_columns.jsonl. Run on an otherwise idle machine.
set -euo pipefail
ROUNDS=${ROUNDS:-3}; OUT=${OUT:-benchmarks/results/cpu_2core_columns.jsonl}
tag() { python -c "import json, sys; r = json.loads(sys.stdin.read().splitlines()[-1]); r['variant'] = '$1'
print(json.dumps(r))"; }
for _ in $(seq 1 "$ROUNDS"); do
  for cfg in "paper-quadruped quadruped-cpu" "paper-manipulation paper-manipulation"; do
    set -- $cfg
    for layout in true false; do
      simdist bench plan --preset "$1" --mppi "$2" --set compile=true --set column_layout=$layout --json --quiet \
        2>/dev/null | tag "$1/$2/compiled/columns=$layout" | tee -a "$OUT"
    done
  done
done
