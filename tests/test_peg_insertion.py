"""Fast checks of the peg-insertion task plug-in (whole file: a few seconds on one CPU core)."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from simdist.baselines.common import spec_of
from simdist.config import model_preset
from simdist.data.regime import act
from simdist.model.world_model import WorldModel
from simdist.tasks import PROPRIO_KEY, get_task
from simdist.tasks.base import WRENCH_KEY
from simdist.tasks.peg_insertion.env import InitialCondition
from simdist.tasks.peg_insertion.layout import FINE_SCALE_M, PRIVILEGED, PROPRIO, relative_features
from simdist.tasks.peg_insertion.model import SCENE
from simdist.tasks.peg_insertion.physics import PegPhysics
from simdist.tasks.peg_insertion.reward import PegState, is_seated
from simdist.tasks.ur5e.actions import ControlConfig, carried_setpoint, carry_action, holds_part, next_setpoint
from simdist.tasks.ur5e.robot import GRIPPER
from simdist.training.checkpoint import CheckpointError, check_model_fits_task


@pytest.fixture(scope="module")
def task():
    return get_task("peg-insertion")


@pytest.fixture(scope="module")
def sim_env(task):
    return task.make_env("sim", seed=0)


def test_narrow_grid_is_2cm_square(task):
    narrow = task.initial_conditions("narrow", 20)
    centre = np.array((0.45, 0.12))  # nominal peg position
    assert all(np.all(np.abs(np.array(ic.peg_xy) - centre) <= 0.01 + 1e-12) for ic in narrow)


def _place_peg(env, offset_from_hole_top, quat=(1.0, 0.0, 0.0, 0.0)) -> PegState:
    """Reset to the nominal fixture, then put the peg's centre at ``offset_from_hole_top`` from the hole mouth."""
    env.reset(seed=0, options={"initial_condition": InitialCondition((0.45, 0.12), 0.0)})
    hole_top = env.data.site_xpos[env.hole_site].copy()
    qpos = env.peg_qpos
    env.data.qpos[qpos : qpos + 3] = hole_top + np.asarray(offset_from_hole_top)
    env.data.qpos[qpos + 3 : qpos + 7] = quat
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


def test_task_physics_overrides(task):
    env = task.make_env("sim", {"peg_hole_friction_range": [0.55, 0.55], "hole_clearance_m": 0.0006}, seed=0)
    env.reset(seed=0)
    assert env.physics.peg_hole_friction_range == (0.55, 0.55)
    assert np.allclose(env.model.geom_friction[env.fixture_geoms, 0], 0.55)
    wall = env.model.geom("wall_py").id  # its x half-size is the hole's half side
    assert env.model.geom_size[wall, 0] * 2 == pytest.approx(SCENE.peg_side + 0.0006)
    env = task.make_env("real", PegPhysics(table_friction_range=(0.5, 0.5)))
    assert env.physics.table_friction_range == (0.5, 0.5)
    with pytest.raises(KeyError, match="peg_hole_friction_range"):
        task.make_env("sim", {"peg_hole_fricton": [0.5, 0.5]})


def test_observations_hold_no_privileged_state(task, sim_env):
    obs, info = sim_env.reset(seed=1)
    assert set(obs) == {PROPRIO_KEY, WRENCH_KEY}  # perception and encoders; the flange F/T sensor
    assert obs[PROPRIO_KEY].shape == (PROPRIO.size,) and PROPRIO.size < PRIVILEGED.size
    assert "physics" not in PROPRIO.names() and "setpoint_pos" not in PROPRIO.names()
    exact_peg = PRIVILEGED.get(info["privileged"], "peg_pos")
    estimate = PROPRIO.get(obs[PROPRIO_KEY], "peg_pos_est")
    assert not np.allclose(exact_peg, estimate, atol=1e-7)  # perception is an estimate, not the state


def test_hole_estimate_offset_shifts_only_the_perceived_hole(task):
    offset = {"hole_estimate_offset_x_m": 0.002, "hole_estimate_offset_y_m": -0.001}
    envs = [task.make_env("real", physics, seed=0) for physics in (None, offset)]
    o, o2 = (env.reset(seed=3)[0][PROPRIO_KEY] for env in envs)
    np.testing.assert_array_equal(*(env.oracle_privileged_state() for env in envs))  # the world is the same
    shift = PROPRIO.get(o2, "hole_pos_est") - PROPRIO.get(o, "hole_pos_est")
    np.testing.assert_allclose(shift, [0.002, -0.001, 0.0], atol=1e-12)
    kept = [n for n in PROPRIO.names() if n not in ("hole_pos_est", "peg_to_hole_est", "peg_to_hole_fine")]
    for name in kept:
        np.testing.assert_array_equal(PROPRIO.get(o, name), PROPRIO.get(o2, name), name)


def test_relative_features_derive_from_the_estimates(sim_env):
    obs, _ = sim_env.reset(seed=3)
    o = obs[PROPRIO_KEY]
    peg, hole = PROPRIO.get(o, "peg_pos_est"), PROPRIO.get(o, "hole_pos_est")
    np.testing.assert_allclose(PROPRIO.get(o, "peg_to_hole_est"), peg - hole, atol=1e-9)
    np.testing.assert_allclose(PROPRIO.get(o, "tcp_to_peg_est"), PROPRIO.get(o, "tcp_pos") - peg, atol=1e-9)
    np.testing.assert_allclose(PROPRIO.get(o, "peg_to_hole_fine"), np.tanh((peg - hole) / FINE_SCALE_M), atol=1e-9)
    # yaw error features are (cos, sin) of 4 * (peg yaw - hole yaw): unit length, and 0 error for equal yaws
    assert np.linalg.norm(PROPRIO.get(o, "yaw_error_est")) == pytest.approx(1.0, abs=1e-6)
    same = np.array([np.cos(0.4), np.sin(0.4)])
    rel = relative_features(np.zeros(3), np.zeros(3), same, np.ones(3) * 0.001, same)
    np.testing.assert_allclose(rel["yaw_error_est"], [1.0, 0.0], atol=1e-12)
    assert np.all(np.abs(rel["peg_to_hole_fine"] + 0.0997) < 1e-3)  # 1 mm -> tanh(0.1): millimetres stay visible


def test_the_expert_search_circles_or_spirals_out_to_its_cap():
    from dataclasses import replace

    from simdist.tasks.peg_insertion.expert import ExpertTuning, ScriptedExpert

    circle = ScriptedExpert(ExpertTuning())
    radii = [np.linalg.norm(circle.search_offset(k)) for k in range(3, 40)]
    assert np.allclose(radii, ExpertTuning().search_radius_m)  # the data's expert: a fixed 0.6 mm circle
    spiral = ScriptedExpert(replace(ExpertTuning(), search_growth_m=1e-4, search_max_radius_m=2e-3))
    radii = [np.linalg.norm(spiral.search_offset(k)) for k in range(3, 40)]
    assert radii[0] == pytest.approx(6e-4) and np.all(np.diff(radii) > -1e-12) and max(radii) == pytest.approx(2e-3)


def test_the_expert_grips_the_peg_where_it_aims_before_lifting(task, sim_env):
    """The expert holds still while the pads close: the peg sits in the hand at the grasp point, not by its top."""
    expert, aimed = task.expert(), SCENE.peg_length / 2 - GRIPPER.pad_half_size[2] - 0.004
    obs, info = sim_env.reset(seed=3, options={"initial_condition": task.initial_conditions("narrow", 1)[0]})
    expert.reset(np.random.default_rng(0))
    for _ in range(30):
        obs, _, _, _, info = sim_env.step(act(expert, obs, info["privileged"]))
        state = PegState.from_privileged(info["privileged"])
        if state.grasped and state.peg_pos[2] > SCENE.peg_length / 2 + 0.01:  # lifted off the table
            break
    assert state.grasped and abs(state.peg_in_tool[2] - aimed) < 0.0015


def test_carry_frame_action_moves_the_setpoint_as_the_step_it_replaces():
    c = ControlConfig(carry_frame="perceived-target", hold_width_m=0.021)
    rng = np.random.default_rng(0)
    for _ in range(50):
        setpoint = rng.uniform([0.3, -0.2, 0.05], [0.6, 0.2, 0.3])
        tcp, aligned = setpoint + rng.normal(0.0, 0.005, 3), rng.uniform([0.3, -0.2], [0.6, 0.2])
        step = np.append(rng.uniform(-1.0, 1.0, 6), 1.0)
        carried = carried_setpoint(setpoint, tcp, aligned, carry_action(step, setpoint, aligned, c), c)
        assert np.allclose(carried, next_setpoint(setpoint, tcp, step, c), atol=1e-9)
    # a zero offset aims at the perceived alignment point, at most one full step away per axis
    near = carried_setpoint(
        np.array([0.5, 0.0, 0.1]),
        np.array([0.5, 0.0, 0.1]),
        np.array([0.503, -0.1]),
        np.array([0, 0, 0, 0, 0, 0, 1.0]),
        c,
    )
    assert np.allclose(near[:2], [0.503, -c.max_setpoint_lead_m])
    with pytest.raises(ValueError, match="carry_frame"):
        ControlConfig(carry_frame="hole")
    with pytest.raises(ValueError, match="hold_width_m"):
        ControlConfig(carry_frame="perceived-target")


def test_carry_frame_task_replays_the_tool_frame_expert():
    """The carry-frame task's expert, converted with the observation the env uses, drives the same set-points as the
    tool-frame task's, including the steps that hold the peg."""
    runs = {}
    for name in ("peg-insertion-tool-frame", "peg-insertion"):
        task = get_task(name)
        env, expert = task.make_env("sim", seed=0), task.expert()
        obs, info = env.reset(seed=1, options={"initial_condition": task.initial_conditions("narrow", 1)[0]})
        expert.reset(np.random.default_rng(0))
        setpoints, held = [], 0
        for _ in range(70):
            action = act(expert, obs, info["privileged"])
            held += bool(holds_part(action, env.seen_gripper_opening, env.control))
            obs, _, terminated, _, info = env.step(action)
            setpoints.append(env.setpoint_pos.copy())
            if terminated:
                break
        runs[name] = (np.array(setpoints), held)
    assert runs["peg-insertion-tool-frame"][1] == 0 and runs["peg-insertion"][1] >= 10
    assert np.allclose(runs["peg-insertion-tool-frame"][0], runs["peg-insertion"][0], atol=1e-6)


def test_a_model_is_refused_by_a_task_acting_in_another_frame():
    tool, carried = get_task("peg-insertion-tool-frame"), get_task("peg-insertion")
    assert tool.spec.action_frame == "" and carried.spec.action_frame
    model = WorldModel(model_preset("cpu"), spec_of(carried.spec))
    check_model_fits_task(model, carried, "run")
    with pytest.raises(CheckpointError, match="action frame"):
        check_model_fits_task(model, tool, "run")
