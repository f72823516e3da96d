#!/usr/bin/env bash
# Peg Insertion on the GPU machine: Alg. 2 data on its 16 cores, then paper-manipulation pretraining on the GPU.
# Usage (device machine, wheels for mujoco/gymnasium carried in .whl/): OUT=dir bash benchmarks/gpu_peg_pretrain.sh
# Env: EPISODES, STEPS, BATCH, INIT (a checkpoint to start from, e.g. checkpoints/peg-insertion), TOTAL_S (wall
# seconds for the whole script; training stops in time, and the kept checkpoints come back in OUT/step_NNNNNN/),
# GEN_S (the generation's limit), COMPILE_MODE, LR_END.
set -uo pipefail
t0=$(date +%s)
# SKIP_WHEELS=1: a machine that has the package installed already (a rehearsal on the CPU)
[ -n "${SKIP_WHEELS:-}" ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:src PYTHONUNBUFFERED=1
out=${OUT:-/tmp}
exec > >(tee "$out/log.txt") 2>&1
EPISODES=${EPISODES:-8000}
STEPS=${STEPS:-10000}
BATCH=${BATCH:-256}
CHECKPOINT_EVERY=${CHECKPOINT_EVERY:-5000}
data=${DATA_DIR:-/tmp/peg}
SECONDS=0
[ -f "$data/stats.json" ] || timeout "${GEN_S:-600}" python3 -m simdist.cli generate peg-insertion \
  --episodes "$EPISODES" --workers "${WORKERS:-15}" --out "$data" --json --quiet | tail -1 > "$out/peg_data_stats.json"
echo "generation: $SECONDS s"; cat "$out/peg_data_stats.json" 2>/dev/null
init=(); [ -n "${INIT:-}" ] && init=(--init-from "$INIT")
# Continuing from INIT: a short warm-up, then the learning rate annealed to LR_END over the run.
schedule=(--set train.batch_size="$BATCH" --set train.checkpoint_every="$CHECKPOINT_EVERY"
  --set train.val_every="$CHECKPOINT_EVERY" --set train.keep_checkpoints=true)
[ -n "${INIT:-}" ] && schedule+=(--set train.warmup_steps=500 --set train.decay_steps="$STEPS"
  --set train.lr_end="${LR_END:-2e-5}")
train_s=$(( ${TOTAL_S:-3600} - ($(date +%s) - t0) - 20 ))  # 20 s to tidy up
train() { timeout "$((train_s - SECONDS))" python3 -m simdist.cli pretrain --data "$data" --out "$out/peg_model" \
  --preset paper-manipulation --steps "$STEPS" "${init[@]}" "${schedule[@]}" --json --quiet "$@" \
  | tail -1 > "$out/peg_pretrain.json"; }
# CUDA graphs (TrainConfig.compile_mode): 2.7x the eager steps/s on an H200 (docs/benchmarks.md, session 37); should
# the compiled run fail before its time is up, the eager one resumes from its last checkpoint in the time left.
SECONDS=0
train --set train.compile=true --set train.compile_mode="${COMPILE_MODE:-reduce-overhead}"
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$SECONDS" -lt "$((train_s - 60))" ]; then
  echo "compiled run: rc $rc"; train
fi
echo "training: $SECONDS s"; cat "$out/peg_pretrain.json"
# At most 8 files come back, two folders deep: the log, the last model and the two kept checkpoints before it.
rm -rf "$out"/peg_model/trainer_state.* "$out/peg_model/raw" "$out"/peg_*.json
kept=("$out"/peg_model/step_*)
for step_dir in "${kept[@]: -3:2}"; do [ -d "$step_dir" ] && mv "$step_dir" "$out/"; done
rm -rf "$out"/peg_model/step_*
find "$out" -type f | sort
