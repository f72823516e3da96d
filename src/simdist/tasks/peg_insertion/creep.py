"""How far a grasped peg creeps up between the pads while it is pressed on the fixture top (docs/tasks/peg-insertion.md,
"Calibration rules"): the scripted expert picks the peg, carries it 2 cm beside the hole, lowers it onto the top,
then pushes with a fixed set-point lead; each control step records the peg's slip along the tool (mm) and the
fixture's normal force on the peg (N).

    python -m simdist.tasks.peg_insertion.creep [--domain sim|real] [--push-mm 1.5 3 6] [--steps 15] [--trials 3]
        [--with-sim arm contact] [--cone pyramidal|elliptic --impratio 1 --noslip 0]

The solver options override the model's for a what-if; the defaults measure the shipped model.
"""

from __future__ import annotations

import argparse
import json

import mujoco
import numpy as np

from simdist.tasks import get_task
from simdist.tasks.peg_insertion.env import CONTROL
from simdist.tasks.peg_insertion.layout import PRIVILEGED
from simdist.tasks.peg_insertion.reward import PegState
from simdist.tasks.ur5e.expert import CLOSE, Goal, goal_to_action
from simdist.tasks.ur5e.rotations import tool_down_rotation, yaw_of

BESIDE_HOLE_M = 0.02  # the peg's whole bottom lands on the fixture's flat top


def _peg_below_tcp(state: PegState) -> float:
    return float(state.tcp_pos[2] - state.peg_pos[2])


def creep_trial(env, ic, seed: int, push_m: float, steps: int) -> dict:
    """Slip per pressed step (mm) and the mean pressing force (N) of one pick-and-press."""
    task_expert = get_task("peg-insertion-tool-frame").expert()
    _, info = env.reset(seed=seed, options={"initial_condition": ic})
    task_expert.reset(np.random.default_rng(seed))
    privileged = env.oracle_privileged_state()
    for _ in range(80):  # pick and lift with the expert
        state = PegState.from_privileged(privileged)
        if state.grasped and state.peg_bottom_z > 0.045:
            break
        env.step(task_expert.act(privileged))
        privileged = env.oracle_privileged_state()
    else:
        return {"grasped": False}

    def step(goal: Goal):
        nonlocal privileged
        state = PegState.from_privileged(privileged)
        setpoint = PRIVILEGED.get(privileged, "setpoint_pos")
        env.step(goal_to_action(goal, state.tcp_pos, state.tcp_rot, setpoint, CONTROL, 0.7, 1.0))
        privileged = env.oracle_privileged_state()
        return PegState.from_privileged(privileged)

    state = PegState.from_privileged(privileged)
    rot = tool_down_rotation(yaw_of(state.tcp_rot))
    target_xy = state.hole_pos[:2] + np.array([BESIDE_HOLE_M, 0.0])
    for _ in range(25):  # over the spot, peg bottom 5 mm above the top
        z = state.tcp_pos[2] + (state.hole_pos[2] + 0.005 - state.peg_bottom_z)
        state = step(Goal(np.array([*(state.tcp_pos[:2] + target_xy - state.peg_pos[:2]), z]), rot, CLOSE))
    for _ in range(10):  # touch down gently
        if PRIVILEGED.get(privileged, "peg_fixture_force")[0] > 1.0:
            break
        state = step(Goal(np.array([*state.tcp_pos[:2], state.tcp_pos[2]]), rot, CLOSE, push_m=0.001))
    start = _peg_below_tcp(state)
    forces = []
    for _ in range(steps):
        state = step(Goal(np.array([*state.tcp_pos[:2], state.tcp_pos[2]]), rot, CLOSE, push_m=push_m))
        forces.append(float(PRIVILEGED.get(privileged, "peg_fixture_force")[0]))
    slip = start - _peg_below_tcp(state)  # > 0: the peg moved up towards the palm
    return {"grasped": True, "slip_mm_per_step": 1000 * slip / steps, "force_n": float(np.mean(forces))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--domain", default="sim")
    parser.add_argument("--with-sim", nargs="*", default=[], help="gap groups or fields put back to `sim`")
    parser.add_argument("--push-mm", type=float, nargs="+", default=[1.5, 3.0, 6.0])
    parser.add_argument("--steps", type=int, default=15)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--cone", choices=["pyramidal", "elliptic"])
    parser.add_argument("--impratio", type=float)
    parser.add_argument("--noslip", type=int)
    args = parser.parse_args()
    task = get_task("peg-insertion-tool-frame")
    env = task.make_env(args.domain, {"with_sim": args.with_sim} if args.with_sim else None, seed=0)
    opt = env.model.opt
    if args.cone:
        opt.cone = {"pyramidal": mujoco.mjtCone.mjCONE_PYRAMIDAL, "elliptic": mujoco.mjtCone.mjCONE_ELLIPTIC}[args.cone]
    if args.impratio is not None:
        opt.impratio = args.impratio
    if args.noslip is not None:
        opt.noslip_iterations = args.noslip
    ics = task.initial_conditions("narrow", args.trials, seed=0)
    for push in args.push_mm:
        rows = [creep_trial(env, ic, i, push / 1000, args.steps) for i, ic in enumerate(ics)]
        held = [r for r in rows if r["grasped"]]
        print(
            json.dumps(
                {
                    "domain": args.domain,
                    "with_sim": args.with_sim,
                    "cone": int(opt.cone),
                    "impratio": opt.impratio,
                    "noslip_iterations": opt.noslip_iterations,
                    "push_mm": push,
                    "trials": len(rows),
                    "grasped": len(held),
                    "slip_mm_per_step": round(float(np.mean([r["slip_mm_per_step"] for r in held])), 3),
                    "force_n": round(float(np.mean([r["force_n"] for r in held])), 1),
                }
            )
        )


if __name__ == "__main__":
    main()
