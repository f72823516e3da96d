#!/bin/bash
# Peg Insertion baselines with the teleoperator's successful demonstrations (Narrow, 1 seed each).
set -x
cd /work/main
C="simdist compare peg-insertion --sim-data runs/peg10k46 --grid narrow --seeds 1 --quiet --json"
$C --methods simdist_bc --preset cpu --checkpoint runs/peg46/pm35k --mppi manipulation-prior --finetune-steps 1000 --budget 100 --episodes-per-round 20 --out runs/compare_peg_sbc
$C --methods dp --preset paper --budget 20 --episodes-per-round 20 --out runs/compare_peg_dp
$C --methods iql,rlpd,sgft --preset cpu --budget 100 --episodes-per-round 20 --episodes-per-update 20 --out runs/compare_peg_rl
$C --methods dp_cotrain --preset paper --budget 20 --episodes-per-round 20 --out runs/compare_peg_dp
