"""Peg Insertion: how strongly does a BC head respond to the perceived peg-to-hole offset near the hole?

    python benchmarks/peg_aim_probe.py --checkpoint checkpoints/peg-insertion [--driver head|expert] [--trials 20] \
        [--seed 0] [--domain sim] [--out benchmarks/results/peg_aim_probe.jsonl]

One agent drives Narrow episodes: the head itself, or the privileged expert (the head then sees the expert's
executed actions as its history, the data's states). On every step the peg is held within 10 mm of the hole axis,
the head is asked again with the hole's estimate shifted by delta (0 and +-1.5, +-3 mm along x and along y; the
hole-relative features and the proprioceptive history shifted with it, as `hole_estimate_offset_*_m` would shift
them), and its horizontal set-point move (mm) is fitted per state as m = m0 + G delta. G is the head's gain on the
perceived offset (the expert's, in its fine zone: 0.7 times the identity; 0 would be a head that does not look);
where G is invertible, p* = p + G^-1 m0 is the perceived peg-to-hole offset at which the head commands no
horizontal move (p: the perceived offset now), i.e. where it believes the peg aligned; a head that aims true has p*
near 0. Medians per height band of the peg's bottom above the mouth: "carry" (>= 15 mm, the expert's carry height,
where it aligns), "low" (2-15 mm), "mouth" (< 2 mm: on the fixture's top, or in the hole), and over all ("zone").
On the same states the scripted expert labels the exact state, and its labels are regressed linearly on the
perceived offsets the head sees (now and in its history) and on the true offset: the gain of the best linear
imitator that sees only perception, to set beside the head's.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from peg_descent_probe import band
from records import emit

from simdist.model.world_model import ACTION
from simdist.planning.agent import PolicyAgent
from simdist.tasks.base import PROPRIO_KEY
from simdist.tasks.peg_insertion.env import CONTROL
from simdist.tasks.peg_insertion.layout import FINE_SCALE_M, PROPRIO
from simdist.tasks.peg_insertion.reward import PegState
from simdist.tasks.peg_insertion.task import PegInsertionTask
from simdist.training.checkpoint import load_model

SHIFTS_M = 1e-3 * np.array([[0, 0], [1.5, 0], [-1.5, 0], [3, 0], [-3, 0], [0, 1.5], [0, -1.5], [0, 3], [0, -3]])
MIN_GAIN = 0.05  # |det G| below MIN_GAIN**2: the head hardly looks, so its zero point is not defined
MM = 1e3


def shifted(proprio: np.ndarray, shift_xy: np.ndarray) -> np.ndarray:
    """`proprio` (..., D) with the hole's estimate moved by `shift_xy` (m) and the features derived from it."""
    out = proprio.copy()
    delta = np.array([shift_xy[0], shift_xy[1], 0.0])
    out[..., PROPRIO.slice("hole_pos_est")] += delta
    to_hole = out[..., PROPRIO.slice("peg_to_hole_est")] - delta
    out[..., PROPRIO.slice("peg_to_hole_est")] = to_hole
    out[..., PROPRIO.slice("peg_to_hole_fine")] = np.tanh(to_hole / FINE_SCALE_M)
    return out


@torch.no_grad()
def head_moves(agent: PolicyAgent, obs: dict[str, np.ndarray]) -> np.ndarray:
    """(len(SHIFTS_M), 2) horizontal set-point moves (mm) of the head's first action, one per hole shift."""
    obs_t, hist_p, hist_a, command = agent.model_inputs(obs)
    o, h = obs_t[PROPRIO_KEY].numpy()[0], hist_p.numpy()[0]
    batch_o = np.stack([shifted(o, s) for s in SHIFTS_M]).astype(np.float32)
    batch_h = np.stack([shifted(h, s) for s in SHIFTS_M]).astype(np.float32)
    n = len(SHIFTS_M)
    model = agent.model
    ctx = model.planning_context({PROPRIO_KEY: torch.from_numpy(batch_o)}, torch.from_numpy(batch_h),
                                 hist_a.expand(n, -1, -1), None if command is None else command.expand(n, -1))
    first = model.normalizer.denormalize(ACTION, model.plan_policy_n(ctx)[:, 0]).numpy()
    return first[:, :2] * CONTROL.max_translation_m * MM


def fit(moves: np.ndarray, perceived_mm: np.ndarray) -> dict:
    """m = m0 + G delta by least squares; the zero point p* where G is invertible enough."""
    design = np.hstack([np.ones((len(SHIFTS_M), 1)), SHIFTS_M * MM])
    coef, *_ = np.linalg.lstsq(design, moves, rcond=None)  # (3, 2): rows m0, dm/ddx, dm/ddy
    m0, gain = coef[0], coef[1:].T  # gain[i, j] = d m_i / d delta_j
    row = {"m0": m0, "gain": gain, "perceived": perceived_mm}
    if abs(np.linalg.det(gain)) >= MIN_GAIN ** 2:
        row["zero_point"] = perceived_mm + np.linalg.solve(gain, m0)
    return row


def label_filter(rows: list[dict]) -> dict:
    """The expert's label regressed linearly on what the head sees of the offset (the perceived peg-to-hole offsets
    now and in the history) and on the true offset: gains as G above (the response to a hole shifted by delta)."""
    labels = np.stack([r["label"] for r in rows])
    history = np.stack([r["history"].ravel() for r in rows])
    true = np.stack([r["true"] for r in rows])
    out = {}
    for name, x in (("perceived_history", history), ("true_offset", true)):
        design = np.hstack([np.ones((len(rows), 1)), x])
        coef, *_ = np.linalg.lstsq(design, labels, rcond=None)
        residual = labels - design @ coef
        weights = coef[1:].reshape(-1, 2, 2)  # (inputs, axis of the input, axis of the label)
        gain = -weights.sum(axis=0).T  # a shifted hole moves every perceived offset by -delta
        out[name] = {"gain": [round(float(v), 3) for v in gain.ravel()],
                     "r2": round(float(1 - residual.var(axis=0).sum() / labels.var(axis=0).sum()), 3)}
        if name == "perceived_history":  # where it commands no move for an offset perceived alike at every step
            out[name]["zero_point_mm"] = [round(float(v), 2) for v in np.linalg.solve(gain, coef[0])]
    return out


def summarise(rows: list[dict]) -> dict:
    if not rows:
        return {"states": 0}
    gains = np.stack([r["gain"] for r in rows])
    zeros = np.stack([r["zero_point"] for r in rows if "zero_point" in r] or [np.full(2, np.nan)])
    perceived = np.stack([r["perceived"] for r in rows])
    r3 = lambda x: [round(float(v), 3) for v in np.ravel(x)]
    return {"states": len(rows), "gain_median": r3(np.median(gains, axis=0)),
            "m0_median_mm": r3(np.median([r["m0"] for r in rows], axis=0)),
            "perceived_offset_median_mm": r3(np.median(perceived, axis=0)),
            "with_zero_point": int(sum("zero_point" in r for r in rows)),
            "zero_point_median_mm": r3(np.median(zeros, axis=0)),
            "zero_point_quartiles_mm": r3(np.percentile(zeros, [25, 75], axis=0).T),
            "true_offset_median_mm": r3(np.median([r["true"] for r in rows], axis=0)),
            "expert_label_fit": label_filter(rows) if len(rows) > 3 * rows[0]["history"].size else None}


def probe(checkpoint: str, driver: str, domain: str, trials: int, seed: int) -> dict:
    task = PegInsertionTask()
    env = task.make_env(domain, None, seed=seed)
    agent = PolicyAgent(load_model(checkpoint))
    rows: dict[str, list[dict]] = {"carry": [], "low": [], "mouth": []}
    seated = []
    for i, ic in enumerate(task.initial_conditions("narrow", trials, seed)):
        obs, _ = env.reset(seed=1000 * seed + i, options={"initial_condition": ic})
        agent.reset()
        agent.model_inputs(obs)  # fills the history with the first observation, as acting does
        expert = task.expert()
        expert.reset(np.random.default_rng(i))
        info, done = {}, False
        while not done:
            privileged = env.oracle_privileged_state()
            state = PegState.from_privileged(privileged)
            label = expert.act(privileged)  # stepped along every state, so its stall counter follows
            if (where := band(state, min_lateral_m=0.0)) is not None:
                history = np.vstack([agent.model_inputs(obs)[1][0].numpy(), obs[PROPRIO_KEY]])  # before, and now
                perceived = PROPRIO.get(history, "peg_to_hole_est")[:, :2] * MM
                rows[where].append(fit(head_moves(agent, obs), perceived[-1])
                                   | {"label": label[:2] * CONTROL.max_translation_m * MM, "history": perceived,
                                      "true": (state.peg_pos[:2] - state.hole_pos[:2]) * MM})
            action = agent.bc_action(obs) if driver == "head" else label
            action = agent.execute(obs, action)
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        seated.append(bool(info.get("success", False)))
    return {"checkpoint": checkpoint, "driver": driver, "domain": domain, "trials": trials, "seed": seed,
            "success": int(sum(seated)), **{name: summarise(r) for name, r in rows.items()},
            "zone": summarise([r for band_rows in rows.values() for r in band_rows])}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--checkpoint", default="checkpoints/peg-insertion")
    p.add_argument("--driver", default="head", choices=("head", "expert"))
    p.add_argument("--domain", default="sim", choices=("sim", "real"))
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="append the JSON line to this file")
    args = p.parse_args()
    emit(probe(args.checkpoint, args.driver, args.domain, args.trials, args.seed), args.out)


if __name__ == "__main__":
    main()
