#!/usr/bin/env bash
# Shared step of the Peg head-polishing benchmarks (peg_perceiving_labels.sh, peg_wide_arm_polish.sh): session 36's
# gentle polish of the shipped model's BC head on DATA (head only, lr 3e-5, 1,000 steps, batch 128), then the head
# alone on 40 `sim` and 40 `real` Narrow trials (seed 1), one JSON record per domain appended to RECORDS with the
# fields of FIELDS (a JSON object) added.
# Usage: bash benchmarks/peg_polish_eval.sh DATA MODEL RECORDS '{"key": "value"}'
set -euo pipefail
data=$1 model=$2 records=$3 fields=${4:-"{}"}
[ -f "$model/model.safetensors" ] || simdist finetune --checkpoint checkpoints/peg-insertion --data "$data" \
  --out "$model" --preset paper-manipulation --steps 1000 --trainable policy --set loss.latent=0 --set loss.bc=4 \
  --set finetune.batch_size=128 --set finetune.warmup_steps=100 --set finetune.lr=3e-5 --set finetune.lr_end=3e-5 --quiet
for domain in sim real; do
  simdist evaluate peg-insertion --checkpoint "$model" --domain "$domain" --grid narrow --trials 40 --agent policy \
    --seed 1 --out "$model/eval_${domain}_s1.json" --json --quiet | tail -1 | python -c "import json, sys
d = json.load(sys.stdin)
print(json.dumps({**json.loads(sys.argv[1]), 'domain': '$domain', 'grid': 'narrow', 'seed': 1, 'trials': 40,
                  'head_success': d['grids']['narrow']['success_rate']}))" "$fields" >> "$records"
done
