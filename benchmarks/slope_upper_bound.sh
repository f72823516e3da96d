#!/bin/bash
# What would Alg. 1 need on Slippery Slope? An upper-bound diagnostic with data SimDist never gets: Alg. 2 episodes
# (privileged expert and sub-optimal checkpoints, noise windows) run on the `real` robot (μ = 0.15 panels, sensor
# noise), about 24 robot minutes with true dense rewards and expert-critic values. The pretrained model
# (runs/q_v2_nohist, the Slippery Slope records' model) is finetuned on it, dynamics only as SimDist does (dyn*), the
# dynamics with the BC head (dynbc*, its Eq. 2 term on the expert's real actions) or with the reward and value heads
# (dynrv*, on the true real rewards and expert-critic values), or trained whole on it with the full Eq. 2 loss
# (all*: the encoder learns the real robot too), and evaluated in `real`.
# Records: benchmarks/results/slope_upper_bound.jsonl. One core; VARIANTS, SEEDS and PRIORS select.
# Session 13 asks the same at panel μ = 0.19 of the low-friction model, where it starts at 0.58:
#   CKPT=runs/q_lowfric SIM=runs/quadruped_data_v3 PHYSICS=benchmarks/physics/slope_real_mu0.19.json \
#   REAL=runs/slope_real_mu019_alg2 NAME=slope_ub_mu019 bash benchmarks/slope_upper_bound.sh
# Session 21 asks it on Foam, of the model whose head transfers (TASK=foam, records in RECORD):
#   TASK=foam CKPT=runs/head_on_bc_states_step128_lr1e-3_s0 SIM=runs/foam_course_data REAL=runs/foam_real_alg2 \
#   NAME=foam_ub_step RECORD=benchmarks/results/foam_upper_bound.jsonl VARIANTS=dyn3k PRIORS="10 2" \
#   bash benchmarks/slope_upper_bound.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
TASK=${TASK:-slippery-slope}
CKPT=${CKPT:-runs/q_v2_nohist}
REAL=${REAL:-runs/slope_real_alg2_30min}
SIM=${SIM:-runs/slope_course_data}  # replay (half of each batch), the Slippery Slope part of quadruped_data_v2
SEEDS=${SEEDS:-"0 1 2"}
PRIORS=${PRIORS:-"10"}
VARIANTS=${VARIANTS:-"pretrained dyn3k dyn30k dynbc6k dynrv6k all6k"}
NAME=${NAME:-slope_ub}  # models go to runs/${NAME}_VARIANT
PHYSICS=${PHYSICS:-}  # a `real` physics override (data and evaluation), e.g. another panel friction
physics=()
[ -z "$PHYSICS" ] || physics=(--physics "$PHYSICS")
RECORD=${RECORD:-benchmarks/results/slope_upper_bound.jsonl}
[ -d "$REAL" ] || OMP_NUM_THREADS=1 python -m simdist.tasks.quadruped.generate_batched --task "$TASK" \
  --scene course --domain real --envs 64 --transitions 90000 --seed 10 --out "$REAL" "${physics[@]}"
finetune() {  # name steps [finetune options]
  local out=runs/${NAME}_$1 steps=$2
  shift 2
  [ -f "$out/model.safetensors" ] && return
  OMP_NUM_THREADS=1 simdist finetune --checkpoint "$CKPT" --data "$REAL" --out "$out" --preset quadruped-cpu \
    --steps "$steps" --sim-data "$SIM" --quiet "$@"
}
for v in $VARIANTS; do
  case $v in
    pretrained) model=$CKPT ;;
    dyn3k) finetune dyn3k 3000; model=runs/${NAME}_dyn3k ;;
    dyn30k) finetune dyn30k 30000; model=runs/${NAME}_dyn30k ;;
    dynbc6k) finetune dynbc6k 6000 --trainable dynamics,policy --set loss.bc=4; model=runs/${NAME}_dynbc6k ;;
    dynrv6k) finetune dynrv6k 6000 --trainable dynamics,reward,value --set loss.reward=1 --set loss.value=1
      model=runs/${NAME}_dynrv6k ;;
    all6k) model=runs/${NAME}_all6k
      [ -f "$model/model.safetensors" ] || OMP_NUM_THREADS=1 simdist pretrain --data "$REAL" --out "$model" \
        --init-from "$CKPT" --preset quadruped-cpu --steps 6000 --set train.lr=2e-4 --set train.lr_end=1e-4 \
        --set train.warmup_steps=200 --quiet ;;
    *) echo "unknown variant $v" >&2; exit 2 ;;
  esac
  for prior in $PRIORS; do
    for seed in $SEEDS; do
      evaluate_to "$RECORD" "{\"variant\": \"$v\", \"prior_weight\": $prior, \"seed\": $seed, \"name\": \"$NAME\"}" \
        simdist evaluate "$TASK" --checkpoint "$model" --domain real --grid all --trials 5 \
        --mppi quadruped-cpu --prior-weight "$prior" --seed "$seed" --json "${physics[@]}"
    done
  done
done
