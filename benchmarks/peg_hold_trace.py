"""Where a Peg Insertion BC head first loses its hold on the peg, and what it commands the gripper just before.

    python benchmarks/peg_hold_trace.py runs/peg_gpu/peg_model checkpoints/peg-insertion [--trials 6] [--domain sim]

Per episode (Narrow grid, seed 0), from the env's diagnostic oracle: the step the peg is first held (`PegState.grasped`:
the gripper closing on it with the peg in place between the pads), the first step after that it is not, the peg's
lateral distance to the hole axis and insertion depth there, and the gripper command of the last 5 steps (1 = close).
"""

from __future__ import annotations

import argparse

import numpy as np
from manipulation_stages import recorded_episodes

from simdist.planning.agent import PolicyAgent
from simdist.tasks.peg_insertion import reward as peg_reward
from simdist.tasks.registry import get_task
from simdist.training.checkpoint import load_model


def traced_episodes(checkpoint: str, domain: str, trials: int) -> list[list[tuple]]:
    """Per episode and step: the action, and the oracle's hold, lateral distance (mm) and depth (mm)."""
    task = get_task("peg-insertion")
    env = task.make_env(domain, None, seed=0)
    episodes = recorded_episodes(task, env, PolicyAgent(load_model(checkpoint)), "narrow", trials, 0)
    traced = []
    for infos in episodes:
        states = [(i["action"], peg_reward.PegState.from_privileged(i["privileged"])) for i in infos]
        traced.append([(a, s.grasped, 1e3 * s.lateral_to_hole, 1e3 * s.insertion_depth) for a, s in states])
    return traced


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("checkpoints", nargs="+")
    p.add_argument("--trials", type=int, default=6)
    p.add_argument("--domain", default="sim", choices=("sim", "real"))
    args = p.parse_args()
    for checkpoint in args.checkpoints:
        for steps in traced_episodes(checkpoint, args.domain, args.trials):
            held = [s[1] for s in steps]
            first = held.index(True) if True in held else None
            lost = next((k for k in range(first, len(held)) if not held[k]), None) if first is not None else None
            if lost is None:
                print(checkpoint, "never held" if first is None else f"held from step {first} to the end")
                continue
            _, _, lateral, depth = steps[lost]
            grip = np.round([s[0][-1] for s in steps[max(0, lost - 5):lost]], 2)
            print(checkpoint, f"held at step {first}, lost at {lost} of {len(steps)}: {lateral:.1f} mm off the axis, "
                  f"depth {depth:.1f} mm; gripper command before: {grip}")


if __name__ == "__main__":
    main()
