"""Fast checks of the table-leg task plug-in (whole file: well under 40 s on one CPU core)."""

from __future__ import annotations

import json

import mujoco
import numpy as np
import pytest

from simdist.tasks import PROPRIO_KEY, get_task
from simdist.tasks.table_leg.env import InitialCondition
from simdist.tasks.table_leg.layout import PRIVILEGED, PROPRIO
from simdist.tasks.table_leg.model import LEG, TABLETOP
from simdist.tasks.table_leg.physics import TableLegPhysics
from simdist.tasks.table_leg.reward import LegState, is_seated


@pytest.fixture(scope="module")
def task():
    return get_task("table-leg")


@pytest.fixture(scope="module")
def sim_env(task):
    return task.make_env("sim", seed=0)


def test_registered_spec(task):
    assert task.spec.name == "table-leg"
    assert task.spec.obs_shapes == {PROPRIO_KEY: (PROPRIO.size,)}
    assert task.spec.control_period_s == pytest.approx(0.2) and task.spec.episode_steps == 225
    assert task.grids == ("narrow", "wide")
    assert isinstance(task.default_physics("real"), task.physics_type)


def test_model_loads_and_steps(task, sim_env):
    obs, _ = sim_env.reset(seed=3)
    task.spec.check_obs(obs)
    for _ in range(3):
        obs, reward, terminated, truncated, _ = sim_env.step(np.zeros(task.spec.action_dim))
        task.spec.check_obs(obs)
    assert np.isfinite(reward) and not terminated and not truncated
    assert sim_env.data.warning[mujoco.mjtWarning.mjWARN_BADQACC].number == 0


def test_initial_conditions_deterministic(task):
    for grid in task.grids:
        assert task.initial_conditions(grid, 20, seed=0) == task.initial_conditions(grid, 20, seed=0)
        assert task.initial_conditions(grid, 5, seed=0) != task.initial_conditions(grid, 5, seed=1)
    narrow = task.initial_conditions("narrow", 20)
    assert all(np.all(np.abs(np.array(ic.rack_xy) - (0.45, 0.12)) <= 0.01 + 1e-12) for ic in narrow)
    with pytest.raises(KeyError, match="narrow"):
        task.initial_conditions("medium", 3)


def _rest_in_lead_in(env, tilt: float = 0.0) -> None:
    """Reset, then stand the leg with its stud on the lead-in floor (tilted about x by ``tilt``) and let the
    thread check run once."""
    env.reset(seed=0, options={"initial_condition": InitialCondition((0.45, 0.12), 0.0)})
    hole = env.data.site_xpos[env.hole_site].copy()
    q = env.leg_qpos
    axis = np.array([0.0, -np.sin(tilt), np.cos(tilt)])
    env.data.qpos[q:q + 3] = hole + np.array([0, 0, -TABLETOP.lead_in_depth]) + axis * LEG.stud_length
    env.data.qpos[q + 3:q + 7] = [np.cos(tilt / 2), np.sin(tilt / 2), 0.0, 0.0]
    mujoco.mj_forward(env.model, env.data)
    env._update_thread()


def _twist_leg(env, torque: float, steps: int) -> None:
    """Turn the leg with an external torque about -z (clockwise from above = tightening), gripper open."""
    env.data.xfrc_applied[env.leg_body, 5] = -torque
    for _ in range(steps):
        env.step(np.array([0, 0, 0, 0, 0, 0, -1.0]))
    env.data.xfrc_applied[env.leg_body] = 0.0


def test_seated_detector_on_constructed_states(sim_env):
    seated_turns = sim_env.physics.seated_turns
    _rest_in_lead_in(sim_env)
    engaged = LegState.from_privileged(sim_env.privileged())
    assert engaged.engaged and not is_seated(engaged, seated_turns)  # caught, but not turned
    sim_env.data.qpos[sim_env.thread.turn_qpos] = 2 * np.pi * (seated_turns - 0.3)
    mujoco.mj_forward(sim_env.model, sim_env.data)
    assert not is_seated(LegState.from_privileged(sim_env.privileged()), seated_turns)
    sim_env.data.qpos[sim_env.thread.turn_qpos] = 2 * np.pi * seated_turns
    assert is_seated(LegState.from_privileged(sim_env.privileged()), seated_turns)
    sim_env.thread.cross_threaded = True  # a cross-threaded leg at the same turn count is not seated
    assert not is_seated(LegState.from_privileged(sim_env.privileged()), seated_turns)
    _rest_in_lead_in(sim_env, tilt=0.3)  # too tilted to catch the thread
    assert not sim_env.thread.engaged
    assert not is_seated(LegState.from_privileged(sim_env.privileged()), seated_turns)


def test_turning_engaged_leg_advances_by_pitch(task):
    env = task.make_env("sim", {"thread_friction_torque_range_nm": [0.05, 0.05]}, seed=0)
    _rest_in_lead_in(env)
    z0 = env.data.xpos[env.leg_body][2]
    _twist_leg(env, 0.06, 3)
    turns = env.thread.read_turns(env.data)
    advance = z0 - env.data.xpos[env.leg_body][2]
    assert 0.1 < turns < 1.3  # mid-thread, not at the end stop
    assert advance == pytest.approx(turns * env.physics.thread_pitch_m, abs=3e-4)
    _twist_leg(env, 0.06, 15)  # on to the end of the thread: the env reports success
    assert env.thread.read_turns(env.data) == pytest.approx(env.physics.seated_turns, abs=0.05)
    assert env.step(np.array([0, 0, 0, 0, 0, 0, -1.0]))[4]["success"]
    assert env.data.warning[mujoco.mjtWarning.mjWARN_BADQACC].number == 0


def test_physics_overrides_dict_and_files(task, tmp_path):
    env = task.make_env("sim", {"thread_friction_torque_range_nm": [0.07, 0.07], "thread_pitch_m": 0.004}, seed=0)
    env.reset(seed=0)
    assert env.model.dof_frictionloss[env.thread.turn_dof] == pytest.approx(0.07)
    assert env.model.eq_data[env.model.equality("thread_coupling").id, 1] == pytest.approx(0.004 / (2 * np.pi))
    json_file = tmp_path / "physics.json"
    json_file.write_text(json.dumps({"finger_friction_range": [0.7, 0.7]}))
    yaml_file = tmp_path / "physics.yaml"
    yaml_file.write_text("joint_stiffness_scale_range: [0.6, 0.6]\nactuation_latency_range_s: [0.02, 0.02]\n")
    for path, field, value in ((json_file, "finger_friction_range", 0.7), (yaml_file, "joint_stiffness_scale_range", 0.6)):
        env = task.make_env("real", path, seed=0)
        env.reset(seed=0)
        assert env.draw[field] == pytest.approx(value)
    assert env.latency_steps == round(0.02 / env.physics.timestep_s)
    env = task.make_env("real", TableLegPhysics(tabletop_friction_range=(0.5, 0.5)))
    assert env.physics.tabletop_friction_range == (0.5, 0.5)
    with pytest.raises(KeyError, match="thread_friction_torque_range_nm"):
        task.make_env("sim", {"thread_fricton": [0.5, 0.5]})


def test_observations_hold_no_privileged_state(sim_env):
    obs, info = sim_env.reset(seed=1)
    assert set(obs) == {PROPRIO_KEY}
    assert obs[PROPRIO_KEY].shape == (PROPRIO.size,) and PROPRIO.size < PRIVILEGED.size
    for name in ("physics", "setpoint_pos", "thread_engaged", "thread_turns", "thread_start_turns_left"):
        assert name not in PROPRIO.names()
    exact = PRIVILEGED.get(info["privileged"], "leg_pos")
    assert not np.allclose(exact, PROPRIO.get(obs[PROPRIO_KEY], "leg_pos_est"), atol=1e-7)


def test_real_info_is_not_privileged(task):
    env = task.make_env("real", seed=0)
    obs, info = env.reset(options={"initial_condition": task.initial_conditions("narrow", 1)[0]})
    assert "privileged" not in info and "dense_reward" not in info and "success" in info
    obs, reward, _, _, info = env.step(np.zeros(task.spec.action_dim))
    assert set(info) == {"success"} and reward == 0.0
    task.spec.check_obs(obs)
    assert env.privileged().shape == (PRIVILEGED.size,)  # the evaluation-only oracle still works


def test_action_bounds(task):
    envs = [task.make_env("sim", seed=0) for _ in range(2)]
    for env in envs:
        env.reset(seed=5)
    envs[0].step(np.array([1.0, -1.0, 0.5, 0.0, 0.0, 0.0, -1.0]))
    envs[1].step(np.array([50.0, -7.0, 0.5, 0.0, 0.0, 0.0, -3.0]))
    assert np.allclose(envs[0].data.qpos, envs[1].data.qpos)
    with pytest.raises(ValueError, match="NaN"):
        envs[0].step(np.array([np.nan, 0, 0, 0, 0, 0, 0]))


def test_expert_seats_leg_in_sim(task, sim_env):
    from simdist.tasks.ur5e.rollout import run_episode

    ic = task.initial_conditions("narrow", 1)[0]
    episode = run_episode(sim_env, [(task.expert(), 0)], np.random.default_rng(0), ic, seed=0)
    assert episode.success and episode.terminated and episode.steps < task.spec.episode_steps
    names = [policy.name for policy in task.suboptimal_policies()]
    assert len(names) == len(set(names)) and task.expert().name not in names


def test_critic_loads_and_is_finite(task, sim_env):
    critic = task.critic()
    _, info = sim_env.reset(seed=2)
    assert np.isfinite(critic.value(info["privileged"]))
