"""Fast checks of the table-leg task plug-in (whole file: well under 40 s on one CPU core)."""

from __future__ import annotations

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


def test_narrow_grid_is_2cm_square(task):
    narrow = task.initial_conditions("narrow", 20)
    assert all(np.all(np.abs(np.array(ic.rack_xy) - (0.45, 0.12)) <= 0.01 + 1e-12) for ic in narrow)


def _rest_in_lead_in(env, tilt: float = 0.0) -> None:
    """Reset, then stand the leg with its stud on the lead-in floor (tilted about x by ``tilt``) and let the
    thread check run once."""
    env.reset(seed=0, options={"initial_condition": InitialCondition((0.45, 0.12), 0.0)})
    hole = env.data.site_xpos[env.hole_site].copy()
    q = env.leg_qpos
    axis = np.array([0.0, -np.sin(tilt), np.cos(tilt)])
    env.data.qpos[q : q + 3] = hole + np.array([0, 0, -TABLETOP.lead_in_depth]) + axis * LEG.stud_length
    env.data.qpos[q + 3 : q + 7] = [np.cos(tilt / 2), np.sin(tilt / 2), 0.0, 0.0]
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


def test_task_physics_overrides(task):
    env = task.make_env("sim", {"thread_friction_torque_range_nm": [0.07, 0.07], "thread_pitch_m": 0.004}, seed=0)
    env.reset(seed=0)
    assert env.model.dof_frictionloss[env.thread.turn_dof] == pytest.approx(0.07)
    assert env.model.eq_data[env.model.equality("thread_coupling").id, 1] == pytest.approx(0.004 / (2 * np.pi))
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
