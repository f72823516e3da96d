"""Adaptation over every evaluation grid at once (the quadruped's 5 trials × 3 speeds per round)."""

import pytest

from simdist.adaptation.adapt import _by_grid
from simdist.adaptation.rounds import round_initial_conditions
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
    with pytest.raises(ValueError, match=r"do not split evenly over the 3 grids"):
        round_initial_conditions(get_task("slippery-slope"), "all", 10, seed=0)


def test_metrics_are_averaged_per_grid():
    out = _by_grid(["a", "b", "a"], [{"success": 1.0}, {"success": 0.0}, {"success": 0.0}])
    assert out == {"a": {"success": 0.5}, "b": {"success": 0.0}}


def test_report_shows_progress_and_per_grid_results(tmp_path):
    from simdist.eval.report import write_report

    def row(j, success, progress):
        by_grid = {"0.1": {"success": success, "progress_m": progress}, "0.5": {"success": 0.0, "progress_m": 0.4}}
        return {
            "round": j,
            "real_minutes": 1.0 + j,
            "success_rate": success / 2,
            "successes": [True, False],
            "initial_conditions": [{"speed": 0.1}, {"speed": 0.5}],
            "metrics": {"progress_m": progress},
            "metrics_by_grid": by_grid,
        }

    summary = {
        "task": "foam",
        "preset": "cpu",
        "zero_shot_success": 0.0,
        "final_success": 0.5,
        "real_minutes": 2.0,
        "sim_success": {"0.1": 0.5},
        "sim_dataset": {"episodes": 2},
    }
    write_report(tmp_path, summary, {"all": {"rounds": [row(0, 0.0, 0.3), row(1, 1.0, 1.7)]}})
    md = (tmp_path / "report.md").read_text()
    assert (
        "| 1 | 1.0 | 2.0 | 0.50 | 0.09–0.91 (2 trials) | 1.70 m |" in md
        and "0.1: 1.00 / 1.70 m, 0.5: 0.00 / 0.40 m" in md
    )
    assert (tmp_path / "learning_curve.png").stat().st_size > 0


def test_report_leaves_out_columns_no_round_fills(tmp_path):
    """The pendulum reports neither progress nor per-grid results: its table has no empty columns for them."""
    from simdist.eval.report import write_report

    rounds = [
        {
            "round": j,
            "real_minutes": 1.0 + j,
            "success_rate": 0.5 * j,
            "successes_per_minute": 3.0 * j,
            "successes": [bool(j)],
            "initial_conditions": [{"angle": 0.5}],
        }
        for j in range(2)
    ]
    summary = {
        "task": "pendulum",
        "preset": "cpu",
        "zero_shot_success": 0.0,
        "final_success": 0.5,
        "real_minutes": 2.0,
        "sim_success": {"default": 0.9},
        "sim_dataset": {"episodes": 2},
    }
    write_report(tmp_path, summary, {"default": {"rounds": rounds}})
    md = (tmp_path / "report.md").read_text()
    assert (
        "| round | real minutes finetuned on (the plot's x) | real minutes after the round | success | 95 % "
        "interval | successes per robot minute |"
    ) in md
    assert "| 1 | 1.0 | 2.0 | 0.50 | 0.21–1.00 (1 trial) | 3.00 |" in md and "progress" not in md
    assert "latent error" not in md.split("| round", 1)[1]  # no empty column (the reading note names it)


def _rounds(outcomes: list[list[bool]], errors: tuple[float, float] | None = None) -> list[dict]:
    rounds = [
        {
            "round": j,
            "real_minutes": 1.0 + j,
            "success_rate": sum(o) / len(o),
            "successes": o,
            "initial_conditions": [[0.1 * i, 0.0] for i in range(len(o))],
        }
        for j, o in enumerate(outcomes)
    ]
    if errors:
        rounds[-1].update(latent_error_pretrained=[errors[0]] * 5, latent_error_finetuned=[errors[1]] * 5)
    return rounds


def test_report_states_what_adaptation_did_from_the_numbers(tmp_path):
    from simdist.eval.report import adaptation_verdict, write_report

    gain = adaptation_verdict(_rounds([[False] * 19 + [True], [True] * 18 + [False] * 2], (0.4, 0.1)))
    assert "0.05 → 0.90, a gain beyond chance" in gain and "target (≥ 2× zero shot or ≥ 0.8) is met" in gain
    assert "cut the prediction error on its held-out real episodes 4.0×" in gain
    level = adaptation_verdict(
        _rounds([[True] * 5 + [False] * 15, [True] * 3 + [False] * 17, [True] * 7 + [False] * 13])
    )
    assert "0.25 → 0.35, within chance (the 95 % intervals overlap)" in level and "is not met" in level
    worse = adaptation_verdict(_rounds([[True] * 16 + [False] * 4, [False] * 20], (0.1, 0.3)))
    assert "a loss beyond chance" in worse and "predict its held-out real episodes worse" in worse
    assert "is not met" in adaptation_verdict(_rounds([[False] * 20, [True] + [False] * 19]))  # 0 → 0.05: chance
    assert "is met" in adaptation_verdict(_rounds([[False] * 20, [True] * 8 + [False] * 12]))  # 0 → 0.4: beyond it
    assert adaptation_verdict(_rounds([[True]])) == ""  # zero shot alone: nothing to compare
    summary = {
        "task": "pendulum",
        "preset": "cpu",
        "zero_shot_success": 0.05,
        "final_success": 0.9,
        "real_minutes": 2.0,
        "sim_success": {"default": 0.9},
        "sim_dataset": {"episodes": 2},
    }
    rounds = _rounds([[False] * 19 + [True], [True] * 18 + [False] * 2])
    write_report(tmp_path, summary, {"default": {"rounds": rounds}})
    assert "a gain beyond chance" in (tmp_path / "report.md").read_text()
