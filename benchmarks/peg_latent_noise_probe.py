"""Peg Insertion: does the world model's latent keep the per-step perception noise, or only the true offset?

The BC head sees the current observation only through the latent z = E(o) (the history enters as raw past
proprioception and actions). The perceiving teacher (benchmarks/peg_perceiving_teacher_data.py) takes its choices on
one noisy observation, so a head can only copy them if z carries that observation's noise. The teacher drives clean
Narrow episodes; on every step the held peg is within 10 mm of the hole axis, the horizontal perceived peg-to-hole
offset (what the teacher acts on) and the true one are regressed (ridge) from z and, as the reference, from the
observation vector itself, and scored by R² and the residual's standard deviation on a held-out half of the episodes.
The per-step noise has a standard deviation of about 2 mm (`noise_std_mm`: the perception error less its episode
mean): an encoder that keeps it decodes the perceived offset to well under that; one that discards it cannot.

    python benchmarks/peg_latent_noise_probe.py --checkpoint runs/peg_teacher checkpoints/peg-insertion --episodes 40 \
        [--domain real] --out benchmarks/results/peg_latent_noise_probe.jsonl
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from peg_perceiving_teacher_data import TEACHER, ObservationTap, PerceivingPolicy
from records import emit

from simdist.tasks import get_task
from simdist.tasks.peg_insertion.layout import PRIVILEGED, PROPRIO
from simdist.tasks.peg_insertion.reward import PegState
from simdist.training.checkpoint import load_model

NEAR_AXIS_M = 0.01
RIDGE = 1e-3


def collect(domain: str, episodes: int) -> list[dict]:
    """Per episode: the near-hole observations (proprio) and their true and perceived horizontal offsets."""
    task = get_task("peg-insertion")
    tap = ObservationTap(task.make_env(domain, seed=0))
    teacher, out = PerceivingPolicy(TEACHER, tap), []
    for i, ic in enumerate(task.initial_conditions("narrow", episodes, seed=0)):
        teacher.reset(np.random.default_rng([0, i]))
        obs, _ = tap.reset(seed=i, options={"initial_condition": ic})
        rows, done = [], False
        while not done:
            privileged = tap.env.oracle_privileged_state()
            state = PegState.from_privileged(privileged)
            if state.grasped and state.lateral_to_hole < NEAR_AXIS_M:
                true = (PRIVILEGED.get(privileged, "peg_pos") - PRIVILEGED.get(privileged, "hole_pos"))[:2]
                seen = (PROPRIO.get(obs["proprio"], "peg_pos_est") - PROPRIO.get(obs["proprio"], "hole_pos_est"))[:2]
                rows.append((obs["proprio"].astype(np.float32), true, seen))
            obs, _, terminated, truncated, _ = tap.step(teacher.act(privileged))
            done = terminated or truncated
        if len(rows) >= 2:
            proprio, true, seen = (np.asarray(x) for x in zip(*rows))
            error = seen - true
            out.append({"proprio": proprio, "seen": seen, "true": true, "noise": error - error.mean(0)})
    return out


def ridge_fit(x_train, y_train, x_test, y_test) -> tuple[float, float]:
    """Held-out R² and residual standard deviation (mm) of a ridge regression."""
    mu, sd = x_train.mean(0), x_train.std(0) + 1e-8
    a = np.c_[(x_train - mu) / sd, np.ones(len(x_train))]
    w = np.linalg.solve(a.T @ a + RIDGE * len(a) * np.eye(a.shape[1]), a.T @ y_train)
    residual = y_test - np.c_[(x_test - mu) / sd, np.ones(len(x_test))] @ w
    r2 = 1.0 - (residual ** 2).sum() / ((y_test - y_test.mean(0)) ** 2).sum()
    return round(float(r2), 3), round(float(residual.std() * 1e3), 3)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--checkpoint", nargs="+", required=True)
    p.add_argument("--episodes", type=int, default=40)
    p.add_argument("--domain", default="sim", choices=("sim", "real"))
    p.add_argument("--out", default=None, help="records file to append the JSON lines to")
    args = p.parse_args()
    data = collect(args.domain, args.episodes)
    half = len(data) // 2
    stack = lambda eps, key: np.concatenate([e[key] for e in eps])
    train, test = data[:half], data[half:]
    for checkpoint in args.checkpoint:
        model = load_model(checkpoint).eval()
        with torch.no_grad():
            latent = {id(e): model.encode({"proprio": torch.as_tensor(e["proprio"])}).numpy() for e in data}
        row = {"checkpoint": checkpoint, "domain": args.domain, "grid": "narrow", "episodes": args.episodes,
               "near_hole_steps": int(sum(len(e["true"]) for e in data)),
               "noise_std_mm": float(stack(data, "noise").std() * 1e3)}
        for key in ("seen", "true"):
            for name, features in (("latent", lambda e: latent[id(e)]), ("observation", lambda e: e["proprio"])):
                x_train = np.concatenate([features(e) for e in train])
                x_test = np.concatenate([features(e) for e in test])
                fit = ridge_fit(x_train, stack(train, key), x_test, stack(test, key))
                row[f"r2_{key}_from_{name}"], row[f"residual_mm_{key}_from_{name}"] = fit
        emit(row, args.out)


if __name__ == "__main__":
    main()
