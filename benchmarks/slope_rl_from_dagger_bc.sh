#!/usr/bin/env bash
# Session 20: the RL baselines started from the fair single-step BC policy. On the μ = 0.19 slope single-step BC given
# `simdist dagger`'s recipe climbs in 0.83 alone (slope_bc_dagger.sh, session 19); the paper's quadruped baselines
# start from single-step BC, so RLPD and IQL here start their actor from that DAgger'd policy, seed S from
# runs/dagger_bc_slope_sS/model (`simdist compare --start-policy`), and finetune it in `real` with SimDist's learned
# reward (checkpoints/quadruped-lowfric, the shipped slope model's reward head), updating after every 15 episodes as
# Alg. 1 does; BC deploys the same policy unchanged, under the same protocol (5 trials × 3 speeds per round).
# METHODS (default bc,rlpd,iql), BUDGET real episodes (default 60: 4 rounds), SEEDS (default 3: seeds 0 1 2);
# STD=s explores around the start policy with std s of the action range instead of the preset's 0.05 (`bc_start_std`);
# ALPHA=a starts SAC's temperature at a instead of 1 and WARMUP=n fits only the critics for the first n update calls
# (session 21, docs/baselines.md); ACTOR_LR=x gives the actor learning rate x; ANCHOR=w pulls the actor toward the
# start policy with TD3+BC's weight w (`anchor_weight`, session 22; 0.4 is TD3+BC's α = 2.5).
# Records: benchmarks/results/compare_slope_mu019_from_dagger_bc[_stdS]_METHODS.json and runs/…/METHOD/seed_S (a
# finished seed is reused, so a rerun only rewrites the record).
set -euo pipefail
cd "$(dirname "$0")/.."
R=${R:-runs}; OUT=$R/compare_slope_mu019_from_dagger_bc
EXTRA=()
[ -z "${STD:-}" ] || { OUT+=_std$STD; EXTRA+=(--set baseline.bc_start_std="$STD"); }
[ -z "${ALPHA:-}" ] || { OUT+=_alpha$ALPHA; EXTRA+=(--set baseline.init_temperature="$ALPHA"); }
[ -z "${WARMUP:-}" ] || { OUT+=_warmup$WARMUP; EXTRA+=(--set baseline.critic_warmup_updates="$WARMUP"); }
[ -z "${ACTOR_LR:-}" ] || { OUT+=_actorlr$ACTOR_LR; EXTRA+=(--set baseline.actor_lr="$ACTOR_LR"); }
[ -z "${ANCHOR:-}" ] || { OUT+=_anchor$ANCHOR; EXTRA+=(--set baseline.anchor_weight="$ANCHOR"); }
NAME=$(basename "$OUT")
OMP_NUM_THREADS=1 simdist compare slippery-slope --methods "${METHODS:-bc,rlpd,iql}" --seeds "${SEEDS:-3}" \
  --sim-data "$R/quadruped_data_v3" --checkpoint checkpoints/quadruped-lowfric --budget "${BUDGET:-60}" \
  --episodes-per-round 15 --episodes-per-update 15 --grid all --physics benchmarks/physics/slope_real_mu0.19.json \
  --start-policy "$R/dagger_bc_slope_s{seed}/model" "${EXTRA[@]}" --out "$OUT" --json --quiet > /dev/null
M=${METHODS:-bc,rlpd,iql}; cp "$OUT/compare.json" "benchmarks/results/${NAME}_${M//,/-}.json"
