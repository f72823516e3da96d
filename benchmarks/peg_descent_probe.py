"""Why a Peg Insertion BC head lowers the peg before it is aligned: the same inputs through other heads.

    python benchmarks/peg_descent_probe.py --driver runs/peg_gpu/peg_model --shadow checkpoints/peg-insertion \
        [--trials 10] [--seed 0] [--domain sim] [--out benchmarks/results/peg_descent_probe.jsonl]

The driver's BC head acts (Narrow grid). At every step the same inputs (observation, proprioceptive history and
the executed past actions) also go through the shadow checkpoint's head, and through the driver's head with its
past actions zeroed; the scripted expert labels the exact state (the env's diagnostic oracle). The vertical
set-point command (action z, > 0 up) of each is compared on the "misaligned and low" states: the peg held, more
than 1 mm off the hole axis, its bottom between the mouth and the expert's carry height (15 mm above it), where the
expert rises back to carry height before aligning. If the shadow head also descends there, the inputs (the path
that led there) make the driver descend; if it does not, the driver's own mapping does; if the driver stops
descending with its past actions zeroed, it is following what it just did.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from manipulation_stages import recorded_episodes
from records import emit

from simdist.checkpoint import load_model
from simdist.model.world_model import ACTION
from simdist.planning.agent import PolicyAgent
from simdist.tasks.peg_insertion import reward as peg_reward
from simdist.tasks.peg_insertion.expert import ExpertTuning, ScriptedExpert
from simdist.tasks.registry import get_task

Z = 2  # action index of the vertical set-point command
HEADS = ("driver", "shadow", "driver_no_past_actions")


class ShadowAgent(PolicyAgent):
    """Acts with the driver's head; logs what other heads make of the same inputs."""

    def __init__(self, driver, shadow):
        super().__init__(driver)
        self.shadow = shadow.eval()
        self.log: list[dict[str, np.ndarray]] = []

    @torch.no_grad()
    def _first_action(self, model, obs_t, hist_p, hist_a, command) -> np.ndarray:
        ctx = model.planning_context(obs_t, hist_p, hist_a, command)
        return model.normalizer.denormalize(ACTION, model.plan_policy_n(ctx)[0, 0]).cpu().numpy()

    def act(self, obs):
        obs_t, hist_p, hist_a, command = self._tensors(obs)
        row = {"driver": self._first_action(self.model, obs_t, hist_p, hist_a, command),
               "shadow": self._first_action(self.shadow, obs_t, hist_p, hist_a, command),
               "driver_no_past_actions": self._first_action(self.model, obs_t, hist_p, torch.zeros_like(hist_a),
                                                            command)}
        self.log.append(row)
        return self.execute(obs, row["driver"])


def misaligned_and_low(s: peg_reward.PegState) -> bool:
    above_mouth = s.peg_bottom_z - s.hole_pos[2]
    return s.grasped and s.lateral_to_hole > 0.001 and 0.0 < above_mouth < ExpertTuning().carry_clearance_m


def probe(driver: str, shadow: str, domain: str, trials: int, seed: int) -> dict:
    task = get_task("peg-insertion")
    agent = ShadowAgent(load_model(driver), load_model(shadow))
    episodes = recorded_episodes(task, task.make_env(domain, None, seed=seed), agent, "narrow", trials, seed)
    assert sum(map(len, episodes)) == len(agent.log), "one logged head output per recorded step"
    rows, first_low = [], []
    start = 0
    for infos in episodes:
        expert = ScriptedExpert()
        expert.reset(np.random.default_rng(0))
        seen_low = False
        # the heads' outputs at step k acted on the state step k - 1 left (its info holds the state after it)
        for info, heads in zip(infos[:-1], agent.log[start + 1:start + len(infos)]):
            s = peg_reward.PegState.from_privileged(info["privileged"])
            label = expert.act(info["privileged"])  # stepped along every state, so its stall counter follows
            if not misaligned_and_low(s):
                continue
            row = {h: float(heads[h][Z]) for h in HEADS} | {"expert": float(label[Z])}
            row |= {"lateral_mm": 1e3 * s.lateral_to_hole, "above_mouth_mm": 1e3 * (s.peg_bottom_z - s.hole_pos[2])}
            rows.append(row)
            if not seen_low:
                first_low.append(row)
                seen_low = True
        start += len(infos)
    summary = {"driver": driver, "shadow": shadow, "domain": domain, "trials": trials, "seed": seed,
               "episodes_with_low_states": len(first_low), "low_states": len(rows),
               "success": sum(bool(e[-1]["success"]) for e in episodes)}
    for h in (*HEADS, "expert"):
        z = np.array([r[h] for r in rows])
        summary[h] = {"mean_z": float(z.mean()) if len(z) else None,
                      "descends_share": float((z < 0).mean()) if len(z) else None}
    summary["first_low_state_per_episode"] = [{k: round(v, 3) for k, v in r.items()} for r in first_low]
    return summary


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--driver", required=True)
    p.add_argument("--shadow", required=True)
    p.add_argument("--trials", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--domain", default="sim", choices=("sim", "real"))
    p.add_argument("--out", default=None, help="append the JSON line to this file")
    args = p.parse_args()
    emit(probe(args.driver, args.shadow, args.domain, args.trials, args.seed), args.out)


if __name__ == "__main__":
    main()
