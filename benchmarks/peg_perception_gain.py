"""Peg Insertion: does the BC head's weak response to the perceived offset limit it? Exaggerate the offset it sees.

    python benchmarks/peg_perception_gain.py --gain 3 [--checkpoint checkpoints/peg-insertion] [--agent policy|mppi] \
        [--domain sim] [--physics FILE] [--trials 20] [--seed 0] [--out benchmarks/results/peg_perception_gain.jsonl]

`benchmarks/peg_aim_probe.py` measures the head's gain on the perceived peg-to-hole offset near the hole at about a
fifth of the scripted expert's. Here every observation the agent sees (and so its history) has that horizontal
offset multiplied by `--gain` within `--radius` of the hole axis (beyond it the offset is moved on by the same
amount, so the map stays continuous and monotone; the hole's estimate and the features derived from it change,
nothing else). A gain of 1 is the plain agent. If the head's weak response is what keeps it off the axis, a gain
above 1 should seat more; perception noise is magnified with it. A test-time diagnostic, not part of SimDist.
"""

from __future__ import annotations

import argparse

import numpy as np
from records import emit

from simdist.eval.rollout import rollout
from simdist.planning.agent import MPPIAgent, PolicyAgent
from simdist.planning.settings import task_planner
from simdist.tasks.base import PROPRIO_KEY
from simdist.tasks.peg_insertion.layout import FINE_SCALE_M, PROPRIO
from simdist.tasks.peg_insertion.task import PegInsertionTask
from simdist.training.checkpoint import load_model


def exaggerated(proprio: np.ndarray, gain: float, radius_m: float) -> np.ndarray:
    """`proprio` with the horizontal peg-to-hole offset p mapped to gain * p within radius_m of the axis and to
    p + (gain - 1) * radius_m * p / |p| beyond, by moving the hole's estimate."""
    # Sets the offset directly rather than through peg_aim_probe.shifted: the float32 rounding differs, and the
    # closed-loop records were made (and reproduce) with this one.
    out = np.array(proprio, dtype=np.float32)
    to_hole = out[PROPRIO.slice("peg_to_hole_est")].astype(np.float64)
    lateral = float(np.linalg.norm(to_hole[:2]))
    scale = gain if lateral <= radius_m else 1.0 + (gain - 1.0) * radius_m / lateral
    new_xy = scale * to_hole[:2]
    out[PROPRIO.slice("hole_pos_est")][:2] += to_hole[:2] - new_xy
    to_hole[:2] = new_xy
    out[PROPRIO.slice("peg_to_hole_est")] = to_hole
    out[PROPRIO.slice("peg_to_hole_fine")] = np.tanh(to_hole / FINE_SCALE_M)
    return out


class PerceptionGainAgent:
    """Shows the inner agent exaggerated observations; acts as it does."""

    def __init__(self, inner, gain: float, radius_m: float):
        self.inner, self.gain, self.radius_m = inner, gain, radius_m

    def reset(self) -> None:
        self.inner.reset()

    def act(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        seen = dict(obs)
        seen[PROPRIO_KEY] = exaggerated(obs[PROPRIO_KEY], self.gain, self.radius_m)
        return self.inner.act(seen)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--checkpoint", default="checkpoints/peg-insertion")
    p.add_argument("--agent", default="policy", choices=("policy", "mppi"))
    p.add_argument("--mppi", default="manipulation-prior")
    p.add_argument("--gain", type=float, required=True)
    p.add_argument("--radius", type=float, default=0.005, help="m from the hole axis within which the gain applies")
    p.add_argument("--domain", default="sim", choices=("sim", "real"))
    p.add_argument("--grid", default="narrow", choices=("narrow", "wide"))
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--physics", default=None, help="physics override file for the domain (benchmarks/physics/)")
    p.add_argument("--per-episode", action="store_true",
                   help="also record each episode's success, physics draw and peg-to-hole perception bias")
    p.add_argument("--out", default=None, help="append the JSON line to this file")
    args = p.parse_args()
    if args.gain <= 0 or args.radius <= 0:
        p.error("--gain and --radius must be positive")
    task, model = PegInsertionTask(), load_model(args.checkpoint)
    inner = PolicyAgent(model) if args.agent == "policy" else MPPIAgent(model, task_planner(task, args.mppi, (), None))
    env = task.make_env(args.domain, args.physics, seed=args.seed)  # `simdist evaluate`'s protocol, one grid
    episodes: list[dict] = []

    def record(i, episode, metrics) -> None:  # the env still holds the episode's draw
        bias = env.perception_bias
        episodes.append({"success": bool(episode.success), "draw": {k: float(v) for k, v in env.draw.values.items()},
                         "relative_bias_mm": [round(1e3 * float(v), 3) for v in (bias[0] - bias[1])[:2]]})

    rollout(task, env, PerceptionGainAgent(inner, args.gain, args.radius),
            task.initial_conditions(args.grid, args.trials, seed=args.seed), seed=args.seed, on_episode=record)
    successes = sum(e["success"] for e in episodes)
    row = {"checkpoint": args.checkpoint, "agent": args.agent, "mppi": args.mppi if args.agent == "mppi" else None,
           "gain": args.gain, "radius_m": args.radius, "domain": args.domain, "physics": args.physics,
           "grid": args.grid, "trials": args.trials, "seed": args.seed, "successes": float(successes),
           "success_rate": successes / args.trials}
    emit(row | ({"episodes": episodes} if args.per_episode else {}), args.out)


if __name__ == "__main__":
    main()
