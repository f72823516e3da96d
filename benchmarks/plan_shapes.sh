#!/usr/bin/env bash
# Does a bigger or smaller MPPI batch use the CPU better? (issue #3, docs/benchmarks.md)
# Alternates candidate counts / iterations of the compiled quadruped-cpu planner on the paper-quadruped model,
# ROUNDS times, in separate processes; appends `simdist bench plan --json` records to benchmarks/results/.
# Run on an otherwise idle machine.
set -euo pipefail
ROUNDS=${ROUNDS:-2}; OUT=${OUT:-benchmarks/results/cpu_2core_plan_shapes.jsonl}
VARIANTS=("" "--set mppi.samples=128 --set mppi.iterations=1" "--set mppi.samples=120 --set mppi.iterations=1 --set mppi.elites=24"
          "--set mppi.samples=96" "--set mppi.samples=184 --set mppi.iterations=1")
for _ in $(seq 1 "$ROUNDS"); do
  for v in "${VARIANTS[@]}"; do
    # shellcheck disable=SC2086
    simdist bench plan --preset paper-quadruped --mppi quadruped-cpu-compiled $v --json --quiet 2>/dev/null \
      | tail -1 | tee -a "$OUT"
  done
done
