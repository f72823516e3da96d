"""How far a robot standing on Slippery Slope's 5.7° panel creeps downhill in 2 s, `sim` vs `real` at several
panel frictions (the test `tests/test_quadruped.py::test_low_friction_slope_slides_in_real`, swept; figures in
docs/benchmarks.md and docs/results/slippery-slope.md).

    python benchmarks/slope_creep.py
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_quadruped import COURSES, FIXED, hold, place  # noqa: E402  (the test's robot placement helpers)

from simdist.tasks import get_task  # noqa: E402

X_ON_STEEP_PANEL = 1.14  # m, on the 5.7° panel

if __name__ == "__main__":
    course = COURSES["slippery-slope"]
    for mu in (0.075, 0.12, 0.15, 0.2):
        moved = {}
        for domain in ("sim", "real"):
            physics = dict(FIXED, panel_friction=mu) if domain == "real" else FIXED
            env = get_task("slippery-slope").make_env(domain, physics=physics)
            env.reset(seed=0)
            place(env, X_ON_STEEP_PANEL, float(course.profile(np.array([X_ON_STEEP_PANEL]))[0]) + 0.02)
            hold(env, 1.0)  # let the landing pitch settle
            x0 = env.batch.qpos[0, 0]
            hold(env, 2.0)
            moved[domain] = float(env.batch.qpos[0, 0] - x0)
        print(f"real panel friction {mu}: moved {moved['real']:+.2f} m in real, {moved['sim']:+.2f} m in sim")
