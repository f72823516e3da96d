#!/usr/bin/env bash
# Peg Insertion (session 44): are the expert's labels harmful on the states the head itself visits? benchmarks/
# peg_bc_phase_probe.py found that 100 BC steps at 2e-6 on the recipe's labels (runs/peg_data), in whichever phase
# with the peg in hand, cost the shipped head its `sim` insertions, and that in those labels the held peg is almost
# never tilted. Here the labels are DAgger's instead (`simdist dagger`, round 1 only: a head drives 60 Narrow `sim`
# episodes, seed 100, and the privileged expert labels every step): on the shipped head's own states, and on those of
# two heads that those 100 steps made descend with the peg tilted (peg_probe_phase_{only_insert,all}). The same 100
# BC-alone steps at a constant 2e-6 with tail windows from the shipped model, then the head alone on the same 40
# Narrow trials per domain (seed 1) via `simdist select`. Needs runs/peg_data and the phase probe's runs. About 1.5
# min per collection and 1 min per probe on 2 cores; resumable; records are appended once. Their gradients agree from
# batch to batch, so these 100 steps move the head about 4.6x further than on the recipe's labels (weight RMS 1.7e-4
# against 3.7e-5); `python benchmarks/peg_bc_phase_probe.py --data … --lr 4e-7` matches the size.
# Record: benchmarks/results/peg_dagger_label_probe.jsonl.
set -euo pipefail
source "$(dirname "$0")/eval_record.sh"
R=${R:-runs}
RECORDS=${RECORDS:-benchmarks/results/peg_dagger_label_probe.jsonl}
collect() {  # name, driving head
  local out="$R/peg_dagger44_$1"
  [ -f "$out/dagger_data/.collected" ] && return
  OMP_NUM_THREADS=1 simdist dagger peg-insertion --checkpoint "$2" --sim-data "$R/peg_data" --rounds 1 \
    --episodes-per-grid 60 --grid narrow --set dagger.steps=1 --set dagger.sensor_noise_steps=0 --set dagger.eval_episodes_per_grid=0 \
    --workers 2 --out "$out" --json --quiet > "$out.log" 2>&1
  touch "$out/dagger_data/.collected"
}
probe() {  # name: 100 BC-alone steps from the shipped model on that collection's labels, each head in both domains
  local data="$R/peg_dagger44_$1/dagger_data" out="$R/peg_probe_dagger_$1"
  [ -f "$out/.done" ] || { OMP_NUM_THREADS=2 simdist pretrain --data "$data" --out "$out" \
    --preset paper-manipulation --steps 5000 --init-from checkpoints/peg-insertion --set train.steps=100 \
    --set train.lr=2e-6 --set train.lr_end=2e-6 --set train.warmup_steps=0 --set train.tail_windows=true \
    --set loss.latent=0 --set loss.reward=0 --set loss.value=0 --quiet > "$out.log" 2>&1; touch "$out/.done"; }
  peg_head_select_to "$RECORDS" "$out" "{\"model\": \"$out\", \"bc_labels\": \"dagger round 1 driven by $2\",
    \"losses\": \"bc alone\", \"steps\": 100, \"lr\": 2e-6, \"tail_windows\": true}"
}
collect shipped checkpoints/peg-insertion
collect only_insert "$R/peg_probe_phase_only_insert"
collect all "$R/peg_probe_phase_all"
probe shipped checkpoints/peg-insertion
probe only_insert "$R/peg_probe_phase_only_insert"
probe all "$R/peg_probe_phase_all"
