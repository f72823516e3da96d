#!/usr/bin/env bash
# The GPU-pretrained Peg Insertion checkpoints (benchmarks/gpu_peg_pretrain.sh with INIT=checkpoints/peg-insertion)
# through the stages protocol, 40 independent Narrow trials (seeds 0-3 x 10) per checkpoint, agent and domain.
# Usage: DOMAIN=sim|real RUN=runs/peg_gpu bash benchmarks/peg_gpu_eval.sh   (one domain per core: run two at once)
set -euo pipefail
export OMP_NUM_THREADS=1
run=${RUN:-runs/peg_gpu}
record=${RECORD:-benchmarks/results/peg_gpu_stages.jsonl}
for job in ${JOBS:-peg_model:head peg_model:manipulation-prior step_015000:head step_010000:head}; do
  ckpt=${job%%:*} agent=${job#*:}
  mppi=(); [ "$agent" != head ] && mppi=(--mppi "$agent")
  for seed in 0 1 2 3; do
    python benchmarks/manipulation_stages.py --checkpoint "$run/$ckpt" --grid narrow --trials 10 --seed "$seed" \
      --domain "${DOMAIN:-sim}" "${mppi[@]}" --out "$record" > /dev/null
  done
done
