#!/usr/bin/env bash
# Peg Insertion: does BC data in which the expert corrects a misaligned peg near the hole teach the head to look at
# the perceived offset? Polishes the shipped model's BC head alone (session 36's gentle recipe: lr 3e-5, 1,000 steps,
# batch 128, the rest frozen) on 400 fresh Alg. 2 episodes (control) and on the same plus 600 late-aligner episodes
# (benchmarks/peg_late_aligner_data.py; the taking-over expert as it is, or pushing down once within 3 mm), then
# each head alone on 40 Narrow trials x seeds 0-1 in `sim` and `real`, and its gain on the perceived offset
# (benchmarks/peg_aim_probe.py). docs/results/peg-insertion.md, session 40.
# About 10 min on 2 cores. Records: benchmarks/results/peg_late_aligner.jsonl, peg_late_aligner_aim.jsonl.
set -euo pipefail
R=${R:-runs}
OUT=benchmarks/results/peg_late_aligner.jsonl
AIM=benchmarks/results/peg_late_aligner_aim.jsonl
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
[ -f "$R/peg_gen400/stats.json" ] || simdist generate peg-insertion --episodes 400 --workers 1 --seed 36 \
  --out "$R/peg_gen400" --quiet
[ -d "$R/peg_late_aligner/episodes" ] || python benchmarks/peg_late_aligner_data.py --episodes 600 --seed 40 \
  --out "$R/peg_late_aligner"
[ -d "$R/peg_late_aligner_3mm/episodes" ] || python benchmarks/peg_late_aligner_data.py --episodes 600 --seed 40 \
  --takeover-align-tolerance 0.003 --out "$R/peg_late_aligner_3mm"
for late in late late_3mm; do
  [ -d "$R/peg_gen400_$late/episodes" ] || simdist merge "$R/peg_gen400" "$R/peg_${late/late/late_aligner}" \
    --out "$R/peg_gen400_$late" --quiet
done
for data in peg_gen400 peg_gen400_late peg_gen400_late_3mm; do
  model="$R/head_$data"
  [ -f "$model/model.safetensors" ] || simdist finetune --checkpoint checkpoints/peg-insertion --data "$R/$data" \
    --out "$model" --preset paper-manipulation --steps 1000 --trainable policy --set loss.latent=0 \
    --set loss.bc=4 --set finetune.batch_size=128 --set finetune.warmup_steps=100 --set finetune.lr=3e-5 --set finetune.lr_end=3e-5 --quiet
  [ -f "$model/evaluated" ] && continue  # its rows are in the records already
  for domain in sim real; do
    for seed in 0 1; do
      simdist evaluate peg-insertion --checkpoint "$model" --domain "$domain" --grid narrow --trials 40 \
        --agent policy --seed "$seed" --out "$model/eval_${domain}_s$seed.json" --json --quiet | tail -1 \
        | python -c "import json,sys; d=json.load(sys.stdin); print(json.dumps({'data': '$data', \
'domain': '$domain', 'seed': $seed, 'agent': 'policy', 'successes': d['grids']['narrow']['successes'], \
'trials': d['grids']['narrow']['trials']}))" >> "$OUT"
    done
    python benchmarks/peg_aim_probe.py --checkpoint "$model" --domain "$domain" --seed 0 --out "$AIM" > /dev/null
  done
  python benchmarks/peg_aim_probe.py --checkpoint "$model" --driver expert --trials 40 --seed 0 --out "$AIM" > /dev/null
  touch "$model/evaluated"
done
