#!/usr/bin/env bash
# Peg Insertion on the GPU machine: Alg. 2 data on its 16 cores, then paper-manipulation pretraining on the GPU.
# Usage (device machine, wheels for mujoco/gymnasium carried in .whl/): OUT=dir bash benchmarks/gpu_peg_pretrain.sh
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:src PYTHONUNBUFFERED=1
out=${OUT:-/tmp}
EPISODES=${EPISODES:-8000}
STEPS=${STEPS:-10000}
[ -f /tmp/peg/stats.json ] || time python3 -m simdist.cli generate peg-insertion --episodes "$EPISODES" --workers 15 --out /tmp/peg --json --quiet \
  | tail -1 > "$out/peg_data_stats.json"
cat "$out/peg_data_stats.json"
# CUDA graphs (TrainConfig.compile_mode): 2.7x the eager steps/s on an H200 (docs/benchmarks.md, session 37); should
# the compiled run fail, the eager one resumes from its last checkpoint.
train() { python3 -m simdist.cli pretrain --data /tmp/peg --out "$out/peg_model" --preset paper-manipulation \
  --steps "$STEPS" --json --quiet "$@" | tail -1 > "$out/peg_pretrain.json"; }
time train --train-set compile=true --train-set compile_mode="${COMPILE_MODE:-reduce-overhead}" || time train
cat "$out/peg_pretrain.json"
rm -f "$out/peg_model/trainer_state.safetensors"
