"""Peg Insertion's wrist-camera perception model and the observation controller's estimate averaging."""

import numpy as np
import pytest

from simdist.tasks import get_task
from simdist.tasks.peg_insertion.observation_controller import Estimate
from simdist.tasks.peg_insertion.perception import camera_pose, handeye_offset, noise_std

DOWN = np.diag([1.0, -1.0, -1.0])  # a tool pointing down: its z axis is the world's -z


def test_reading_noise_follows_the_published_figures_and_is_held_closer_than_them():
    assert noise_std(0.0004, 0.3) == pytest.approx(0.0004)
    assert noise_std(0.0004, 1.0) == pytest.approx(0.0007)
    assert noise_std(0.0004, 0.1) == pytest.approx(0.0004)


def test_a_hand_eye_rotation_shifts_an_estimate_in_proportion_to_its_range():
    camera = camera_pose(np.array([0.4, 0.0, 0.35]), DOWN)
    assert camera[0][2] == pytest.approx(0.5)  # the camera sits at the flange, 0.15 m up the tool axis
    rotation = np.array([0.0025, 0.0, 0.0])
    near = handeye_offset(np.zeros(3), rotation, *camera, np.array([0.4, 0.0, 0.3]))
    far = handeye_offset(np.zeros(3), rotation, *camera, np.array([0.4, 0.0, 0.1]))
    assert np.linalg.norm(near) == pytest.approx(0.0025 * 0.2)
    assert np.linalg.norm(far) == pytest.approx(2 * np.linalg.norm(near))


def test_the_estimates_are_exact_without_noise_and_calibration_error_and_off_by_the_range_with_it():
    task = get_task("peg-insertion")
    exact = {
        "perception_position_noise_range_m": (0.0, 0.0),
        "perception_position_bias_range_m": (0.0, 0.0),
        "perception_handeye_rotation_rad": 0.0,
    }
    ic = task.initial_conditions("narrow", 1)[0]
    from simdist.tasks.peg_insertion.layout import PRIVILEGED, PROPRIO

    for rotation, bound in ((0.0, 1e-9), (0.01, 0.01 * 3 * 1.0)):  # 3 sigma of a rotation, times a range under 1 m
        env = task.make_env("real", {**exact, "perception_handeye_rotation_rad": rotation}, seed=0)
        obs, info = env.reset(seed=0, options={"initial_condition": ic})
        hole = PRIVILEGED.get(env.oracle_privileged_state(), "hole_pos")
        error = np.linalg.norm(PROPRIO.get(obs["proprio"], "hole_pos_est") - hole)
        assert error <= bound
        if rotation:
            assert error > 1e-4


def test_an_estimate_starts_over_from_above_and_then_ignores_oblique_readings():
    estimate = Estimate()
    camera = camera_pose(np.array([0.0, 0.0, 0.3]), DOWN)
    estimate.add(np.array([0.3, 0.0, 0.0]), camera)  # oblique, far
    assert estimate.mean[0] == pytest.approx(0.3)
    estimate.add(np.array([0.001, 0.0, 0.0]), camera)  # from above: the average starts over
    estimate.add(np.array([0.003, 0.0, 0.0]), camera)
    estimate.add(np.array([0.3, 0.0, 0.0]), camera)  # oblique again: ignored
    assert estimate.on_axis and estimate.mean[0] == pytest.approx(0.002, rel=1e-3)


def test_a_noisier_camera_is_noisier_at_every_distance():
    assert noise_std(0.0008, 1.0) == pytest.approx(0.0014)
    assert noise_std(0.0, 1.0) == 0.0
