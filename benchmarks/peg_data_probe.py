"""Peg Insertion's data, probed where the task is hard (the last centimetre above the hole).

python benchmarks/peg_data_probe.py gain [--episodes 150] [--seed 0] [--teacher expert|perceiving]
    how much of the teacher's near-hole correction the perceived peg-to-hole offset can predict: OLS gains of
    its xy action on the true and on the perceived offset, and the share of the action's variance the perceived
    offset explains (r2), for grid starts and for mid-task starts
python benchmarks/peg_data_probe.py failures CHECKPOINT [--trials 20] [--push-limit M] [--task TASK]
    how the BC head's `sim` Narrow trials end (seated, never grasped, dropped, tilted in the hand, never within 1 cm
    of the axis, at the hole but not in), how deep in the hand the peg sat once lifted (its centre below the tool;
    the expert grips it at 15 mm), the held peg's pose when it first came within 2 mm of the mouth's height
    and 1 cm of its axis, and how a
    dropped peg was lost; --push-limit caps the set-point lead
    below the tool while the held peg is within 5 mm of the axis and 2 cm above the mouth (a diagnostic: it reads
    the true state); --hold-beyond M stops the descent 2-20 mm above the mouth while the peg is more than M off the
    axis (the same diagnostic: does the head converge if it waits?); and how the head acts over the mouth (held
    peg 2-30 mm above it, within 2 cm of its axis): the gain of its set-point's xy move on the perceived offset per
    axis (the expert corrects 0.7 of the true one per step) and its descent per step by perceived lateral offset
python benchmarks/peg_data_probe.py bc-error DATA CHECKPOINT [CHECKPOINT ...]
    held-out BC error of each model's first chunk action on DATA's uncorrupted expert steps, all of them and
    those within 1 cm of the hole axis, and over the mouth (held peg 2-60 mm above it, within 2 cm of its axis) the
    expert's and the head's correction, as `failures` reports it in closed loop (one JSON line per model)
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch

from simdist.data.episodes import load_episodes
from simdist.data.generate import GenerationConfig, run_episode, teacher
from simdist.data.resets import MidTaskStarts
from simdist.data.windows import WindowDataset
from simdist.model.world_model import VALUE
from simdist.planning.agent import PolicyAgent
from simdist.tasks import get_task
from simdist.tasks.base import PROPRIO_KEY
from simdist.tasks.peg_insertion.env import CONTROL
from simdist.tasks.peg_insertion.layout import PRIVILEGED, PROPRIO
from simdist.tasks.peg_insertion.observation_controller import Estimate
from simdist.tasks.peg_insertion.perception import camera_pose
from simdist.tasks.peg_insertion.reward import PegState
from simdist.tasks.ur5e.rotations import rot6_to_matrix
from simdist.training.checkpoint import load_model

TASK = "peg-insertion"
REGIMES = {"grid starts": GenerationConfig(), "mid-task starts": GenerationConfig(mid_task_prob=0.75, mid_task_s=5.0)}


class _StateRecorder:
    """The expert critic, keeping the privileged states the generator labels (one array per episode)."""

    def __init__(self, critic):
        self.critic, self.states = critic, []

    def values(self, states):
        self.states.append(np.array(states))
        return self.critic.values(states)


def _slope(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.cov(x, y)[0, 1] / np.var(x))


def filtered_offset(proprio: np.ndarray) -> np.ndarray:
    """(N, 3) peg-to-hole offsets with the hole's readings so far averaged as the observation controller averages
    them (from above once there) and the peg's current reading: a held peg moves in the pads (its offset from the
    tool spreads 2.3 mm near the hole), so its readings cannot be averaged."""
    hole, out = Estimate(), []
    for row in proprio.astype(np.float64):
        get = lambda name, row=row: PROPRIO.get(row, name)  # noqa: E731
        hole.add(get("hole_pos_est"), camera_pose(get("tcp_pos"), rot6_to_matrix(get("tcp_rot6"))))
        out.append(get("peg_pos_est") - hole.mean)
    return np.array(out)


def _r2(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.corrcoef(x, y)[0, 1] ** 2)


def gain(episodes: int, seed: int, teacher_name: str) -> None:
    task = get_task("peg-insertion-tool-frame")  # the teacher's own set-point steps
    critic = _StateRecorder(task.critic())
    for name, cfg in REGIMES.items():
        rng, env, expert = np.random.default_rng(seed), task.make_env("sim", seed=seed), teacher(task, teacher_name)
        starts = MidTaskStarts(task, env, expert, cfg, rng) if cfg.mid_task_prob else None
        perceived, filtered, true, action = [], [], [], []
        for _ in range(episodes):
            ep = run_episode(task, env, expert, True, critic, cfg, rng, starts=starts)
            offset = PRIVILEGED.get(critic.states[-1], "peg_pos") - PRIVILEGED.get(critic.states[-1], "hole_pos")
            near = (
                ep.expert & (np.linalg.norm(offset[:, :2], axis=1) < 0.005) & (0 < offset[:, 2]) & (offset[:, 2] < 0.04)
            )
            perceived.append(PROPRIO.get(ep.obs["proprio"], "peg_to_hole_est")[near, :2])
            filtered.append(filtered_offset(ep.obs["proprio"])[near, :2])
            true.append(offset[near, :2])
            action.append(ep.action[near, :2])
        x_p, x_f, x_t, y = (np.concatenate(v).ravel() for v in (perceived, filtered, true, action))
        print(
            json.dumps(
                {
                    "teacher": teacher_name,
                    "regime": name,
                    "steps": int(y.size // 2),
                    "true_offset_std_mm": round(1e3 * float(x_t.std()), 2),
                    "perception_error_std_mm": round(1e3 * float((x_p - x_t).std()), 2),
                    "gain_on_true": round(_slope(x_t, y), 1),
                    "gain_on_perceived": round(_slope(x_p, y), 1),
                    "ratio": round(_slope(x_p, y) / _slope(x_t, y), 2),
                    "r2_on_perceived": round(_r2(x_p, y), 2),
                    "filtered_error_std_mm": round(1e3 * float((x_f - x_t).std()), 2),
                    "ratio_filtered": round(_slope(x_f, y) / _slope(x_t, y), 2),
                    "r2_on_filtered": round(_r2(x_f, y), 2),
                    "r2_on_true": round(_r2(x_t, y), 2),
                }
            )
        )


@torch.no_grad()
def bc_error(data: str, checkpoints: list[str]) -> None:
    info, episodes = load_episodes(data)
    for path in checkpoints:
        model = load_model(path).eval()
        windows = WindowDataset(info, episodes, model.cfg.history, model.cfg.horizon)
        t = torch.as_tensor(windows.window_t)
        expert = windows.expert[t].numpy().astype(bool)
        offset = PROPRIO.get(windows.obs["proprio"][t].numpy(), "peg_to_hole_est")
        near = (np.linalg.norm(offset[:, :2], axis=1) < 0.01) & (offset[:, 2] < 0.06)
        row = {"checkpoint": path}
        for name, ids in (("expert", np.flatnonzero(expert)), ("near_hole_expert", np.flatnonzero(expert & near))):
            bc, value = [], []
            for k in range(0, len(ids), 1024):
                batch = windows.batch(ids[k : k + 1024])
                out = model(batch)
                bc.append((out["policy"][:, 0] - out["actions_n"][:, 0]).pow(2).mean(-1).numpy())
                value.append(
                    (model.normalizer.denormalize(VALUE, out["value"]) - batch["values"]).abs().mean(1).numpy()
                )
            e, v = np.concatenate(bc), np.concatenate(value)
            row[name] = {
                "windows": len(e),
                "bc_mse": float(e.mean()),
                "bc_ci95": float(1.96 * e.std() / np.sqrt(len(e))),
                "value_mae": float(v.mean()),  # in the critic's units (a seat is worth 50)
                "value_ci95": float(1.96 * v.std() / np.sqrt(len(v))),
            }
        proprio = windows.obs["proprio"][t].numpy()
        held = PROPRIO.get(proprio, "gripper_opening")[:, 0] < 0.03
        over = held & (np.linalg.norm(offset[:, :2], axis=1) < 0.02) & (offset[:, 2] > 0.002) & (offset[:, 2] < 0.06)
        ids, actions = np.flatnonzero(expert & over), {"expert": [], "head": []}
        for k in range(0, len(ids), 1024):
            out = model(windows.batch(ids[k : k + 1024]))
            actions["expert"].append(out["actions_n"][:, 0].numpy())
            actions["head"].append(out["policy"][:, 0].numpy())
        mean, std = model.normalizer.action_mean.numpy(), model.normalizer.action_std.numpy()
        row["over_the_mouth"] = {
            who: _hover_summary(np.concatenate([offset[ids, :2], np.concatenate(a) * std + mean], axis=1)[:, :5])
            for who, a in actions.items()
        }
        print(json.dumps(row))


@torch.no_grad()
def failures(
    checkpoint: str, trials: int, push_limit: float | None, hold_beyond: float | None = None, task_name: str = TASK
) -> None:
    task, agent = get_task(task_name), PolicyAgent(load_model(checkpoint).eval())
    env, modes, hover = task.make_env("sim", seed=1), {}, []
    for i, ic in enumerate(task.initial_conditions("narrow", trials, seed=1)):
        obs, info = env.reset(seed=1000 + i, options={"initial_condition": ic})
        agent.reset()
        state, held, nearest, lost, rim = PegState.from_privileged(info["privileged"]), False, 1.0, None, None
        grip_depth = None
        for _ in range(task.spec.episode_steps):
            action = agent.act(obs)
            above = state.peg_bottom_z - state.hole_pos[2]
            if push_limit is not None and state.grasped and state.lateral_to_hole < 0.005 and -0.002 < above < 0.02:
                setpoint_z = PRIVILEGED.get(info["privileged"], "setpoint_pos")[2]
                floor = (state.tcp_pos[2] - push_limit - setpoint_z) / CONTROL.max_translation_m
                action = np.concatenate([action[:2], [max(action[2], floor)], action[3:]])
            hold = hold_beyond is not None and hold_beyond < state.lateral_to_hole < 0.01 and 0.002 < above < 0.02
            if hold and state.grasped:  # no descent until the peg is over the axis (the set-point at the tool's height)
                setpoint_z = PRIVILEGED.get(info["privileged"], "setpoint_pos")[2]
                floor = (state.tcp_pos[2] - setpoint_z) / CONTROL.max_translation_m
                action = np.concatenate([action[:2], [max(action[2], floor)], action[3:]])
            over_mouth = state.grasped and 0.002 < above < 0.03 and state.lateral_to_hole < 0.02
            offset, setpoint = PROPRIO.get(obs[PROPRIO_KEY], "peg_to_hole_est")[:2], env.setpoint_pos.copy()
            obs, _, terminated, truncated, info = env.step(action)
            if over_mouth:  # the set-point's move, whatever frame the action is in
                hover.append([*offset, *(env.setpoint_pos - setpoint)])
            was_held, state = state.grasped, PegState.from_privileged(info["privileged"])
            held |= state.grasped
            if grip_depth is None and state.grasped and state.peg_bottom_z > 0.01:  # lifted: where the pads hold it
                grip_depth = round(1e3 * float(state.peg_in_tool[2]), 1)
            if was_held and not state.grasped and lost is None:
                lost = {"gripper_command": round(float(action[6]), 2), "tilt_rad": round(state.peg_tilt, 2)}
            if state.grasped and state.peg_bottom_z - state.hole_pos[2] < 0.03:
                nearest = min(nearest, state.lateral_to_hole)
            at_mouth = state.peg_bottom_z - state.hole_pos[2] < 0.002 and state.lateral_to_hole < 0.01
            if rim is None and state.grasped and at_mouth:
                rim = {
                    "lateral_mm": round(1e3 * state.lateral_to_hole, 1),
                    "offset_xy_mm": [round(1e3 * float(v), 1) for v in state.peg_pos[:2] - state.hole_pos[:2]],
                    "tilt_deg": round(float(np.rad2deg(state.peg_tilt)), 1),
                    "yaw_error_deg": round(float(np.rad2deg(abs(state.yaw_error))), 1),
                }
            if terminated or truncated:
                break
        if info.get("success"):
            mode = "seated"
        elif not held:
            mode = "never grasped"
        elif not state.grasped:
            mode = "dropped"
        elif state.peg_tilt > 0.2:
            mode = "tilted in the hand"
        else:
            mode = "never within 1 cm" if nearest > 0.01 else "at the hole, not in"
        row = {"nearest_mm": round(1e3 * nearest, 1), "grip_depth_mm": grip_depth, "at_rim": rim, "lost": lost}
        modes.setdefault(mode, []).append(row)
    counts = {mode: len(v) for mode, v in modes.items()}
    row = {"checkpoint": checkpoint, "push_limit_m": push_limit, "hold_beyond_m": hold_beyond, "trials": trials}
    print(json.dumps({**row, "ends": counts, "over_the_mouth": _hover_summary(np.array(hover))}))
    print(json.dumps({"details": modes}))


def _hover_summary(rows: np.ndarray) -> dict:
    """The head's correction over the mouth: the set-point's xy move (mm) against the perceived offset (mm)."""
    if len(rows) < 4:
        return {"steps": len(rows)}
    offset, move = 1e3 * rows[:, :2], 1e3 * rows[:, 2:5]
    lateral, bins = np.linalg.norm(offset, axis=1), [(0, 1), (1, 2), (2, 3), (3, 20)]
    return {
        "steps": len(rows),
        "gain_xy": [round(-_slope(offset[:, k], move[:, k]), 2) for k in range(2)],
        "descent_mm_by_perceived_offset_mm": {
            f"{lo}-{hi}": round(float(-move[(lateral >= lo) & (lateral < hi), 2].mean()), 2)
            for lo, hi in bins
            if ((lateral >= lo) & (lateral < hi)).any()
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="probe", required=True)
    g = sub.add_parser("gain")
    g.add_argument("--episodes", type=int, default=150)
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--teacher", default="expert", help="who fills the expert's slot (data.teacher)")
    f = sub.add_parser("failures")
    f.add_argument("checkpoint")
    f.add_argument("--trials", type=int, default=20)
    f.add_argument("--push-limit", type=float, default=None)
    f.add_argument("--hold-beyond", type=float, default=None)
    f.add_argument("--task", default=TASK, help="the task the checkpoint was trained on (peg-insertion-tool-frame)")
    b = sub.add_parser("bc-error")
    b.add_argument("data")
    b.add_argument("checkpoints", nargs="+")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.probe == "gain":
        gain(args.episodes, args.seed, args.teacher)
    elif args.probe == "failures":
        failures(args.checkpoint, args.trials, args.push_limit, args.hold_beyond, args.task)
    else:
        bc_error(args.data, args.checkpoints)


if __name__ == "__main__":
    main()
