#!/usr/bin/env bash
# CPU benchmarks recorded in docs/benchmarks.md. Run on an otherwise idle machine.
set -euo pipefail
for p in paper-manipulation paper-quadruped; do simdist bench plan --preset "$p" --json --quiet | tail -1; done
simdist bench plan --preset paper-quadruped --mppi quadruped-cpu --json --quiet | tail -1
# The same planner with MPPIConfig.compile (torch.compile'd scoring; compile_s = one-off warm-up).
simdist bench plan --preset paper-quadruped --mppi quadruped-cpu-compiled --json --quiet | tail -1
python -c "import json; from simdist.experiments.bench import bench_plan
print(json.dumps(bench_plan('paper-manipulation', 'paper-manipulation', compile=True)))"
for p in paper-manipulation paper-quadruped; do simdist bench train --preset "$p" --repeats 5 --json --quiet | tail -1; done
