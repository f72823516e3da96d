"""The UR5e flange force/torque sensor: Peg Insertion observes it as a 6-float "wrench" group of its own, reading the
external wrench on the tool (payload weight removed) with the datasheet's noise; a model trained without the group
still loads and plans on the task (its groups are a subset of the task's)."""

import numpy as np
import pytest

from simdist.model.world_model import ModelSpec
from simdist.tasks import get_task
from simdist.tasks.base import PROPRIO_KEY, WRENCH_KEY
from simdist.tasks.peg_insertion.layout import PRIVILEGED
from simdist.training.checkpoint import CheckpointError, check_model_fits_task, observation_groups_fit

NOISELESS = {
    "wrench_force_noise_n": 0.0,
    "wrench_torque_noise_nm": 0.0,
    "wrench_force_bias_n": 0.0,
    "wrench_torque_bias_nm": 0.0,
    "arm_mass_scale_range": (1.0, 1.0),
}


@pytest.fixture(scope="module")
def task():
    return get_task("peg-insertion-tool-frame")  # the observation controller acts in the tool's frame


def reset_narrow(env, task, seed=0):
    return env.reset(seed=seed, options={"initial_condition": task.initial_conditions("narrow", 1)[0]})[0]


def test_wrench_is_a_six_float_group_of_its_own(task):
    assert task.spec.obs_shapes == {PROPRIO_KEY: (46,), WRENCH_KEY: (6,)}
    env = task.make_env("real", seed=0)
    obs = reset_narrow(env, task)
    assert obs[WRENCH_KEY].shape == (6,) and env.observation_space[WRENCH_KEY].shape == (6,)
    task.spec.check_obs(obs)


def test_free_arm_reads_zero_and_a_push_reads_the_contact_force(task):
    env = task.make_env("sim", NOISELESS, seed=0)
    obs = reset_narrow(env, task)
    for _ in range(3):
        obs, *_ = env.step(np.zeros(7))
    np.testing.assert_allclose(obs[WRENCH_KEY], 0.0, atol=0.05)  # payload weight removed
    # lower the open gripper's palm onto the fixture top beside the hole: the table pushes the tool up (+z world)
    hole = PRIVILEGED.get(env.oracle_privileged_state(), "hole_pos")
    for step in range(40):
        tcp = PRIVILEGED.get(env.oracle_privileged_state(), "tcp_pos")
        goal = np.array([hole[0] + 0.025, hole[1], 0.1 if step < 20 else 0.0])  # over the top, then down
        action = np.zeros(7)
        action[:3] = np.clip((goal - tcp) / 0.04, -1, 1)
        action[6] = -1.0
        obs, *_ = env.step(action)
    rot = env.data.site_xmat[env.ft_site].reshape(3, 3)
    force_world = rot @ obs[WRENCH_KEY][:3]
    assert force_world[2] > 5.0  # the surface pushes back on the tool


def test_wrench_noise_and_offset_follow_the_datasheet(task):
    env = task.make_env("sim", {"arm_mass_scale_range": (1.0, 1.0)}, seed=0)
    offsets, spreads = [], []
    for seed in range(12):
        reset_narrow(env, task, seed)
        readings = np.array([env.step(np.zeros(7))[0][WRENCH_KEY] for _ in range(12)])
        offsets.append(env.wrench_bias)
        spreads.append(readings.std(axis=0))
    spread, offset = np.mean(spreads, axis=0), np.std(offsets, axis=0)
    assert np.all(np.abs(spread[:3] - 3.5) < 1.2) and np.all(np.abs(spread[3:] - 0.2) < 0.07)
    assert np.all(offset[:3] > 1.5) and np.all(offset[3:] > 0.1)


def test_a_model_without_the_sensor_fits_the_task_and_a_wrong_shape_does_not(task):
    assert observation_groups_fit({PROPRIO_KEY: (46,)}, task.spec.obs_shapes)
    assert not observation_groups_fit({PROPRIO_KEY: (46,), WRENCH_KEY: (3,)}, task.spec.obs_shapes)
    assert not observation_groups_fit({PROPRIO_KEY: (46,), "heights": (4, 4)}, task.spec.obs_shapes)

    class Model:
        def __init__(self, shapes):
            self.spec = ModelSpec(shapes, 7, 0, (-1.0,) * 7, (1.0,) * 7)

    check_model_fits_task(Model({PROPRIO_KEY: (46,)}), task, "ckpt")
    with pytest.raises(CheckpointError, match="another task"):
        check_model_fits_task(Model({PROPRIO_KEY: (45,)}), task, "ckpt")


def test_the_observation_controller_seats_a_peg_on_observations_alone(task):
    from simdist.tasks.peg_insertion.observation_controller import observation_controller, run_episode

    env = task.make_env("sim", seed=0)
    controller = observation_controller()
    assert run_episode(env, controller, task.initial_conditions("narrow", 1)[0], seed=0)
    assert controller.phase == "insert"  # it got there by the force-guided phases


def test_a_grasped_peg_pressed_on_the_fixture_does_not_creep_through_the_pads(task):
    # MuJoCo's soft friction let it creep about 0.4 mm a control step at 7 N; the noslip post-solver removes that.
    from simdist.tasks.peg_insertion.creep import creep_trial

    env = task.make_env("sim", seed=0)
    result = creep_trial(env, task.initial_conditions("narrow", 1)[0], seed=0, push_m=0.0015, steps=8)
    assert result["grasped"] and result["force_n"] > 5.0
    assert abs(result["slip_mm_per_step"]) < 0.05
    env.model.opt.noslip_iterations = 0  # the same press without it does creep: the check can fail
    result = creep_trial(env, task.initial_conditions("narrow", 1)[0], seed=0, push_m=0.0015, steps=8)
    assert result["slip_mm_per_step"] > 0.2


def test_noslip_is_a_physics_option_peg_insertion_turns_on_and_table_leg_leaves_off(task):
    from simdist.tasks import get_task

    assert task.make_env("sim", seed=0).model.opt.noslip_iterations == 3
    assert task.make_env("sim", {"noslip_iterations": 0}, seed=0).model.opt.noslip_iterations == 0
    assert get_task("table-leg").make_env("real", seed=0).model.opt.noslip_iterations == 0
