#!/usr/bin/env bash
# Peg Insertion (session 44): session 42's diffusion head on the shipped model's frozen latent, trained on the
# recipe's episodes (runs/peg_data) plus the labels of one `simdist dagger` round in which the shipped head drove
# EPISODES Narrow `sim` episodes (seed 200) and the privileged expert labelled every step. The episode files of both
# are linked into one folder, which benchmarks/peg_diffusion_head.sh trains on (DAgger episodes: their labels, not
# the actions executed), evaluates on 40 Narrow trials per domain (seed 1) and stages on 20. About 4.5 min of
# collection, 3 min of training and 5 min of evaluation on 2 cores. Resumable.
# Records: benchmarks/results/peg_diffusion_head.jsonl, peg_diffusion_head_stages.jsonl.
set -euo pipefail
R=${R:-runs}
EPISODES=${EPISODES:-200}
COLLECTED="$R/peg_dagger44_shipped$EPISODES"
DATA="$R/peg_data_plus_dagger$EPISODES"
if [ ! -f "$COLLECTED/dagger_data/.collected" ]; then
  OMP_NUM_THREADS=1 simdist dagger peg-insertion --checkpoint checkpoints/peg-insertion --sim-data "$R/peg_data" \
    --rounds 1 --episodes-per-grid "$EPISODES" --grid narrow --set dagger.steps=1 --set dagger.sensor_noise_steps=0 \
    --set dagger.eval_episodes_per_grid=0 --set dagger.seed=200 --workers 2 --out "$COLLECTED" --json --quiet > "$COLLECTED.log"
  touch "$COLLECTED/dagger_data/.collected"
fi
if [ ! -d "$DATA/episodes" ]; then
  mkdir -p "$DATA/episodes.partial"
  cp "$R/peg_data/dataset.json" "$R/peg_data/stats.json" "$DATA/"
  for f in "$R"/peg_data/episodes/*.h5; do ln -s "$(realpath "$f")" "$DATA/episodes.partial/"; done
  for f in "$COLLECTED"/dagger_data/episodes/*.h5; do
    ln -s "$(realpath "$f")" "$DATA/episodes.partial/dagger_$(basename "$f")"
  done
  mv "$DATA/episodes.partial" "$DATA/episodes"
fi
MODEL=checkpoints/peg-insertion DATA="$DATA" OUT="$R/peg_diffusion_head_shipped10k_dagger$EPISODES" TAIL=1 \
  SETPOINT_LEAD=1 STEPS=20000 bash benchmarks/peg_diffusion_head.sh
