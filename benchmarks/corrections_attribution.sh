#!/bin/bash
# What made cloning operator corrections fail on Slippery Slope at μ = 0.19 (session 14)? From round 0 of
# runs/adapt_corr_mu019_s0 (benchmarks/slope_corrections.sh): hybrids of the pretrained model with the round-1
# finetune's policy head or dynamics (benchmarks/swap_groups.py), and finetunes of the pretrained model (dynamics +
# policy, 2000 steps, half sim replay: what `simdist adapt --corrected-episodes` runs) on relabelled variants of the
# same data (benchmarks/corrections_variants.py). Every model is evaluated in `real` at μ = 0.19, 5 trials × 3 speeds,
# MPPI λ = 10 unless noted. Record: benchmarks/results/corrections_attribution.jsonl. Two processes, one core each.
set -euo pipefail
cd "$(dirname "$0")/.."
source benchmarks/eval_record.sh
RUN=runs/adapt_corr_mu019_s0
RECORD=benchmarks/results/corrections_attribution.jsonl
evaluate() {  # tag model [evaluate options]
  local tag=$1 model=$2
  shift 2
  evaluate_to "$RECORD" "{\"hybrid\": \"$tag\"}" simdist evaluate slippery-slope --checkpoint "$model" --grid all \
    --trials 5 --seed 0 --json "$@"
}
real=(--domain real --physics benchmarks/physics/slope_real_mu0.19.json)
mppi=(--mppi quadruped-cpu --prior-weight 10)
for g in policy dynamics; do
  [ -f runs/hyb_corr_s0r1_$g/model.safetensors ] || python benchmarks/swap_groups.py --base runs/q_lowfric \
    --donor $RUN/round_01/model --groups $g --out runs/hyb_corr_s0r1_$g
done
variant() {  # name source mode tag [suffix finetune options…]
  local name=$1 src=$2 mode=$3 tag=$4 suffix=${5:-}
  shift $(($# < 5 ? $# : 5))
  [ -d runs/$name ] || python benchmarks/corrections_variants.py "$mode" "$src" runs/$name
  [ -f runs/${name}_ft$suffix/model.safetensors ] || OMP_NUM_THREADS=1 simdist finetune --checkpoint runs/q_lowfric \
    --data runs/$name --out runs/${name}_ft$suffix --preset quadruped-cpu --steps 2000 --sim-data runs/quadruped_data_v3 \
    --trainable dynamics,policy --set loss.bc=4 --quiet "$@"
  evaluate "$tag" runs/${name}_ft$suffix "${real[@]}" "${mppi[@]}"
}
(
  evaluate "q_lowfric + round_01 policy of adapt_corr_mu019_s0" runs/hyb_corr_s0r1_policy "${real[@]}" "${mppi[@]}"
  evaluate "q_lowfric + round_01 policy of adapt_corr_mu019_s0, BC head alone" runs/hyb_corr_s0r1_policy \
    "${real[@]}" --agent policy
  variant corr_s0r0_mask1 $RUN/real_data mask-1 "round-0 corrections of s0, first 1 operator steps of each takeover not cloned"
  variant corr_s0r0_zeros $RUN/real_data zeros "round-0 corrected episodes of s0, operator flags cleared (BC on sim replay only), dynamics+policy 2000 steps"
  variant corr_s0r0 $RUN/real_data mask-0 "round-0 corrections of s0 as recorded, BC on real labels only (replay_labels=false), dynamics+policy 2000 steps" _reallabels --set finetune.replay_labels=false
  variant corr_s0r0 $RUN/real_data mask-0 "round-0 corrections of s0 as recorded, dynamics+policy 2000 steps at lr 2e-5 (10x lower)" _lr2e-5 --set finetune.lr=2e-5 --set finetune.lr_end=1e-5
  variant corr_s0r0 $RUN/real_data mask-0 "round-0 corrections of s0 as recorded, dynamics+policy 2000 steps, policy_anchor=30" _anchor30 --set finetune.policy_anchor=30
) &
(
  evaluate "q_lowfric + round_01 dyn of adapt_corr_mu019_s0" runs/hyb_corr_s0r1_dynamics "${real[@]}" "${mppi[@]}"
  evaluate "q_lowfric + round_01 policy of adapt_corr_mu019_s0, sim domain" runs/hyb_corr_s0r1_policy --domain sim \
    "${mppi[@]}"
  variant corr_s0r0_mask25 $RUN/real_data mask-25 "round-0 corrections of s0, first 25 operator steps of each takeover not cloned"
  variant alg2_sub13k runs/slope_real_mu019_alg2 alg2 "privileged Alg. 2 real data, 3.7 robot min (every 7th episode), dynamics+policy 2000 steps"
  variant corr_s0r0_nofall $RUN/real_data nofall "round-0 corrected episodes of s0, operator steps cloned only from episodes that did not fall, dynamics+policy 2000 steps"
  variant corr_s0r0_zeros $RUN/real_data zeros "round-0 corrected episodes of s0, operator flags cleared, no replay labels (policy untrained in effect), dynamics+policy 2000 steps" _reallabels --set finetune.replay_labels=false
  variant corr_s0r0_zeros $RUN/real_data zeros "round-0 corrected episodes of s0, operator flags cleared (BC on sim replay only), dynamics+policy 2000 steps at lr 2e-5" _lr2e-5 --set finetune.lr=2e-5 --set finetune.lr_end=1e-5
) &
wait
