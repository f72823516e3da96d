"""Peg Insertion: the privileged expert made to see the peg and the hole as the robot's perception does.

Every learned policy (SimDist's head and planner, BC, Diffusion Policy) sees the peg and hole positions through
perception with a per-episode bias and per-step noise (docs/tasks/peg-insertion.md); the expert that labels the data
sees them exactly, and inserts with a 0.5 mm alignment tolerance into a hole with 0.4 mm of clearance a side. This
runs the same expert with its peg and hole positions replaced by

  exact       the privileged state (the data's labeller);
  bias        true position + the episode's perception bias (a perfect noise filter: the best any policy on the
              observations can know without searching);
  filtered    true position + the perception error averaged over the last 6 observations (what the world
              model's 5-step history plus the current observation could know, with a perfect motion model);
  perceived   the observation's estimates, bias and per-step noise (what one observation says);

with the expert's own search once stalled on the rim (a 0.6 mm circle around where it believes the hole is) and
with a spiral growing 0.1 mm a step to 3 mm (`ExpertTuning.search_growth_m`), and prints the success of each.
`--controller teleoperator` runs the teleoperator stand-in instead (fine gain 0.4: it seats every `real` trial on
exact state), which bounds what a policy on the observations can reach in `real`.

    python benchmarks/peg_perceiving_expert.py --trials 40 [--grid narrow] [--domain sim|real] \
        [--controller expert|teleoperator] [--tuning-set FIELD=VALUE ...] [--views filtered perceived] [--circle-only]
"""

from __future__ import annotations

import argparse
import json
import logging
from collections import deque
from dataclasses import replace

import numpy as np

from simdist.config import parse_overrides
from simdist.tasks.peg_insertion.expert import TELEOPERATOR, ExpertTuning, ScriptedExpert
from simdist.tasks.peg_insertion.layout import PRIVILEGED, PROPRIO
from simdist.tasks.peg_insertion.task import PegInsertionTask

log = logging.getLogger(__name__)
VIEWS = ("exact", "bias", "filtered", "perceived")
CONTROLLERS = {"expert": ExpertTuning(), "teleoperator": TELEOPERATOR}


def searches(base: ExpertTuning) -> dict[str, ExpertTuning]:
    return {"circle": base, "spiral": replace(base, search_growth_m=0.0001)}
FILTER_STEPS = 6  # ModelConfig.history (5) past observations and the current one


def perception_error(privileged: np.ndarray, proprio: np.ndarray) -> np.ndarray:
    """(2, 3): estimated minus true position of the peg and of the hole mouth in this observation."""
    return np.stack([PROPRIO.get(proprio, "peg_pos_est") - PRIVILEGED.get(privileged, "peg_pos"),
                     PROPRIO.get(proprio, "hole_pos_est") - PRIVILEGED.get(privileged, "hole_pos")])


def seen_error(view: str, errors: deque, bias: np.ndarray) -> np.ndarray:
    if view == "exact":
        return np.zeros((2, 3))
    if view == "bias":
        return bias
    if view == "filtered":
        return np.mean(errors, axis=0)
    return errors[-1]


def perceiving_outcomes(env, make_policy, view: str, ics: list, error_of, objects: tuple[slice, slice],
                        reset_seeds=None) -> list[bool]:
    """Success of each episode of a privileged policy whose two objects' positions (`objects`: slices of the
    privileged vector) carry the `view` of the perception error `error_of(privileged, proprio)` -> (2, 3).
    Episode i resets `env` with ``reset_seeds[i]`` (default: i)."""
    seated = []
    for i, ic in enumerate(ics):
        policy = make_policy()
        policy.reset(np.random.default_rng([0, i]))
        obs, _ = env.reset(seed=i if reset_seeds is None else reset_seeds[i], options={"initial_condition": ic})
        errors: deque = deque(maxlen=FILTER_STEPS)
        done, info = False, {"success": False}
        while not done:
            privileged = env.oracle_privileged_state()
            errors.append(error_of(privileged, obs["proprio"]))
            error = seen_error(view, errors, env.perception_bias)
            seen = privileged.copy()
            seen[objects[0]] += error[0]
            seen[objects[1]] += error[1]
            obs, _, terminated, truncated, info = env.step(policy.act(seen))
            done = terminated or truncated
        seated.append(bool(info["success"]))
    return seated


def outcomes(task, domain: str, view: str, tuning: ExpertTuning, ics: list, reset_seeds=None) -> list[bool]:
    """Peg Insertion's scripted expert with `tuning`, on the `view` of the peg and hole positions."""
    return perceiving_outcomes(task.make_env(domain, seed=0), lambda: ScriptedExpert(tuning), view, ics,
                               perception_error, (PRIVILEGED.slice("peg_pos"), PRIVILEGED.slice("hole_pos")),
                               reset_seeds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--grid", default="narrow")
    parser.add_argument("--domain", default="sim")
    parser.add_argument("--controller", default="expert", choices=sorted(CONTROLLERS))
    parser.add_argument("--tuning-set", action="append", default=[], metavar="FIELD=VALUE",
                        help="override an ExpertTuning field of the controller (repeatable)")
    parser.add_argument("--views", nargs="+", default=list(VIEWS), choices=VIEWS)
    parser.add_argument("--circle-only", action="store_true", help="skip the spiral-search rows")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    task = PegInsertionTask()
    ics = task.initial_conditions(args.grid, args.trials, seed=0)
    rows = []
    base = replace(CONTROLLERS[args.controller], **parse_overrides(ExpertTuning, args.tuning_set))
    for search, tuning in searches(base).items():
        if search == "spiral" and args.circle_only:
            continue
        for view in args.views:
            rate = float(np.mean(outcomes(task, args.domain, view, tuning, ics)))
            log.info("%s, %s search, %s: %.2f", args.controller, search, view, rate)
            rows.append({"controller": args.controller, "tuning_set": args.tuning_set, "search": search, "view": view,
                         "success": rate, "trials": len(ics), "grid": args.grid, "domain": args.domain})
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
