#!/usr/bin/env bash
# Peg Insertion's headline (issues #6, #7) redone with independent episode seeds (session 32; the session-7 figures
# predate them): Alg. 1 from the shipped model on the Narrow and Wide grids, 100 real episodes per run (replaying
# EPISODES fresh Alg. 2 episodes, default 2,000), and with STAGES="adapt bc" single-step BC (`paper` preset) trained
# once per seed on that data on Narrow and deployed as is on Wide (give it the model's 10,000: EPISODES=10000).
# Two single-thread processes at a time (2 cores); the adapt stage took 85 min on a slow 2-core VM (session 32).
# Records: benchmarks/results/adapt_peg_{narrow,wide}_s{0,1}.json, compare_peg_bc${TAG}_{narrow,wide}_s{0,1,2}.json
# (TAG, e.g. _10k, keeps records of another data size apart; R, e.g. runs/peg10k, its runs and data).
set -euo pipefail
R=${R:-runs}
RES=benchmarks/results
TAG=${TAG:-}
record() {  # FILE: stdin's last line, written only when the command produced one (a failure leaves no empty record)
  local tmp; tmp=$(mktemp); tail -1 > "$tmp"; if [ -s "$tmp" ]; then mv "$tmp" "$1"; else rm -f "$tmp"; return 1; fi
}
export OMP_NUM_THREADS=1
[ -f "$R/peg_data/stats.json" ] || \
  simdist generate peg-insertion --episodes "${EPISODES:-2000}" --workers 2 --out "$R/peg_data" --quiet

adapt() {  # GRID SEED: the session-7 recipe (manipulation-prior MPPI, 1,000 dynamics steps per round)
  simdist adapt peg-insertion --checkpoint checkpoints/peg-insertion --rounds 4 --episodes-per-round 20 --grid "$1" \
    --preset cpu --mppi manipulation-prior --finetune-steps 1000 --sim-data "$R/peg_data" --seed "$2" \
    --out "$R/adapt_peg_$1_s$2" --json --quiet | record "$RES/adapt_peg_$1_s$2.json"
}
bc() {  # GRID SEED [--start-policy DIR]
  local grid=$1 seed=$2; shift 2
  simdist compare peg-insertion --methods bc --seeds "$seed," --preset paper --sim-data "$R/peg_data" --budget 20 \
    --episodes-per-round 20 --grid "$grid" --out "$R/compare_peg_bc_${grid}_s$seed" --json --quiet "$@" \
    | record "$RES/compare_peg_bc${TAG}_${grid}_s$seed.json"
}
bc_policy() { find "$R/compare_peg_bc_narrow_s$1" -name config.json -path "*checkpoint*" -printf '%h\n' | head -1; }

for stage in ${STAGES:-adapt}; do
  case $stage in
    adapt) adapt narrow 0 & adapt narrow 1 & wait
           adapt wide 0 & adapt wide 1 & wait ;;
    bc) bc narrow 0 & bc narrow 1 & wait
        bc narrow 2 & bc wide 0 --start-policy "$(bc_policy 0)" & wait
        bc wide 1 --start-policy "$(bc_policy 1)" & bc wide 2 --start-policy "$(bc_policy 2)" & wait ;;
    *) echo "unknown stage $stage (adapt, bc)" >&2; exit 2 ;;
  esac
done
