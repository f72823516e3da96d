#!/bin/bash
# Peg Insertion at the paper's scale on the calibrated benchmark: Alg. 2 data in chunks of 5,000 episodes, then
# `paper-manipulation` pretraining (200,000 steps x 256) keeping every checkpoint for `simdist select`.
# Resumable at every stage: rerun the same command. A chunk without its DONE marker is generated again from its
# seed; pretraining resumes from its last checkpoint (every 10,000 steps).
#
#   bash benchmarks/peg_paper_scale.sh [DIR] [CHUNKS]     # default runs/peg_paper, 4 chunks (20,000 episodes)
#
# Time on 2 cores: about 35 min per chunk with 2 workers; pretraining 9 steps/s on one thread (bf16 matrix units),
# about 6 h. Then pick the checkpoint on `sim` success:
#   simdist select peg-insertion DIR/model --agent mppi --trials 40 --json
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-runs/peg_paper}
CHUNKS=${2:-4}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mkdir -p "$DIR"
for k in $(seq 0 $((CHUNKS - 1))); do
  chunk=$DIR/chunk_$(printf %02d "$k")
  [ -f "$chunk/DONE" ] && continue
  rm -rf "$chunk"
  simdist generate peg-insertion --episodes 5000 --workers 2 --seed $((1000 + k)) --out "$chunk" --json --quiet \
    > "$chunk.log" 2>&1
  touch "$chunk/DONE"
done
if [ ! -f "$DIR/data/MERGED" ]; then
  rm -rf "$DIR/data"
  simdist merge --out "$DIR/data" $(for k in $(seq 0 $((CHUNKS - 1))); do printf "%s/chunk_%02d " "$DIR" "$k"; done)
  touch "$DIR/data/MERGED"
fi
simdist pretrain --data "$DIR/data" --out "$DIR/model" --preset paper-manipulation \
  --set train.keep_checkpoints=true >> "$DIR/pretrain.log" 2>&1
