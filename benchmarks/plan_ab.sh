#!/usr/bin/env bash
# Planner A/B across processes, alternating variants each round (docs/benchmarks.md, issue #3):
#   BEFORE (a commit, eager) | BEFORE with glibc heap retention via env | this tree eager | this tree compiled.
# Usage: BEFORE=55e66be MODEL=paper-quadruped MP=quadruped-cpu ROUNDS=3 bash benchmarks/plan_ab.sh
# Each line: variant tag, then the `simdist bench plan --json` record. Run on an otherwise idle machine.
set -euo pipefail
BEFORE=${BEFORE:-55e66be}; MODEL=${MODEL:-paper-quadruped}; MP=${MP:-quadruped-cpu}; ROUNDS=${ROUNDS:-3}
OLD=$(mktemp -d); trap 'rm -rf "$OLD"' EXIT
git archive "$BEFORE" src | tar -x -C "$OLD"
old_bench() { PYTHONPATH="$OLD/src" python -c "from simdist.cli import main
main(['bench', 'plan', '--preset', '$MODEL', '--mppi', '$MP', '--json', '--quiet'])" 2>/dev/null | tail -1; }
for _ in $(seq 1 "$ROUNDS"); do
  echo "BEFORE $(old_bench)"
  echo "BEFORE+heap $(MALLOC_TRIM_THRESHOLD_=268435456 MALLOC_MMAP_THRESHOLD_=33554432 old_bench)"
  echo "AFTER $(simdist bench plan --preset "$MODEL" --mppi "$MP" --json --quiet 2>/dev/null | tail -1)"
  echo "AFTER+compile $(python -c "import json; from simdist.experiments.bench import bench_plan
print(json.dumps(bench_plan('$MODEL', '$MP', compile=True)))" 2>/dev/null | tail -1)"
done
