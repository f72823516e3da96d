"""Peg Insertion: how precisely does the world model's BC head reproduce the expert's moves, phase by phase?

The privileged expert drives `sim` episodes (Narrow); at every step the BC head, fed the same observations and the
expert's executed actions as its history, proposes its first action. Per phase of the expert (approach and grasp;
carry; at the mouth: held, peg bottom within 2 cm above the mouth and 5 mm of the axis; inserting) it prints the
expert's horizontal set-point move and the head's error against it, in millimetres (an action of 1 moves the
set-point 4 cm), and how often the head moves the same way (positive dot product).

    python benchmarks/peg_head_precision.py --checkpoint checkpoints/peg-insertion --episodes 20
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from simdist.planning.agent import PolicyAgent
from simdist.tasks.peg_insertion.env import CONTROL
from simdist.tasks.peg_insertion.reward import PegState
from simdist.tasks.peg_insertion.task import PegInsertionTask
from simdist.training.checkpoint import load_model

MOUTH_HEIGHT_M, MOUTH_LATERAL_M = 0.02, 0.005


def phase(state: PegState) -> str:
    above = state.peg_bottom_z - state.hole_pos[2]
    near_axis = state.lateral_to_hole < MOUTH_LATERAL_M
    if near_axis and above < 0:
        return "inserting"
    if not state.grasped:
        return "approach and grasp"
    return "at the mouth" if near_axis and above < MOUTH_HEIGHT_M else "carry"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", default="checkpoints/peg-insertion")
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--grid", default="narrow")
    args = parser.parse_args()
    task = PegInsertionTask()
    agent, env = PolicyAgent(load_model(args.checkpoint)), task.make_env("sim", seed=0)
    mm = CONTROL.max_translation_m * 1e3
    rows: dict[str, list] = {}
    for i, ic in enumerate(task.initial_conditions(args.grid, args.episodes, seed=0)):
        expert = task.expert()
        expert.reset(np.random.default_rng(i))
        obs, _ = env.reset(seed=i, options={"initial_condition": ic})
        agent.reset()
        done = False
        while not done:
            privileged = env.oracle_privileged_state()
            label, head = expert.act(privileged), agent.bc_action(obs)
            rows.setdefault(phase(PegState.from_privileged(privileged)), []).append((label[:2] * mm, head[:2] * mm))
            agent.execute(obs, label)
            obs, _, terminated, truncated, _ = env.step(label)
            done = terminated or truncated
    out = {}
    for name, pairs in rows.items():
        label, head = (np.asarray(x) for x in zip(*pairs))
        moving = np.linalg.norm(label, axis=1) > 1e-3
        same = np.sum(head * label, axis=1)[moving] > 0
        out[name] = {"steps": len(pairs), "expert_move_mm": float(np.median(np.linalg.norm(label, axis=1))),
                     "head_error_mm": float(np.median(np.linalg.norm(head - label, axis=1))),
                     "same_direction": float(np.mean(same)) if moving.any() else None}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
