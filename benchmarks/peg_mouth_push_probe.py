"""Peg Insertion (session 44): does pushing down harder near the hole cost the shipped head its insertions?

benchmarks/peg_head_change.py found that 100 BC steps, which take the shipped head's `sim` success on 40 Narrow
trials from 0.25 to 0.03, move its chunk most in the `mouth` and `insert` phases (benchmarks/peg_bc_phase_probe.py)
and there mostly along z: 0.018 lower (a faster descent, 0.7 mm more per step), towards the expert's labels (0.03
and 0.05 lower than the shipped head's). This adds a fixed `--dz` to the shipped head's z action whenever the
robot's observation puts the held peg in those phases, and nothing else: if the descent is what matters, a
negative offset of that size reproduces the loss and a positive one does not. Each offset drives the same 40
Narrow trials per domain (seed 1) as those probes. `--tilt-gate DEG` instead holds the height (the z action at
least 0) while the held peg is near the hole and its perceived axis (`peg_axis_est`) is more than DEG from vertical:
does the head seat more if it cannot descend with a tilted peg (benchmarks/peg_tilt_trace.py)?

    python benchmarks/peg_mouth_push_probe.py --dz -0.036 -0.018 0 0.018 0.036 \
        --out benchmarks/results/peg_mouth_push_probe.jsonl
    python benchmarks/peg_mouth_push_probe.py --dz 0 --tilt-gate 8 --out benchmarks/results/peg_mouth_push_probe.jsonl
"""

from __future__ import annotations

import argparse
import logging

import numpy as np
import torch
from peg_bc_phase_probe import PHASES, SHIPPED, phase_of
from records import emit

from simdist.eval.rollout import evaluate_grids
from simdist.model.world_model import PROPRIO
from simdist.planning.agent import PolicyAgent
from simdist.tasks import get_task
from simdist.tasks.peg_insertion.layout import PROPRIO as PEG_LAYOUT
from simdist.training.checkpoint import load_model

Z_ACTION = 2  # the set-point's vertical move (simdist.tasks.ur5e.env.next_setpoint)
NEAR_HOLE = (PHASES.index("mouth"), PHASES.index("insert"))


class MouthPushAgent(PolicyAgent):
    """The BC head, with `dz` added to its vertical action while the held peg is near the hole's axis."""

    def __init__(self, model, dz: float, tilt_gate_deg: float | None = None):
        super().__init__(model)
        self.dz, self.tilt_gate_deg, self.near_steps, self.gated_steps = dz, tilt_gate_deg, 0, 0

    def bc_action(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        action = super().bc_action(obs)
        proprio = np.asarray(obs[PROPRIO])
        if phase_of(proprio[None])[0] in NEAR_HOLE:
            action = action.copy()
            action[Z_ACTION] += self.dz
            self.near_steps += 1
            if self.tilt_gate_deg is not None:
                axis_z = abs(PEG_LAYOUT.get(proprio, "peg_axis_est")[2])
                if np.degrees(np.arccos(min(axis_z, 1.0))) > self.tilt_gate_deg and action[Z_ACTION] < 0:
                    action[Z_ACTION] = 0.0
                    self.gated_steps += 1
        return action


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dz", type=float, nargs="+", default=[-0.036, -0.018, 0.0, 0.018, 0.036])
    ap.add_argument("--tilt-gate", type=float, default=None, metavar="DEG")
    ap.add_argument("--checkpoint", default=SHIPPED)
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--domains", nargs="+", default=["sim", "real"])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    torch.set_num_threads(2)
    task, model = get_task("peg-insertion"), load_model(args.checkpoint).eval()
    for dz in args.dz:
        for domain in args.domains:
            agents = []

            def make(env, dz=dz):
                agents.append(MouthPushAgent(model, dz, args.tilt_gate))
                return agents[-1]
            result = evaluate_grids(task, make, domain, ("narrow",), args.trials, seed=1)
            emit({"model": args.checkpoint, "agent": "policy + dz near the hole", "dz": dz, "domain": domain,
                  "tilt_gate_deg": args.tilt_gate, "gated_steps": sum(a.gated_steps for a in agents),
                  "grid": "narrow", "seed": 1, "trials": args.trials,
                  "near_hole_steps": sum(a.near_steps for a in agents),
                  "success": result["grids"]["narrow"]["success_rate"]}, args.out)


if __name__ == "__main__":
    main()
