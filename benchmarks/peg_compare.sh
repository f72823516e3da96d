#!/bin/bash
# Peg Insertion baselines with the teleoperator's successful demonstrations (Narrow, 1 seed each;
# docs/results/peg-insertion.md). SIM: the 10,000-episode simulation dataset (`benchmarks/peg_world_model.sh` generates
# it); CKPT: the 35k world model (runs/peg46/pm35k in the session that measured it, shipped as
# checkpoints/peg-insertion).
set -x
cd "$(dirname "$0")/.."
SIM=${SIM:-runs/peg10k46}
CKPT=${CKPT:-checkpoints/peg-insertion}
C="simdist compare peg-insertion --sim-data $SIM --grid narrow --seeds 1 --quiet --json"
$C --methods simdist_bc --preset cpu --checkpoint $CKPT --mppi manipulation-prior --finetune-steps 1000 --budget 100 --episodes-per-round 20 --out runs/compare_peg_sbc
$C --methods dp --preset paper --budget 20 --episodes-per-round 20 --out runs/compare_peg_dp
$C --methods iql,rlpd,sgft --preset cpu --budget 100 --episodes-per-round 20 --episodes-per-update 20 --out runs/compare_peg_rl
$C --methods dp_cotrain --preset paper --budget 20 --episodes-per-round 20 --out runs/compare_peg_dpc
