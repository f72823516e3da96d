#!/usr/bin/env bash
# Peg Insertion: a diffusion head on the frozen world model pretrained on the perceiving teacher (session 42;
# benchmarks/peg_diffusion_head.py): train it (STEPS, CHUNK, ACTION_STEPS), evaluate it alone on 40 Narrow trials
# per domain (seed 1, as benchmarks/peg_perceiving_teacher.sh) and record its stages on 20 (seed 0, as session 41).
# Needs the model and data of `bash benchmarks/peg_perceiving_teacher.sh` (MODEL, DATA). About 8 min of training
# with 2 threads and 2 min of evaluation on 2 cores. Resumable; records are appended once.
# Records: benchmarks/results/peg_diffusion_head.jsonl, peg_diffusion_head_stages.jsonl.
set -euo pipefail
R=${R:-runs}
MODEL=${MODEL:-$R/peg_teacher}
DATA=${DATA:-$R/peg_teacher_data}
STEPS=${STEPS:-60000}
CHUNK=${CHUNK:-4}
ACTION_STEPS=${ACTION_STEPS:-2}
OUT=${OUT:-$R/peg_diffusion_head}
RAW_OBS=${RAW_OBS:-0}  # 1: condition on the normalised observation too, not only on the latent
SETPOINT_LEAD=${SETPOINT_LEAD:-0}  # 1: condition on the controller set-point's lead over the TCP
TAIL=${TAIL:-0}  # 1: also train on windows that start in each episode's last CHUNK steps
SEED=${SEED:-0}  # the head's training seed (the evaluation keeps seed 1 and the stages seed 0)
script=benchmarks/peg_diffusion_head.py
results=benchmarks/results
if [ ! -f "$OUT/ddpm.safetensors" ]; then
  OMP_NUM_THREADS=2 python $script train --checkpoint "$MODEL" --data "$DATA" --out "$OUT" --steps "$STEPS" \
    --chunk "$CHUNK" --action-steps "$ACTION_STEPS" --log-every 5000 --seed "$SEED" \
    $([ "$RAW_OBS" = 1 ] && echo --raw-obs) $([ "$SETPOINT_LEAD" = 1 ] && echo --setpoint-lead) \
    $([ "$TAIL" = 1 ] && echo --tail-windows)
fi
for domain in sim real; do
  OMP_NUM_THREADS=1 python $script evaluate --out "$OUT" --domain $domain --records $results/peg_diffusion_head.jsonl &
done
wait
for domain in sim real; do
  marker="$OUT/stages_$domain.recorded"
  [ -f "$marker" ] && continue
  (OMP_NUM_THREADS=1 python $script stages --out "$OUT" --domain $domain \
     --records $results/peg_diffusion_head_stages.jsonl > /dev/null && touch "$marker") &
done
wait
