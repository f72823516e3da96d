"""Fast checks of the peg-insertion task plug-in (whole file: a few seconds on one CPU core)."""

from __future__ import annotations

import json

import mujoco
import numpy as np
import pytest

from simdist.tasks import PROPRIO_KEY, get_task
from simdist.tasks.peg_insertion.env import InitialCondition
from simdist.tasks.peg_insertion.layout import PRIVILEGED, PROPRIO
from simdist.tasks.peg_insertion.model import SCENE
from simdist.tasks.peg_insertion.physics import PegPhysics
from simdist.tasks.peg_insertion.reward import PegState, is_seated
from simdist.tasks.ur5e.rollout import run_episode


@pytest.fixture(scope="module")
def task():
    return get_task("peg-insertion")


@pytest.fixture(scope="module")
def sim_env(task):
    return task.make_env("sim", seed=0)


def test_registered_spec(task):
    assert task.spec.name == "peg-insertion"
    assert task.spec.obs_shapes == {PROPRIO_KEY: (PROPRIO.size,)}
    assert task.spec.control_period_s == pytest.approx(0.2) and task.spec.episode_steps == 225
    assert task.grids == ("narrow", "wide")
    assert isinstance(task.default_physics("real"), task.physics_type)


def test_model_loads_and_steps(task, sim_env):
    obs, info = sim_env.reset(seed=3)
    task.spec.check_obs(obs)
    for _ in range(3):
        obs, reward, terminated, truncated, info = sim_env.step(np.zeros(task.spec.action_dim))
        task.spec.check_obs(obs)
    assert np.isfinite(reward) and not terminated and not truncated
    assert sim_env.data.warning[mujoco.mjtWarning.mjWARN_BADQACC].number == 0


def test_initial_conditions_deterministic(task):
    for grid in task.grids:
        assert task.initial_conditions(grid, 20, seed=0) == task.initial_conditions(grid, 20, seed=0)
        assert task.initial_conditions(grid, 5, seed=0) != task.initial_conditions(grid, 5, seed=1)
    narrow = task.initial_conditions("narrow", 20)
    centre = np.array(narrow[0].peg_xy) * 0 + (0.45, 0.12)
    assert all(np.all(np.abs(np.array(ic.peg_xy) - centre) <= 0.01 + 1e-12) for ic in narrow)
    with pytest.raises(KeyError, match="narrow"):
        task.initial_conditions("medium", 3)


def _place_peg(env, offset_from_hole_top, quat=(1.0, 0.0, 0.0, 0.0)) -> PegState:
    """Reset to the nominal fixture, then put the peg's centre at ``offset_from_hole_top`` from the hole mouth."""
    env.reset(seed=0, options={"initial_condition": InitialCondition((0.45, 0.12), 0.0)})
    hole_top = env.data.site_xpos[env.hole_site].copy()
    qpos = env.peg_qpos
    env.data.qpos[qpos:qpos + 3] = hole_top + np.asarray(offset_from_hole_top)
    env.data.qpos[qpos + 3:qpos + 7] = quat
    mujoco.mj_forward(env.model, env.data)
    return PegState.from_privileged(env.oracle_privileged_state())


def test_success_detector_on_constructed_states(sim_env):
    half = SCENE.peg_length / 2
    seated = _place_peg(sim_env, [0, 0, half - 0.028])
    assert is_seated(seated) and seated.insertion_depth == pytest.approx(0.028, abs=1e-6)
    shallow = _place_peg(sim_env, [0, 0, half - 0.010])
    assert not is_seated(shallow)
    on_table_beside = _place_peg(sim_env, [0.15, 0, half - SCENE.fixture_height])
    assert on_table_beside.insertion_depth > 0.025 and not is_seated(on_table_beside)
    tilt = 0.4  # rad about x
    tilted = _place_peg(sim_env, [0, 0, half - 0.028], (np.cos(tilt / 2), np.sin(tilt / 2), 0, 0))
    assert not is_seated(tilted)
    # The env's own success flag agrees: step once from a seated state.
    _place_peg(sim_env, [0, 0, half - 0.028])
    assert sim_env.step(np.zeros(7))[4]["success"]


def test_physics_overrides_dict_and_files(task, tmp_path):
    env = task.make_env("sim", {"peg_hole_friction_range": [0.55, 0.55], "hole_clearance_m": 0.0006}, seed=0)
    env.reset(seed=0)
    assert env.physics.peg_hole_friction_range == (0.55, 0.55)
    assert np.allclose(env.model.geom_friction[env.fixture_geoms, 0], 0.55)
    wall = env.model.geom("wall_py").id  # its x half-size is the hole's half side
    assert env.model.geom_size[wall, 0] * 2 == pytest.approx(SCENE.peg_side + 0.0006)
    json_file = tmp_path / "physics.json"
    json_file.write_text(json.dumps({"finger_friction_range": [0.7, 0.7]}))
    yaml_file = tmp_path / "physics.yaml"
    yaml_file.write_text("joint_stiffness_scale_range: [0.6, 0.6]\nactuation_latency_range_s: [0.02, 0.02]\n")
    for path, field, value in ((json_file, "finger_friction_range", 0.7), (yaml_file, "joint_stiffness_scale_range", 0.6)):
        env = task.make_env("real", path, seed=0)
        env.reset(seed=0)
        assert env.draw[field] == pytest.approx(value)
    assert env.latency_steps == round(0.02 / env.physics.timestep_s)
    env = task.make_env("real", PegPhysics(table_friction_range=(0.5, 0.5)))
    assert env.physics.table_friction_range == (0.5, 0.5)
    with pytest.raises(KeyError, match="peg_hole_friction_range"):
        task.make_env("sim", {"peg_hole_fricton": [0.5, 0.5]})


def test_observations_hold_no_privileged_state(task, sim_env):
    obs, info = sim_env.reset(seed=1)
    assert set(obs) == {PROPRIO_KEY}
    assert obs[PROPRIO_KEY].shape == (PROPRIO.size,) and PROPRIO.size < PRIVILEGED.size
    assert "physics" not in PROPRIO.names() and "setpoint_pos" not in PROPRIO.names()
    exact_peg = PRIVILEGED.get(info["privileged"], "peg_pos")
    estimate = PROPRIO.get(obs[PROPRIO_KEY], "peg_pos_est")
    assert not np.allclose(exact_peg, estimate, atol=1e-7)  # perception is an estimate, not the state


def test_real_info_is_not_privileged(task):
    env = task.make_env("real", seed=0)
    obs, info = env.reset(options={"initial_condition": task.initial_conditions("narrow", 1)[0]})
    assert "privileged" not in info and "dense_reward" not in info and "success" in info
    obs, reward, terminated, truncated, info = env.step(np.zeros(task.spec.action_dim))
    assert set(info) == {"success"} and reward == 0.0
    task.spec.check_obs(obs)


def test_action_bounds(task):
    envs = [task.make_env("sim", seed=0) for _ in range(2)]
    for env in envs:
        env.reset(seed=5)
    envs[0].step(np.array([1.0, -1.0, 0.5, 0.0, 0.0, 0.0, -1.0]))
    envs[1].step(np.array([50.0, -7.0, 0.5, 0.0, 0.0, 0.0, -3.0]))
    assert np.allclose(envs[0].setpoint_pos, envs[1].setpoint_pos)
    assert np.allclose(envs[0].data.qpos, envs[1].data.qpos)
    with pytest.raises(ValueError, match="NaN"):
        envs[0].step(np.array([np.nan, 0, 0, 0, 0, 0, 0]))
    with pytest.raises(ValueError, match="7 entries"):
        envs[0].step(np.zeros(3))


def test_expert_inserts_in_sim(task, sim_env):
    ic = task.initial_conditions("narrow", 1)[0]
    episode = run_episode(sim_env, [(task.expert(), 0)], np.random.default_rng(0), ic, seed=0)
    assert episode.success and episode.terminated and episode.steps < 100
    names = [policy.name for policy in task.suboptimal_policies()]
    assert len(names) == len(set(names)) and task.expert().name not in names


def test_critic_loads_and_is_finite(task, sim_env):
    critic = task.critic()
    _, info = sim_env.reset(seed=2)
    assert np.isfinite(critic.value(info["privileged"]))
    assert critic.config.gamma == task.spec.gamma
