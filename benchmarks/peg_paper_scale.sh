#!/bin/bash
# Peg Insertion at the paper's scale on the calibrated benchmark: Alg. 2 data in chunks of 5,000 episodes, then
# `paper-manipulation` pretraining (200,000 steps x 256) keeping every checkpoint for `simdist select`.
# Resumable at every stage: rerun the same command. A chunk without its DONE marker is generated again from its
# seed; pretraining resumes from its last checkpoint (every 10,000 steps).
#
#   bash benchmarks/peg_paper_scale.sh [DIR] [CHUNKS]     # default runs/peg_paper, 4 chunks (20,000 episodes)
#   MODEL=DIR/model_big INIT_FROM=DIR/model/step_110000 bash benchmarks/peg_paper_scale.sh DIR 10
#       more chunks: the merged data is rebuilt for the new count, and a new model folder (MODEL) starts from the
#       weights of INIT_FROM with a fresh schedule; without MODEL the run in DIR/model would resume on the new data.
#
# Time on 2 cores: a chunk in 12-20 min with 2 workers (700 s on an idle Intel VM, 4.1 episodes/s on an AMD one);
# pretraining 9 steps/s on one thread, about 6 h. On a machine with more cores, WORKERS=N generates with N workers
# (other episodes than 2 workers give, so keep N for a run); pretraining takes the GPU where PyTorch sees one
# (docs/scale.md). Then pick the checkpoint on `sim` success:
#   simdist select peg-insertion-tool-frame DIR/model --agent mppi --trials 40 --json
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-runs/peg_paper}
CHUNKS=${2:-4}
WORKERS=${WORKERS:-2}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mkdir -p "$DIR"
for k in $(seq 0 $((CHUNKS - 1))); do
  chunk=$DIR/chunk_$(printf %02d "$k")
  [ -f "$chunk/DONE" ] && continue
  rm -rf "$chunk"
  simdist generate peg-insertion-tool-frame --episodes 5000 --workers "$WORKERS" --seed $((1000 + k)) --out "$chunk" \
    --json --quiet > "$chunk.log" 2>&1
  touch "$chunk/DONE"
done
if [ "$(cat "$DIR/data/MERGED" 2>/dev/null)" != "$CHUNKS" ]; then  # the marker holds the chunk count
  rm -rf "$DIR/data"
  simdist merge --out "$DIR/data" $(for k in $(seq 0 $((CHUNKS - 1))); do printf "%s/chunk_%02d " "$DIR" "$k"; done)
  echo "$CHUNKS" > "$DIR/data/MERGED"
fi
MODEL=${MODEL:-$DIR/model}
simdist pretrain --data "$DIR/data" --out "$MODEL" --preset paper-manipulation ${INIT_FROM:+--init-from "$INIT_FROM"} \
  --set train.keep_checkpoints=true >> "$MODEL.log" 2>&1
