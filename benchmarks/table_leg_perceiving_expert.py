"""Table Leg: the privileged expert made to see the leg and the hole as the robot's perception does.

The Table Leg counterpart of benchmarks/peg_perceiving_expert.py (same views: `exact`, `bias`, `filtered` over the
last 6 observations, `perceived` from one): the expert's leg and hole-mouth positions are replaced by what
perception reports, bias and noise included, which bounds what a policy on the observations can do.

    python benchmarks/table_leg_perceiving_expert.py --trials 40 [--grid narrow] [--domain sim|real] [--views ...]
"""

from __future__ import annotations

import argparse
import json
import logging

import numpy as np
from peg_perceiving_expert import VIEWS, perceiving_outcomes

from simdist.tasks.registry import get_task
from simdist.tasks.table_leg.layout import PRIVILEGED, PROPRIO

log = logging.getLogger(__name__)


def perception_error(privileged: np.ndarray, proprio: np.ndarray) -> np.ndarray:
    """(2, 3): estimated minus true position of the leg's shoulder and of the hole mouth in this observation."""
    return np.stack([PROPRIO.get(proprio, "leg_pos_est") - PRIVILEGED.get(privileged, "leg_pos"),
                     PROPRIO.get(proprio, "hole_pos_est") - PRIVILEGED.get(privileged, "hole_pos")])


def outcomes(task, domain: str, view: str, ics: list) -> list[bool]:
    return perceiving_outcomes(task.make_env(domain, seed=0), task.expert, view, ics, perception_error,
                               (PRIVILEGED.slice("leg_pos"), PRIVILEGED.slice("hole_pos")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--grid", default="narrow")
    parser.add_argument("--domain", default="sim")
    parser.add_argument("--views", nargs="+", default=list(VIEWS), choices=VIEWS)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    task = get_task("table-leg")
    ics = task.initial_conditions(args.grid, args.trials, seed=0)
    rows = []
    for view in args.views:
        rate = float(np.mean(outcomes(task, args.domain, view, ics)))
        log.info("table-leg expert, %s %s: %.2f", args.domain, view, rate)
        rows.append({"task": "table-leg", "controller": "expert", "view": view, "success": rate,
                     "trials": len(ics), "grid": args.grid, "domain": args.domain})
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
