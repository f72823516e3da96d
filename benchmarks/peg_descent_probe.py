"""Why a Peg Insertion BC head lowers the peg before it is aligned: what it and others command on the way down.

    python benchmarks/peg_descent_probe.py --driver runs/peg_gpu/peg_model --shadow checkpoints/peg-insertion \
        [--trials 20] [--seed 0] [--domain sim] [--out benchmarks/results/peg_descent_probe.jsonl]

The driver's BC head acts (Narrow grid). At every step the same inputs (observation, proprioceptive history, the
executed past actions) also go through the shadow checkpoint's head and through the driver's head with its past
actions zeroed (an arm that was still: out of the data's distribution, so a hint, not a test); the scripted expert
labels the exact state from the env's diagnostic oracle. On the steps where the peg is held 1-10 mm off the hole
axis (where the expert aligns at its carry height, 15 mm above the mouth, before it descends), in three height bands
(at or above carry height, below it, at the mouth), each one's set-point move is averaged: down, towards the axis,
and that over the offset (the share of it corrected per step; the expert's fine gain is 0.7). The shadow's and
zeroed head's figures are on states the driver chose, where it lingers when it does not correct: they are not
what those heads would do driving. Per episode: the height above the mouth on entering the 10 mm zone and the
offset when the carried peg first reaches the mouth.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from manipulation_stages import recorded_episodes
from records import emit

from simdist.model.world_model import ACTION
from simdist.planning.agent import PolicyAgent
from simdist.tasks.peg_insertion import reward as peg_reward
from simdist.tasks.peg_insertion.env import CONTROL
from simdist.tasks.peg_insertion.expert import ExpertTuning, ScriptedExpert
from simdist.tasks.registry import get_task
from simdist.training.checkpoint import load_model

Z = 2  # action index of the vertical set-point command
HEADS = ("driver", "shadow", "driver_no_past_actions")
FINE_ZONE_M = 0.01  # the expert aligns at carry height within this distance of the hole axis
MOUTH_M = 0.002  # a held peg whose bottom is this close above the mouth (or below) has reached it
EXECUTE_AT_MOUTH = "still_history_at_mouth"


class ShadowAgent(PolicyAgent):
    """Acts with the driver's head; logs what other heads make of the same inputs."""

    def __init__(self, driver, shadow, execute: str = "driver", oracle=None):
        super().__init__(driver)
        self.shadow = shadow.eval()
        self.executed = execute  # which head's action the arm executes
        self.oracle = oracle  # the env's diagnostic oracle, for EXECUTE_AT_MOUTH
        self.log: list[dict[str, np.ndarray]] = []

    @torch.no_grad()
    def _first_action(self, model, obs_t, hist_p, hist_a, command) -> np.ndarray:
        ctx = model.planning_context(obs_t, hist_p, hist_a, command)
        return model.normalizer.denormalize(ACTION, model.plan_policy_n(ctx)[0, 0]).cpu().numpy()

    def act(self, obs):
        obs_t, hist_p, hist_a, command = self.model_inputs(obs)
        row = {"driver": self._first_action(self.model, obs_t, hist_p, hist_a, command),
               "shadow": self._first_action(self.shadow, obs_t, hist_p, hist_a, command),
               "driver_no_past_actions": self._first_action(self.model, obs_t, hist_p, torch.zeros_like(hist_a),
                                                            command)}
        self.log.append(row)
        if self.executed == EXECUTE_AT_MOUTH:  # a diagnostic: the oracle says where the peg is
            at_mouth = band(peg_reward.PegState.from_privileged(self.oracle())) == "mouth"
            return self.execute(obs, row["driver_no_past_actions" if at_mouth else "driver"])
        return self.execute(obs, row[self.executed])


CARRY_M = ExpertTuning().carry_clearance_m


def band(s: peg_reward.PegState, min_lateral_m: float = 0.001) -> str | None:
    """Held and 1-10 mm off the axis: "carry" at or above the expert's carry height, "low" between it and 2 mm above
    the mouth, "mouth" below that (on the fixture's top: more than 1 mm off the axis the peg cannot be in the hole).
    `min_lateral_m=0` keeps the held steps near the axis too (and in the hole, as "mouth")."""
    if not (s.grasped and min_lateral_m < s.lateral_to_hole < FINE_ZONE_M):
        return None
    above_mouth = s.peg_bottom_z - s.hole_pos[2]
    return "carry" if above_mouth >= CARRY_M else "low" if above_mouth >= MOUTH_M else "mouth"


def lateral_at_mouth(states: list[peg_reward.PegState]) -> float | None:
    """mm off the axis at the first held step at the mouth after the peg was carried (it starts below the mouth)."""
    carried = False
    for s in states:
        above_mouth = s.peg_bottom_z - s.hole_pos[2]
        carried = carried or (s.grasped and above_mouth >= CARRY_M)
        if carried and s.grasped and above_mouth < MOUTH_M:
            return round(1e3 * s.lateral_to_hole, 2)
    return None


def height_entering_fine_zone(states: list[peg_reward.PegState]) -> float | None:
    """mm above the mouth at the first held step within 10 mm of the axis (where the expert starts to align)."""
    for s in states:
        if s.grasped and s.lateral_to_hole < FINE_ZONE_M:
            return round(1e3 * (s.peg_bottom_z - s.hole_pos[2]), 2)
    return None


def commands_row(s: peg_reward.PegState, commands: dict[str, np.ndarray]) -> dict[str, float]:
    """Each agent's set-point move, mm per step: down, and towards the hole axis."""
    to_hole = (s.hole_pos[:2] - s.peg_pos[:2]) / s.lateral_to_hole
    step_mm = 1e3 * CONTROL.max_translation_m
    row = {f"{h}_down_mm": -step_mm * float(a[Z]) for h, a in commands.items()}
    row |= {f"{h}_to_hole_mm": step_mm * float(a[:2] @ to_hole) for h, a in commands.items()}
    return row | {"lateral_mm": 1e3 * s.lateral_to_hole, "above_mouth_mm": 1e3 * (s.peg_bottom_z - s.hole_pos[2])}


def band_summary(rows: list[dict]) -> dict:
    out = {"states": len(rows)}
    for h in (*HEADS, "expert"):
        down, to_hole = (np.array([r[f"{h}_{k}_mm"] for r in rows]) for k in ("down", "to_hole"))
        lateral = np.array([r["lateral_mm"] for r in rows])
        out[h] = {"down_mm": float(down.mean()), "descends_share": float((down > 0).mean()),
                  "to_hole_mm": float(to_hole.mean()), "to_hole_over_lateral": float(np.mean(to_hole / lateral))
                  } if rows else {}
    return out


def probe(driver: str, shadow: str, domain: str, trials: int, seed: int, execute: str = "driver") -> dict:
    task = get_task("peg-insertion")
    env = task.make_env(domain, None, seed=seed)
    agent = ShadowAgent(load_model(driver), load_model(shadow), execute, env.oracle_privileged_state)
    episodes = recorded_episodes(task, env, agent, "narrow", trials, seed)
    assert sum(map(len, episodes)) == len(agent.log), "one logged head output per recorded step"
    rows: dict[str, list[dict]] = {"carry": [], "low": [], "mouth": []}
    at_mouth, entry, start = [], [], 0
    for infos in episodes:
        states = [peg_reward.PegState.from_privileged(i["privileged"]) for i in infos]
        at_mouth.append(lateral_at_mouth(states))
        entry.append(height_entering_fine_zone(states))
        expert = ScriptedExpert()
        expert.reset(np.random.default_rng(0))
        # the heads' outputs at step k acted on the state step k - 1 left (its info holds the state after it)
        for info, s, heads in zip(infos[:-1], states[:-1], agent.log[start + 1:start + len(infos)]):
            label = expert.act(info["privileged"])  # stepped along every state, so its stall counter follows
            if (where := band(s)) is not None:
                rows[where].append(commands_row(s, {**{h: heads[h] for h in HEADS}, "expert": label}))
        start += len(infos)
    return {"driver_checkpoint": driver, "shadow_checkpoint": shadow, "executed": execute, "domain": domain,
            "trials": trials,
            "seed": seed, "success": sum(bool(e[-1]["success"]) for e in episodes),
            "seated": [bool(e[-1]["success"]) for e in episodes], "lateral_at_mouth_mm": at_mouth,
            "height_entering_fine_zone_mm": entry, **{name: band_summary(r) for name, r in rows.items()}}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--driver", required=True)
    p.add_argument("--shadow", required=True)
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--domain", default="sim", choices=("sim", "real"))
    p.add_argument("--execute", default="driver", choices=(*HEADS, EXECUTE_AT_MOUTH),
                   help="whose action the arm executes (driver_no_past_actions: the driver's head shown a still arm; "
                        f"{EXECUTE_AT_MOUTH}: that only on the fixture's top off the axis, where the oracle puts it)")
    p.add_argument("--out", default=None, help="append the JSON line to this file")
    args = p.parse_args()
    emit(probe(args.driver, args.shadow, args.domain, args.trials, args.seed, args.execute), args.out)


if __name__ == "__main__":
    main()
