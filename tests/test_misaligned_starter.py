"""Peg Insertion's misaligned starter (`data.mid_task_starter=misaligned`): mid-task starts beside the hole."""

import numpy as np
import pytest

from simdist.data.regime import GenerationConfig, starter
from simdist.data.resets import MidTaskStarts
from simdist.tasks import get_task
from simdist.tasks.peg_insertion.reward import PegState


@pytest.fixture(scope="module")
def task():
    return get_task("peg-insertion-tool-frame")  # the policies' own set-point steps, unconverted


def test_starters_extend_the_teachers_and_an_unknown_one_is_refused(task):
    assert starter(task, "misaligned").name == "misaligned"
    assert starter(task, "expert").name == "expert"  # any teacher may start runs too
    valid = "valid: expert, perceiving, gated, gated-hold, misaligned"
    with pytest.raises(ValueError, match=f"peg-insertion-tool-frame has no starter 'nope'; {valid}"):
        starter(task, "nope")


def test_its_believed_hole_is_millimetres_off_and_moves_during_a_run(task):
    policy, rng = starter(task, "misaligned"), np.random.default_rng(0)
    policy.reset(rng)
    first = policy.tuning.hole_bias_m
    biases = set()
    for _ in range(60):
        policy.act(task.make_env("sim", seed=0).reset(seed=0)[1]["privileged"])
        biases.add(policy.tuning.hole_bias_m)
    assert 0.0005 < np.linalg.norm(first) < 0.015
    assert 2 < len(biases) < 20  # redrawn every ~10 steps


def test_starts_from_its_runs_hold_the_peg_beside_the_hole(task):
    cfg = GenerationConfig(mid_task_prob=1.0, mid_task_starts_per_run=4, mid_task_starter="misaligned")
    env, rng = task.make_env("sim", seed=0), np.random.default_rng(0)
    starts = MidTaskStarts(task, env, starter(task, "misaligned"), cfg, rng)
    lateral = []
    for k in range(8):
        _, _, info = starts.next(seed=k)
        state = PegState.from_privileged(info["privileged"])
        if state.grasped and state.peg_bottom_z - state.hole_pos[2] < 0.03:
            lateral.append(state.lateral_to_hole)
    assert len(lateral) >= 5  # most starts hold the peg within 3 cm above the mouth
    assert 0.001 < np.median(lateral) < 0.01  # millimetres beside the axis: offsets the camera resolves
