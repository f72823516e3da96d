"""Checks every UR5e manipulation task must pass (peg-insertion, table-leg); task-specific checks live in
test_peg_insertion.py and test_table_leg.py."""

from __future__ import annotations

import json

import mujoco
import numpy as np
import pytest

from simdist.tasks import PROPRIO_KEY, get_task
from simdist.tasks.peg_insertion.layout import PROPRIO as PEG_PROPRIO
from simdist.tasks.table_leg.layout import PROPRIO as LEG_PROPRIO
from simdist.tasks.ur5e.actions import ControlConfig, next_setpoint
from simdist.tasks.ur5e.rollout import run_episode

TASKS = ("peg-insertion", "table-leg")
PROPRIO_LAYOUTS = {"peg-insertion": PEG_PROPRIO, "table-leg": LEG_PROPRIO}


@pytest.fixture(scope="module", params=TASKS)
def task(request):
    return get_task(request.param)


@pytest.fixture(scope="module")
def sim_env(task):
    return task.make_env("sim", seed=0)


def test_registered_spec(task):
    assert list(task.spec.obs_shapes)[0] == PROPRIO_KEY and set(task.spec.obs_shapes) <= {PROPRIO_KEY, "wrench"}
    assert task.spec.control_period_s == pytest.approx(0.2) and task.spec.episode_steps == 225  # 5 Hz, 45 s
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
    with pytest.raises(KeyError, match="narrow"):
        task.initial_conditions("medium", 3)


def test_robot_physics_overrides_from_files(task, tmp_path):
    json_file = tmp_path / "physics.json"
    json_file.write_text(json.dumps({"finger_friction_range": [0.7, 0.7]}))
    yaml_file = tmp_path / "physics.yaml"
    yaml_file.write_text("joint_stiffness_scale_range: [0.6, 0.6]\nactuation_latency_range_s: [0.02, 0.02]\n")
    for path, field, value in (
        (json_file, "finger_friction_range", 0.7),
        (yaml_file, "joint_stiffness_scale_range", 0.6),
    ):
        env = task.make_env("real", path, seed=0)
        env.reset(seed=0)
        assert env.draw[field] == pytest.approx(value)
    assert env.latency_steps == round(0.02 / env.physics.timestep_s)
    with pytest.raises(KeyError, match="finger_friction_range"):  # the error lists the valid names
        task.make_env("sim", {"finger_fricton": [0.5, 0.5]})


def test_real_info_is_not_privileged(task):
    env = task.make_env("real", seed=0)
    obs, info = env.reset(options={"initial_condition": task.initial_conditions("narrow", 1)[0]})
    assert "privileged" not in info and "dense_reward" not in info and "success" in info
    obs, reward, _, _, info = env.step(np.zeros(task.spec.action_dim))
    assert set(info) == {"success"} and reward == 0.0
    task.spec.check_obs(obs)
    assert np.isfinite(env.oracle_privileged_state()).all()  # the evaluation-only oracle still works


def test_action_bounds(task):
    envs = [task.make_env("sim", seed=0) for _ in range(2)]
    for env in envs:
        env.reset(seed=5)
    envs[0].step(np.array([1.0, -1.0, 0.5, 0.0, 0.0, 0.0, -1.0]))
    envs[1].step(np.array([50.0, -7.0, 0.5, 0.0, 0.0, 0.0, -3.0]))  # clipped to the same action
    assert np.allclose(envs[0].data.qpos, envs[1].data.qpos)
    with pytest.raises(ValueError, match="NaN"):
        envs[0].step(np.array([np.nan, 0, 0, 0, 0, 0, 0]))


def test_next_setpoint_limits_the_lead_and_the_workspace():
    c = ControlConfig()
    tcp = np.array([0.4, 0.0, 0.2])
    full = np.array([1.0, -1.0, 0.25, 0, 0, 0, 0])  # 40 mm moves exceed the 20 mm lead; 10 mm does not
    assert np.allclose(next_setpoint(tcp, tcp, full, c) - tcp, [c.max_setpoint_lead_m, -c.max_setpoint_lead_m, 0.01])
    low = np.array([0.4, 0.0, c.workspace_low[2] + 0.005])
    assert next_setpoint(low, low, np.array([0, 0, -1.0, 0, 0, 0, 0]), c)[2] == c.workspace_low[2]
    batch = next_setpoint(np.stack([tcp, low]), np.stack([tcp, low]), np.stack([full, full]), c)
    assert batch.shape == (2, 3) and np.allclose(batch[0], next_setpoint(tcp, tcp, full, c))


def test_setpoint_replays_from_observed_tcp_and_commands(task):
    """`next_setpoint` from the reset TCP, the observed TCP and the commanded actions is the controller's set-point,
    so an agent can track it without privileged state, also while the lead limit binds (pressing)."""
    env, rng = task.make_env("sim", seed=0), np.random.default_rng(0)
    obs, _ = env.reset(seed=2)
    tcp = lambda o: PROPRIO_LAYOUTS[task.spec.name].get(o[PROPRIO_KEY], "tcp_pos")  # noqa: E731
    setpoint, leads = tcp(obs).astype(np.float64), []
    for step in range(30):
        action = rng.uniform(-1.5, 1.5, task.spec.action_dim) if step % 3 else np.array([0, 0, -1.0, 0, 0, 0, 0])
        setpoint = next_setpoint(setpoint, tcp(obs), np.clip(action, -1, 1), env.control)
        leads.append(np.abs(setpoint - tcp(obs)).max())
        obs, *_ = env.step(action)
        assert np.allclose(setpoint, env.setpoint_pos, atol=1e-6)
    assert max(leads) == pytest.approx(env.control.max_setpoint_lead_m)


def test_expert_succeeds_in_sim(task, sim_env):
    ic = task.initial_conditions("narrow", 1)[0]
    episode = run_episode(sim_env, [(task.expert(), 0)], np.random.default_rng(0), ic, seed=0)
    assert episode.success and episode.terminated and episode.steps < task.spec.episode_steps
    names = [policy.name for policy in task.suboptimal_policies()]
    assert len(names) == len(set(names)) and task.expert().name not in names


def test_critic_loads_and_is_finite(task, sim_env):
    _, info = sim_env.reset(seed=2)
    assert np.isfinite(task.critic().value(info["privileged"]))
