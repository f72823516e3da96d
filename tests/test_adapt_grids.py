"""Adaptation over every evaluation grid at once (the quadruped's 5 trials × 3 speeds per round)."""

import pytest

from simdist.adapt import _by_grid, round_initial_conditions
from simdist.tasks import get_task


def test_all_grids_split_the_round_evenly_and_label_each_episode():
    task = get_task("slippery-slope")
    ics, labels = round_initial_conditions(task, "all", 15, seed=0)
    assert labels == [g for g in task.grids for _ in range(5)]
    assert [ic["speed"] for ic in ics] == [float(g) for g in labels]
    assert round_initial_conditions(task, "all", 15, seed=0)[0] == ics  # fixed across rounds
    single, single_labels = round_initial_conditions(task, "0.3", 4, seed=0)
    assert single_labels == ["0.3"] * 4 and all(ic["speed"] == 0.3 for ic in single)


def test_uneven_split_is_refused_with_the_grids_named():
    with pytest.raises(ValueError, match=r"does not split evenly over the 3 grids"):
        round_initial_conditions(get_task("slippery-slope"), "all", 10, seed=0)


def test_metrics_are_averaged_per_grid():
    out = _by_grid(["a", "b", "a"], [{"success": 1.0}, {"success": 0.0}, {"success": 0.0}])
    assert out == {"a": {"success": 0.5}, "b": {"success": 0.0}}
