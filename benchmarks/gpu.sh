#!/usr/bin/env bash
# One prepared GPU benchmark run (device machine): planner latency and training throughput, both paper presets.
# Usage: OUT=dir bash benchmarks/gpu.sh   (needs torch with CUDA; mujoco is not needed)
set -uo pipefail
export PYTHONPATH=src PYTHONUNBUFFERED=1
out=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$out/gpu.txt"
python3 - <<'PY' 2>&1 | tee "$out/gpu_bench.jsonl"
import json
from simdist.experiments import bench
for p in ("paper-manipulation", "paper-quadruped"):
    print(json.dumps(bench.bench_plan(p, p, repeats=50, device="cuda")), flush=True)
for p in ("paper-manipulation", "paper-quadruped"):
    for amp in (False, True):
        print(json.dumps(bench.bench_train(p, repeats=30, device="cuda", amp=amp)), flush=True)
PY
