"""Peg Insertion's data, probed where the task is hard (the last centimetre above the hole).

python benchmarks/peg_data_probe.py gain [--episodes 150] [--seed 0] [--teacher expert|perceiving]
    how much of the teacher's near-hole correction the perceived peg-to-hole offset can predict: OLS gains of
    its xy action on the true and on the perceived offset, and the share of the action's variance the perceived
    offset explains (r2), for grid starts and for mid-task starts
python benchmarks/peg_data_probe.py bc-error DATA CHECKPOINT [CHECKPOINT ...]
    held-out BC error of each model's first chunk action on DATA's uncorrupted expert steps, all of them and
    those within 1 cm of the hole axis (one JSON line per model)
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
from simdist.tasks import get_task
from simdist.tasks.peg_insertion.layout import PRIVILEGED, PROPRIO
from simdist.training.checkpoint import load_model

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


def _r2(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.corrcoef(x, y)[0, 1] ** 2)


def gain(episodes: int, seed: int, teacher_name: str) -> None:
    task = get_task("peg-insertion")
    critic = _StateRecorder(task.critic())
    for name, cfg in REGIMES.items():
        rng, env, expert = np.random.default_rng(seed), task.make_env("sim", seed=seed), teacher(task, teacher_name)
        starts = MidTaskStarts(task, env, expert, cfg, rng) if cfg.mid_task_prob else None
        perceived, true, action = [], [], []
        for _ in range(episodes):
            ep = run_episode(task, env, expert, True, critic, cfg, rng, starts=starts)
            offset = PRIVILEGED.get(critic.states[-1], "peg_pos") - PRIVILEGED.get(critic.states[-1], "hole_pos")
            near = (
                ep.expert & (np.linalg.norm(offset[:, :2], axis=1) < 0.005) & (0 < offset[:, 2]) & (offset[:, 2] < 0.04)
            )
            perceived.append(PROPRIO.get(ep.obs["proprio"], "peg_to_hole_est")[near, :2])
            true.append(offset[near, :2])
            action.append(ep.action[near, :2])
        x_p, x_t, y = (np.concatenate(v).ravel() for v in (perceived, true, action))
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
        print(json.dumps(row))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="probe", required=True)
    g = sub.add_parser("gain")
    g.add_argument("--episodes", type=int, default=150)
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--teacher", default="expert", help="who fills the expert's slot (data.teacher)")
    b = sub.add_parser("bc-error")
    b.add_argument("data")
    b.add_argument("checkpoints", nargs="+")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.probe == "gain":
        gain(args.episodes, args.seed, args.teacher)
    else:
        bc_error(args.data, args.checkpoints)


if __name__ == "__main__":
    main()
