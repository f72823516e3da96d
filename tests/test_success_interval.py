import pytest

from simdist.rollout import PrivilegedAgent, evaluate_grids, wilson_interval
from simdist.tasks import get_task


@pytest.mark.parametrize(
    "successes, trials, lo, hi",
    [(0, 10, 0.0, 0.2775), (5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0), (12, 15, 0.5481, 0.9295)],
)
def test_wilson_interval_matches_reference_values(successes, trials, lo, hi):
    got = wilson_interval(successes, trials)
    assert got == pytest.approx((lo, hi), abs=1e-4)


def test_wilson_interval_narrows_with_trials_and_covers_the_rate():
    narrow, wide = wilson_interval(30, 45), wilson_interval(2, 3)
    assert narrow[0] < 30 / 45 < narrow[1] and wide[0] < 2 / 3 < wide[1]
    assert narrow[1] - narrow[0] < wide[1] - wide[0]
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_evaluation_reports_the_interval_of_its_success_rate():
    task = get_task("pendulum")
    out = evaluate_grids(task, lambda env: PrivilegedAgent(task.expert(), env), "sim", task.grids, 4, seed=0)
    lo, hi = out["success_ci95"]
    assert lo <= out["success_rate"] <= hi and 0.0 <= lo < hi <= 1.0
    grid = out["grids"]["default"]
    assert tuple(grid["success_ci95"]) == wilson_interval(round(grid["success_rate"] * 4), 4)


def test_readable_cli_output_puts_each_grid_on_its_own_line():
    from simdist.cli.main import _readable

    lines = _readable(
        {
            "task": "foam",
            "grids": {"0.2": {"success_rate": 0.6, "success_ci95": (0.3226, 0.8367), "trials": 5}},
            "success_rate": 0.6666667,
            "success_ci95": (0.5, 0.8),
        }
    )
    assert lines == [
        "task: foam",
        "grids:",
        "  0.2: success_rate 0.6, success_ci95 [0.323, 0.837], trials 5",
        "success_rate: 0.667",
        "success_ci95: [0.5, 0.8]",
    ]
