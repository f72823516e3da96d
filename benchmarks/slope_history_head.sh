#!/usr/bin/env bash
# Session 15: does a BC head that sees the proprioceptive history (policy_sees_history = true, past actions hidden)
# learn the low-friction gait the z_t-only head lacks? Trains only the head of the low-friction model on its own
# simulation data, with and without history, and evaluates on the μ = 0.19 panel in `real` and in `sim`.
# Needs runs/quadruped_data_v3 (benchmarks/slope_low_friction_pretrain.sh). Records:
# benchmarks/results/slope_low_friction.jsonl. One core per job, two at a time; data loading needs ≈ 9 GB per
# finetune. Usage: STEPS="3000 10000" SEEDS="0 1 2" bash benchmarks/slope_history_head.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
R=${R:-runs}; CKPT=${CKPT:-checkpoints/quadruped-lowfric}; STEPS=${STEPS:-"3000 10000"}; SEEDS=${SEEDS:-"0 1 2"}
REC=benchmarks/results/slope_low_friction.jsonl
mkdir -p "$R/q_lowfric_phist_base"
cp "$CKPT"/{model.safetensors,metrics.jsonl} "$R/q_lowfric_phist_base/"
python -c "import json, sys; c = json.load(open(sys.argv[1])); c['model'].update(policy_sees_history=True, policy_sees_actions=False)
json.dump(c, open(sys.argv[2], 'w'), indent=1)" "$CKPT/config.json" "$R/q_lowfric_phist_base/config.json"
head_only() {  # FROM OUT STEPS
  [ -f "$2/model.safetensors" ] || OMP_NUM_THREADS=1 simdist finetune --checkpoint "$1" --data "$R/quadruped_data_v3" \
    --out "$2" --preset quadruped-cpu --trainable policy --loss-set latent=0 --loss-set bc=1 --sim-replay 0 \
    --steps "$3" --set batch_size=128 --set lr=1e-4 --set lr_end=5e-5 --set warmup_steps=100 --quiet
}
ev() {  # NAME DOMAIN PHYSICS SEED
  evaluate_to "$REC" "{\"model\": \"$1\", \"domain\": \"$2\", \"physics\": \"$3\", \"seed\": $4}" \
    simdist evaluate slippery-slope --checkpoint "$R/$1" --domain "$2" --grid all --trials 5 --mppi quadruped-cpu \
    --prior-weight 10 --physics "benchmarks/physics/$3.json" --seed "$4" --json
}
head_only "$CKPT" "$R/q_lowfric_bc3k" 3000 &  # the control: the same training without history
for steps in $STEPS; do head_only "$R/q_lowfric_phist_base" "$R/q_lowfric_phist_bc$((steps / 1000))k" "$steps"; done
wait
ev q_lowfric_bc3k real slope_real_mu0.19 0 &
ev q_lowfric_bc3k sim slope_sim_panel_mu0.19 0 &
wait
for steps in $STEPS; do
  name=q_lowfric_phist_bc$((steps / 1000))k
  ev "$name" sim slope_sim_panel_mu0.19 0 &
  for seed in $SEEDS; do ev "$name" real slope_real_mu0.19 "$seed"; done
  wait
done
