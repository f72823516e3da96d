"""Step-by-step grip and hole geometry of one Table Leg episode of the BC head, from the exact state (the env's
diagnostic oracle): how a leg reaches the lead-in without counting as grasped (session 29: an off-centre grip).

    python benchmarks/table_leg_grip_trace.py --checkpoint runs/tl_noact_200k/step_040000 --seed 0 --episode 1 \
        --steps 95 115

The episode is the `--episode`-th of `manipulation_stages.py --seed S`'s Narrow grid (same initial condition and
reset seed), so a row of its records can be replayed here.
"""

from __future__ import annotations

import argparse

import numpy as np

from simdist.eval.rollout import episode_seed
from simdist.planning.agent import PolicyAgent
from simdist.tasks.registry import get_task
from simdist.tasks.table_leg import reward as leg_reward
from simdist.training.checkpoint import load_model


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--domain", default="sim", choices=("sim", "real"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--episode", type=int, default=0, help="index in the seed's Narrow grid")
    p.add_argument("--steps", type=int, nargs=2, default=(0, 225), metavar=("FIRST", "LAST"))
    args = p.parse_args()
    task = get_task("table-leg")
    agent = PolicyAgent(load_model(args.checkpoint))
    env = task.make_env(args.domain, seed=args.seed)
    ics = task.initial_conditions("narrow", args.episode + 1, args.seed)
    obs, _ = env.reset(seed=episode_seed(args.seed, args.episode), options={"initial_condition": ics[args.episode]})
    agent.reset()
    for t in range(args.steps[1] + 1):
        obs, _, terminated, truncated, info = env.step(agent.act(obs))
        s = leg_reward.LegState.from_privileged(env.oracle_privileged_state())
        if t >= args.steps[0]:
            print(f"{t:4d} lateral {1e3 * s.lateral_to_hole:5.1f} mm  depth {1e3 * s.stud_depth:5.1f} mm  "
                  f"tilt {np.degrees(s.tilt):5.1f} deg  pads {1e3 * s.gripper_opening:5.1f} mm  "
                  f"closing {s.gripper_closing}  grasped {s.grasped}  engaged {s.engaged}")
        if terminated or truncated:
            break
    print(f"success {bool(info.get('success'))}")


if __name__ == "__main__":
    main()
