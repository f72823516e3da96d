"""Peg Insertion: does a head trained on the perceiving teacher reproduce the teacher's choices, or average them?

The teacher of benchmarks/peg_perceiving_teacher_data.py drives clean `sim` (or `real`) Narrow episodes, acting on
single perceived observations; at every step the world model's BC head, fed the same observations and the teacher's
executed actions as its history, proposes its first action. Per phase of the exact state (near the peg: not held,
the tool within 2 cm of the grasp point; at the mouth: held, peg bottom within 2 cm above the mouth and 5 mm of the
axis; inserting), it prints the quantiles (10, 50, 90 %) of the teacher's and the head's vertical set-point move in
mm, how often the teacher's vertical direction flips from one step to the next, how often the head moves vertically
the teacher's way where the teacher moves more than 0.5 mm, and the share of steps each closes the gripper (teacher)
or commands more than 0 (head). A teacher taking a noisy either/or choice shows a wide spread
and frequent flips; a head averaging it sits between the modes. `seating_steps`: in each seated episode, the steps from
the peg's last step above the mouth to the episode's end (BC windows without tail windows start T steps before it).

    python benchmarks/peg_teacher_choices.py --checkpoint runs/peg_teacher --episodes 20 [--perceive always|held] \
        [--domain sim|real] --out benchmarks/results/peg_teacher_choices.jsonl
    python benchmarks/peg_teacher_choices.py --diffusion-head runs/peg_diffusion_head ...  # a sampled chunk proposes
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from peg_diffusion_head import head_agent, load_head
from peg_head_precision import MOUTH_HEIGHT_M, MOUTH_LATERAL_M
from peg_perceiving_teacher_data import TEACHER, ObservationTap, PerceivingPolicy
from records import emit

from simdist.planning.agent import PolicyAgent
from simdist.tasks import get_task
from simdist.tasks.peg_insertion.env import CONTROL
from simdist.tasks.peg_insertion.reward import PegState
from simdist.tasks.ur5e.env import GRIPPER_ACTION
from simdist.training.checkpoint import load_model

NEAR_PEG_M = 0.02
VERTICAL = 2  # the z set-point translation of the UR5e tasks' actions


def phase(state: PegState) -> str | None:
    above = state.peg_bottom_z - state.hole_pos[2]
    near_axis = state.lateral_to_hole < MOUTH_LATERAL_M
    if near_axis and above < 0:
        return "inserting"
    if not state.grasped:
        return "near the peg" if np.linalg.norm(state.tcp_pos - state.grasp_point) < NEAR_PEG_M else None
    return "at the mouth" if near_axis and above < MOUTH_HEIGHT_M else None


def summary(teacher: np.ndarray, head: np.ndarray, flips: list[bool]) -> dict:
    mm = CONTROL.max_translation_m * 1e3
    quantiles = (10, 50, 90)
    moving = np.abs(teacher[:, VERTICAL] * mm) > 0.5
    return {"steps": len(teacher),
            "teacher_z_mm": np.round(np.percentile(teacher[:, VERTICAL] * mm, quantiles), 2).tolist(),
            "head_z_mm": np.round(np.percentile(head[:, VERTICAL] * mm, quantiles), 2).tolist(),
            "teacher_z_flip_rate": float(np.mean(flips)) if flips else None,
            # the head's vertical direction where the teacher clearly moves (> 0.5 mm): 0.5 = blind to its choice
            "head_agrees_z": float(np.mean(np.sign(head[moving, VERTICAL]) == np.sign(teacher[moving, VERTICAL])))
            if moving.any() else None,
            "teacher_closes": float(np.mean(teacher[:, GRIPPER_ACTION] > 0)),
            "head_closes": float(np.mean(head[:, GRIPPER_ACTION] > 0)),
            "head_gripper_median": float(np.median(head[:, GRIPPER_ACTION]))}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--checkpoint", help="a world model: its regression BC head proposes")
    who.add_argument("--diffusion-head", help="benchmarks/peg_diffusion_head.py's output: a sampled chunk proposes")
    p.add_argument("--episodes", type=int, default=20)
    p.add_argument("--perceive", choices=("always", "held"), default="always")
    p.add_argument("--domain", default="sim", choices=("sim", "real"))
    p.add_argument("--out", default=None, help="records file to append the JSON line to")
    args = p.parse_args()
    task = get_task("peg-insertion")
    if args.diffusion_head:
        config, model, ddpm = load_head(Path(args.diffusion_head))
        agent, checkpoint = head_agent(config, model, ddpm, seed=0), config["checkpoint"]
    else:
        agent, checkpoint = PolicyAgent(load_model(args.checkpoint)), args.checkpoint
    tap = ObservationTap(task.make_env(args.domain, seed=0))
    teacher = PerceivingPolicy(TEACHER, tap, args.perceive)
    rows: dict[str, list] = {}
    flips: dict[str, list] = {}
    seated, final_push = [], []
    for i, ic in enumerate(task.initial_conditions("narrow", args.episodes, seed=0)):
        teacher.reset(np.random.default_rng([0, i]))
        obs, _ = tap.reset(seed=i, options={"initial_condition": ic})
        agent.reset()
        done, info, last, steps, last_above = False, {}, None, 0, 0
        while not done:
            privileged = tap.env.oracle_privileged_state()
            label, head = teacher.act(privileged), agent.bc_action(obs)
            state = PegState.from_privileged(privileged)
            name = phase(state)
            if state.peg_bottom_z > state.hole_pos[2]:
                last_above = steps
            steps += 1
            if name:
                rows.setdefault(name, []).append((label, head))
                if last is not None and last[0] == name:
                    flips.setdefault(name, []).append(bool(np.sign(label[VERTICAL]) != np.sign(last[1])))
            last = (name, label[VERTICAL])
            agent.execute(obs, label)
            obs, _, terminated, truncated, info = tap.step(label)
            done = terminated or truncated
        seated.append(bool(info.get("success")))
        if seated[-1]:  # steps from the peg's last step above the mouth to the end (the episode ends as it seats)
            final_push.append(steps - last_above)
    phases = {name: summary(*(np.asarray(x) for x in zip(*pairs)), flips.get(name, []))
              for name, pairs in rows.items()}
    emit({"checkpoint": checkpoint, **({"diffusion_head": args.diffusion_head} if args.diffusion_head else {}),
          "perceive": args.perceive, "domain": args.domain, "grid": "narrow",
          "episodes": args.episodes, "teacher_success": float(np.mean(seated)),
          "seating_steps": final_push, "phases": phases}, args.out)


if __name__ == "__main__":
    main()
