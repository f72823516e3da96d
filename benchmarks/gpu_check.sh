#!/usr/bin/env bash
# The session's one device call: the GPU benchmarks of benchmarks/gpu_compile.sh, and the paths CI never runs with
# a GPU: the test suite where CUDA is visible (training and finetuning then run on the GPU) and `simdist demo
# --task pendulum` end to end. Tests and demo run beside the compile phase; the timed phase runs alone after them.
# Usage (device machine, mujoco/gymnasium wheels carried in .whl/): OUT=dir bash benchmarks/gpu_check.sh
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
  || exit 1
export PYTHONPATH=/tmp/site:src PYTHONUNBUFFERED=1 MUJOCO_GL=egl
out=${OUT:-/tmp}
{ nvidia-smi --query-gpu=name,driver_version --format=csv; python3 -c "import torch; print(torch.__version__)"; } \
  > "$out/gpu.txt" 2>&1
timeout 240 python3 -m pytest -q -n 6 -p no:cacheprovider tests > "$out/pytest.log" 2>&1 &
(timeout 240 python3 -m simdist.cli demo --task pendulum --out /tmp/demo --json --quiet > "$out/demo.json") \
  2> "$out/demo.log" &
PHASE=cold bash benchmarks/gpu_compile.sh
wait
PHASE=timed bash benchmarks/gpu_compile.sh
