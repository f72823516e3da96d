#!/usr/bin/env bash
# Session 19: does the first-step BC weight (LossConfig.bc_first_step) stop DAgger from hurting Peg Insertion's head, as
# it did on Foam? The head of checkpoints/peg-insertion retrained exactly as `simdist dagger`'s round 1 (5,000 head-only
# steps, half of each batch replayed from runs/peg_sim1k) on round 1's labels of benchmarks/peg_dagger.sh
# (runs/dagger_peg, r01 files), with the first of its 5 chunk steps weighted FIRST more (default 4: half the term);
# FIRST=0 is round 1 as run. Then the head alone, Narrow, 20 trials in `sim`. Records: benchmarks/results/peg_dagger.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; FIRST=${FIRST:-4}; DATA=$R/dagger_peg_round1; OUT=$R/peg_dagger_first$FIRST
if [ ! -d "$DATA" ]; then  # round 1's files alone, linked
  mkdir -p "$DATA/episodes" && cp "$R/dagger_peg/dagger_data/dataset.json" "$DATA/"
  ln -s "$(realpath "$R"/dagger_peg/dagger_data/episodes)"/r01_* "$DATA/episodes/"
fi
[ -f "$OUT/model.safetensors" ] || OMP_NUM_THREADS=1 simdist finetune --checkpoint checkpoints/peg-insertion \
  --data "$DATA" --sim-data "$R/peg_sim1k" --sim-replay 0.5 --out "$OUT" --trainable policy --set loss.latent=0 \
  --set loss.reward=0 --set loss.value=0 --set loss.bc=1 --set loss.bc_first_step="$FIRST" --steps 5000 \
  --set finetune.batch_size=128 --set finetune.lr=1e-4 --set finetune.lr_end=5e-5 --set finetune.warmup_steps=100 --quiet
evaluate_to benchmarks/results/peg_dagger.jsonl "{\"model\": \"$(basename "$OUT")\", \"domain\": \"sim\", \"agent\": \"policy\", \"seed\": 0}" \
  simdist evaluate peg-insertion --checkpoint "$OUT" --domain sim --grid narrow --trials 20 --agent policy --seed 0 --json
