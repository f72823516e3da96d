#!/usr/bin/env bash
# Peg Insertion: retrain the shipped model's BC head alone (the rest frozen) on 400 fresh Alg. 2 episodes, once with
# the paper's MSE on normalised actions and once adding the error on mu-law companded raw actions (LossConfig.bc_mu =
# 1000), same data, steps, learning rate (LR) and seed; then each head alone in `sim` (Narrow, 40 trials × seeds 1
# and 2) and its action error per phase (benchmarks/peg_head_precision.py). docs/results/peg-insertion.md,
# session 36. About 15 min on 2 cores (generation 4 min on one). Run as `LR=3e-5 STEPS=1000 bash ...` for the
# gentle finetune that lifts the head. Records: benchmarks/results/peg_bc_companding.jsonl.
set -euo pipefail
R=${R:-runs}
STEPS=${STEPS:-1500}
LR=${LR:-2e-4}
EPISODES=${EPISODES:-400}
OUT=benchmarks/results/peg_bc_companding.jsonl
[ -f "$R/peg_gen/stats.json" ] || simdist generate peg-insertion --episodes "$EPISODES" --workers 1 --seed 36 \
  --out "$R/peg_gen" --quiet
for mu in 0 1000; do
  loss=$([ "$mu" = 0 ] && echo mse || echo 'mse + companded')
  model="$R/peg_head_lr${LR}_mu$mu"
  [ -f "$model/model.safetensors" ] || simdist finetune --checkpoint checkpoints/peg-insertion --data "$R/peg_gen" \
    --out "$model" --preset paper-manipulation --steps "$STEPS" --trainable policy --set loss.latent=0 \
    --set loss.bc=4 --set "loss.bc_mu=$mu" --set finetune.batch_size=128 --set finetune.warmup_steps=100 --set "finetune.lr=$LR" \
    --set "finetune.lr_end=$LR" --quiet
  for seed in 1 2; do
    simdist evaluate peg-insertion --checkpoint "$model" --domain sim --grid narrow --trials 40 --agent policy \
      --seed "$seed" --out "$model/eval_sim_s$seed.json" --json --quiet | tail -1 \
      | python -c "import json,sys; d=json.load(sys.stdin); print(json.dumps({'bc_mu': $mu, 'steps': $STEPS, \
'lr': $LR, 'loss': '$loss', 'seed': $seed, 'sim_narrow_head_success': d['grids']['narrow']['success_rate']}))" >> "$OUT"
  done
  python benchmarks/peg_head_precision.py --checkpoint "$model" --episodes 20 \
    | python -c "import json,sys; print(json.dumps({'bc_mu': $mu, 'steps': $STEPS, 'lr': $LR, 'loss': '$loss', \
'precision': json.load(sys.stdin)}))" >> "$OUT"
done
