"""Peg Insertion's teachers: `perceiving` (the expert aiming at the hole the robot perceives) and `gated` (the expert
descending only while the camera's reading puts the peg over the hole)."""

import numpy as np
import pytest

from simdist.data.generate import GenerationConfig, run_episode
from simdist.data.regime import act, teacher, teachers
from simdist.tasks import get_task
from simdist.tasks.peg_insertion.env import InitialCondition
from simdist.tasks.peg_insertion.layout import PROPRIO
from simdist.tasks.peg_insertion.reward import PegState


@pytest.fixture(scope="module")
def task():
    return get_task("peg-insertion-tool-frame")  # the policies' own set-point steps, unconverted


def _carried_above_hole(task, seed: int = 0):
    """An env whose expert carries the peg to 1-2 cm above the hole, with the last observation and state."""
    env = task.make_env("sim", seed=seed)
    obs, info = env.reset(seed=seed, options={"initial_condition": InitialCondition(peg_xy=(0.45, 0.12), peg_yaw=0.0)})
    expert, rng = task.expert(), np.random.default_rng(seed)
    expert.reset(rng)
    for _ in range(task.spec.episode_steps):
        state = PegState.from_privileged(info["privileged"])
        if state.grasped and state.lateral_to_hole < 0.008:
            return env, obs, info
        obs, _, _, _, info = env.step(expert.act(info["privileged"]))
    raise AssertionError("the expert never carried the peg over the hole")


def test_the_task_lists_its_teachers_and_an_unknown_one_is_refused(task):
    assert set(teachers(task)) == {"expert", "perceiving", "gated", "gated-hold"}
    assert teacher(task, "perceiving").name == "perceiving_teacher"
    with pytest.raises(ValueError, match="pendulum has no teacher 'perceiving'; valid: expert"):
        teacher(get_task("pendulum"), "perceiving")


def test_near_the_hole_it_aims_where_the_hole_is_perceived(task):
    env, obs, info = _carried_above_hole(task)
    shift = np.array([0.002, -0.001, 0.0])

    def xy_action(hole_shift):
        moved = {k: np.array(v, copy=True) for k, v in obs.items()}
        PROPRIO.get(moved["proprio"], "hole_pos_est")[:] += hole_shift  # a view: the reading itself moves
        policy = teacher(task, "perceiving")
        policy.reset(np.random.default_rng(0))
        return act(policy, moved, info["privileged"])[:2]

    moved = xy_action(shift) - xy_action(np.zeros(3))
    cosine = moved @ shift[:2] / (np.linalg.norm(moved) * np.linalg.norm(shift[:2]))
    assert np.linalg.norm(moved) > 0 and cosine > 0.9  # the teacher follows the reading, the privileged expert cannot


def test_it_must_see_before_it_acts_and_alg2_episodes_show_it_every_step(task):
    env, obs, info = _carried_above_hole(task)
    policy = teacher(task, "perceiving")
    policy.reset(np.random.default_rng(0))
    with pytest.raises(RuntimeError, match="observe"):
        policy.act(info["privileged"])
    cfg = GenerationConfig(expert_prob=1.0, never_noise_prob=1.0)
    ep = run_episode(task, task.make_env("sim", seed=1), policy, True, task.critic(), cfg, np.random.default_rng(1))
    assert ep.source_policy == "perceiving_teacher" and ep.success and ep.expert.all()


def test_the_gated_teacher_descends_only_while_the_camera_sees_the_peg_over_the_hole(task):
    env = task.make_env("sim", seed=0)
    obs, info = env.reset(seed=0, options={"initial_condition": InitialCondition(peg_xy=(0.45, 0.12), peg_yaw=0.0)})
    expert = task.expert()
    expert.reset(np.random.default_rng(0))
    for _ in range(task.spec.episode_steps):  # the expert carries the peg over the hole and starts to descend
        state = PegState.from_privileged(info["privileged"])
        if state.grasped and state.lateral_to_hole < 0.0005 and 0.002 < state.peg_bottom_z - state.hole_pos[2] < 0.01:
            break
        obs, _, _, _, info = env.step(expert.act(info["privileged"]))
    else:
        raise AssertionError("the expert never aligned the peg above the hole")

    def z_action(perceived_offset, name="gated"):
        seen = {k: np.array(v, copy=True) for k, v in obs.items()}
        PROPRIO.get(seen["proprio"], "peg_to_hole_est")[:2] = perceived_offset
        policy = teacher(task, name)
        policy.reset(np.random.default_rng(0))
        return act(policy, seen, info["privileged"])[2]

    assert z_action([0.0005, 0.0]) < -0.1  # seen over the hole: down
    assert z_action([0.003, 0.0]) > 0.05  # truly aligned, but seen 3 mm off: it backs up to carry height
    assert z_action([0.0005, 0.0], "gated-hold") < -0.1  # the holding variant descends as the gated one does
    assert abs(z_action([0.003, 0.0], "gated-hold")) < 0.02  # and waits where it is
