"""Go2-like quadruped tasks: standing, height scan, the real-domain foam and PTFE slope, obs hygiene, overrides."""

from __future__ import annotations

import json

import mujoco
import numpy as np
import pytest

from simdist.tasks.quadruped import experts, robot, terrain
from simdist.tasks.quadruped.batch_env import PRIVILEGED_DIM, QuadrupedBatchEnv
from simdist.tasks.quadruped.commands import StraightLineCommand
from simdist.tasks.quadruped.physics import SIM, QuadrupedPhysics
from simdist.tasks.quadruped.rewards import desired_stance
from simdist.tasks.quadruped.scenes import COURSES, TrainingScene
from simdist.tasks.registry import get_task, task_names

FIXED = dict(
    trunk_mass_offset_range=(0.0, 0.0),
    foot_friction_range=(0.8, 0.8),
    kp_scale_range=(1.0, 1.0),
    kd_scale_range=(1.0, 1.0),
    joint_friction_range=(0.0, 0.0),
    reset_joint_scale_range=(1.0, 1.0),
)


def hold(env, seconds: float) -> None:
    """Zero action = the default-pose PD hold."""
    for _ in range(int(seconds / robot.CONTROL_PERIOD_S)):
        env.batch.step(np.zeros((1, 12)))


def place(env, x: float, ground_z: float) -> None:
    """Teleport the robot (level, default pose) to x with its feet just above ``ground_z``."""
    b = env.batch
    d = b.datas[0]
    d.qpos[0], d.qpos[1], d.qpos[2] = x, 0.0, ground_z + robot.SPAWN_HEIGHT
    d.qpos[3:7] = [1, 0, 0, 0]
    d.qvel[:] = 0
    mujoco.mj_forward(b.models[0], d)
    b._read_state()


def test_tasks_registered_with_speed_grids():
    assert {"slippery-slope", "foam"} <= set(task_names())
    assert get_task("slippery-slope").grids == ("0.1", "0.3", "0.5")
    assert get_task("foam").grids == ("0.2", "0.7", "1.2")
    ics = get_task("foam").initial_conditions("0.7", 5, seed=1)
    assert len(ics) == 5 and all(ic["speed"] == 0.7 for ic in ics)
    with pytest.raises(KeyError, match="valid grids"):
        get_task("foam").initial_conditions("0.5", 1)


@pytest.mark.parametrize(
    "physics",
    [
        QuadrupedPhysics(**FIXED),
        QuadrupedPhysics(**{**FIXED, "trunk_mass_offset_range": (3.0, 3.0), "kp_scale_range": (0.9, 0.9)}),
    ],
)
def test_robot_stands_under_default_pd_hold(physics):
    env = get_task("slippery-slope").make_env("sim", physics=physics)
    env.reset(seed=0)
    assert abs(env.batch.models[0].body_mass.sum() - physics.trunk_mass_offset_range[0] - 15.0) < 0.1
    for _ in range(150):  # 3 s
        _, _, terminated, _, info = env.step(np.zeros(12, np.float32))
        assert not terminated
    b = env.batch
    assert 0.2 < b.qpos[0, 2] < 0.3
    assert np.degrees(np.arccos(-b.gravity_body[0, 2])) < 10.0
    assert np.all(b.foot_contact()[0])
    assert np.all(np.abs(b.torques[0]) <= robot.TORQUE_LIMITS + 1e-6)


def _scan_env(heights: np.ndarray, yaw: float = 0.0) -> QuadrupedBatchEnv:
    env = QuadrupedBatchEnv(
        1, TrainingScene(1, curriculum=False, kinds=("flat",)), QuadrupedPhysics(**FIXED), random_commands=False
    )
    env.reset(np.array([0]), initial_yaw=yaw)
    env.scene.set_heights(0, env.models[0], heights)
    env._read_state()
    return env


def test_height_scan_on_constructed_step_and_slope():
    y, x = np.meshgrid(*(np.linspace(-6, 6, terrain.GRID_POINTS),) * 2, indexing="ij")
    step = np.where(x > 0.6, 0.1, 0.0)
    env = _scan_env(step)
    z = env.qpos[0, 2]
    scan = env.height_scan()[0]  # (21, 15): x from 0.5-1 to 0.5+1 m ahead
    xs = 0.5 + np.linspace(-1, 1, 21)
    expected = z - np.where(xs > 0.6 + 1e-6, 0.1, 0.0) - 0.3
    far_from_edge = np.abs(xs - 0.6) > 0.06
    np.testing.assert_allclose(scan[far_from_edge], np.repeat(expected[far_from_edge, None], 15, 1), atol=1e-6)
    # Yawed 90° left, the same world step lies to the robot's right (body y < -0.6): only the last-but-none column.
    env = _scan_env(step, yaw=np.pi / 2)
    scan = env.height_scan()[0]
    np.testing.assert_allclose(scan[:, 0], env.qpos[0, 2] - 0.1 - 0.3, atol=1e-6)
    np.testing.assert_allclose(scan[:, 2:], env.qpos[0, 2] - 0.3, atol=1e-6)
    slope = 0.2 * np.maximum(x, 0.0)
    env = _scan_env(slope)
    scan = env.height_scan()[0]
    np.testing.assert_allclose(scan[:, 7], env.qpos[0, 2] - 0.2 * np.maximum(xs, 0) - 0.3, atol=1e-6)


def test_course_scan_sees_the_panels():
    env = get_task("slippery-slope").make_env("sim")
    env.reset(seed=0)
    b = env.batch
    xs = b.qpos[0, 0] + 0.5 + np.linspace(-1, 1, 21)
    profile = COURSES["slippery-slope"].profile(xs)
    np.testing.assert_allclose(b.height_scan()[0][:, 7], b.qpos[0, 2] - profile - 0.3, atol=1e-6)
    assert profile.max() > 0.05


def test_foam_sinks_in_real_and_not_in_sim():
    sinks = {}
    for domain in ("sim", "real"):
        env = get_task("foam").make_env(domain, physics=FIXED)
        env.reset(seed=0)
        place(env, 0.5, 0.05)
        hold(env, 1.5)
        sinks[domain] = -float(np.mean(env.batch.foot_heights()[0]))  # below the uncompressed pad top
    assert sinks["sim"] < 0.005
    assert 0.015 < sinks["real"] < 0.045  # "feet sink several cm" into the 5 cm pads, without bottoming out


def test_low_friction_slope_slides_in_real():
    course = COURSES["slippery-slope"]
    moved = {}
    for domain in ("sim", "real"):
        env = get_task("slippery-slope").make_env(domain, physics=FIXED)
        env.reset(seed=0)
        place(env, 1.14, float(course.profile(np.array([1.14]))[0]) + 0.02)
        hold(env, 1.0)  # let the landing pitch settle
        x0 = env.batch.qpos[0, 0]
        hold(env, 2.0)
        moved[domain] = float(env.batch.qpos[0, 0] - x0)
    assert abs(moved["sim"]) < 0.05
    assert moved["real"] < -0.1  # creeps down the 5.7° PTFE panel


def test_real_slope_is_slippery_but_climbable():
    """Below every friction the simulator draws, yet above tan(slope) of the steepest panel: with less, friction
    cannot carry the robot's weight up it and no controller could succeed (the first real domain's bug)."""
    mu = get_task("slippery-slope").default_physics("real").panel_friction
    steepest = max(box.slope_deg for box in COURSES["slippery-slope"].boxes)
    assert np.tan(np.radians(steepest)) * 1.2 < mu < SIM.foot_friction_range[0]


def test_panel_friction_randomisation_draws_per_reset_within_range(tmp_path):
    path = tmp_path / "panels.json"
    path.write_text(json.dumps({"panel_friction_range": [0.15, 0.4], "panel_priority": 2}))
    env = get_task("slippery-slope").make_env("sim", physics=str(path))
    assert env.physics.panel_friction_range == (0.15, 0.4)
    b, drawn = env.batch, []
    assert len(b.panel_geom_ids) == 2  # the two slippery panels, not the plateau
    for seed in range(5):
        env.reset(seed=seed)
        mu = b.models[0].geom_friction[b.panel_geom_ids, 0]
        assert mu[0] == mu[1] == b.dr["panel_friction"][0]
        drawn.append(float(mu[0]))
    assert all(0.15 <= mu <= 0.4 for mu in drawn) and len(set(drawn)) == 5
    plain = get_task("slippery-slope").make_env("sim")  # unset: the panels keep panel_friction
    plain.reset(seed=0)
    assert np.all(plain.batch.models[0].geom_friction[plain.batch.panel_geom_ids, 0] == SIM.panel_friction)


def test_observations_hold_no_privileged_state():
    task = get_task("foam")
    for domain in ("sim", "real"):
        env = task.make_env(domain)
        obs, info = env.reset(seed=0, options={"initial_condition": task.initial_conditions("0.7", 1)[0]})
        obs, reward, _, _, info = env.step(np.zeros(12, np.float32))
        assert set(obs) == {"proprio", "height", "command"}
        task.spec.check_obs(obs)
        if domain == "sim":
            assert info["privileged"].shape == (PRIVILEGED_DIM,) and reward == info["dense_reward"]
        else:
            assert "privileged" not in info and "dense_reward" not in info and reward == 0.0
        assert env.oracle_privileged_state().shape == (PRIVILEGED_DIM,)


def test_physics_overrides_dict_file_and_unknown_key(tmp_path):
    task = get_task("slippery-slope")
    assert task.default_physics("real").panel_friction < 0.2 < SIM.foot_friction_range[0] + 1e-9
    env = task.make_env("real", physics={"panel_friction": 0.5})
    assert env.physics.panel_friction == 0.5 and env.physics.panel_priority == 2
    path = tmp_path / "phys.json"
    path.write_text(json.dumps({"foam_priority": 0, "foot_friction_range": [0.3, 0.3]}))
    env = get_task("foam").make_env("real", physics=str(path))
    assert env.physics.foam_priority == 0 and env.physics.foot_friction_range == (0.3, 0.3)
    with pytest.raises(KeyError, match="valid names"):
        task.make_env("sim", physics={"panel_fricton": 0.1})


def test_straight_line_command_and_trot_pattern():
    ctrl = StraightLineCommand(0.5)
    np.testing.assert_allclose(ctrl(2.0, np.array([0.5, 0.1]), 0.0), [0.5, -0.1, 0.0])
    stance = desired_stance(np.array([0.1, 0.6]))
    assert stance[0].tolist() == [True, False, False, True] and stance[1].tolist() == [False, True, True, False]


def test_expert_raises_until_trained(tmp_path, monkeypatch):
    monkeypatch.setattr(experts, "CHECKPOINT_DIR", tmp_path)  # as on a checkout without exported files
    monkeypatch.setattr(experts, "exported_iterations", lambda directory=tmp_path: [])
    with pytest.raises(FileNotFoundError, match="train_expert"):
        get_task("foam").expert()
    with pytest.raises(FileNotFoundError, match="train_expert"):
        get_task("slippery-slope").critic()


@pytest.mark.parametrize("kind", ["boxes", "slope_up", "stairs_down", "rough"])
def test_heightfield_lookup_matches_mujoco_ray(kind):
    """The analytic scan reads the same ground that MuJoCo collides with (ray casts on the hfield)."""
    asset, geom = terrain.hfield_xml()
    geom = geom.replace('class="terrain" ', "")  # standalone model: no robot defaults
    model = mujoco.MjModel.from_xml_string(f"<mujoco><asset>{asset}</asset><worldbody>{geom}</worldbody></mujoco>")
    data = mujoco.MjData(model)
    rng = np.random.default_rng(0)
    heights = terrain.make_heights(kind, 1.0, rng)
    model.hfield_data[:] = terrain.to_hfield_data(heights)
    mujoco.mj_forward(model, data)
    points = rng.uniform(-5, 5, (100, 2))
    hit = np.array(
        [
            3.0
            - mujoco.mj_ray(
                model, data, np.array([x, y, 3.0]), np.array([0.0, 0.0, -1.0]), None, 1, -1, np.array([-1], np.int32)
            )
            for x, y in points
        ]
    )
    lookup = terrain.lookup_heights(heights[None], points[None])[0]
    # bilinear vs MuJoCo's two triangles per cell: equal on flat tops and planes, close elsewhere
    assert np.median(np.abs(hit - lookup)) < 1e-3 and np.max(np.abs(hit - lookup)) < 0.03


def test_curriculum_judges_patch_exits_on_the_steps_they_had():
    """A fast walker that leaves the patch early is not demoted; an early fall still counts as poor tracking."""
    env = QuadrupedBatchEnv(2, TrainingScene(2, kinds=("flat",)), QuadrupedPhysics(**FIXED), seed=0)
    env.scene.curriculum.level[:] = 3
    env.step_count[:] = 200
    env.cosine_sum[:] = 190.0  # well aligned for 200 of the 1000 steps
    env.terminated[:] = [False, True]  # env 0 left the patch, env 1 fell
    env.reset(np.arange(2))
    assert env.scene.curriculum.level.tolist() == [4, 2]


def test_training_reward_overrides_reweight_one_term_only():
    from simdist.tasks.quadruped.rewards import WEIGHTS, reward_weights

    env = QuadrupedBatchEnv(
        1,
        TrainingScene(1, curriculum=False, kinds=("flat",)),
        QuadrupedPhysics(**FIXED),
        seed=0,
        reward_overrides={"gait": 0.5},
    )
    assert env.reward_weights["gait"] == 0.5 and env.reward_weights["track_lin_vel_xy"] == WEIGHTS["track_lin_vel_xy"]
    with pytest.raises(KeyError, match="valid terms"):
        reward_weights({"gaitt": 1.0})


def _teleport_past_the_finish(env, height_above_ground: float) -> None:
    import mujoco

    d = env.batch.datas[0]
    d.qpos[0] = env.start_x + env.course.length_m + 0.3
    d.qpos[2] = float(env.batch.ground_under(d.qpos[None, :2])[0]) + height_above_ground
    d.qvel[:] = 0.0
    mujoco.mj_forward(env.batch.models[0], d)


def test_finishing_needs_a_foot_on_the_ground_and_the_hold_upright():
    """A replayed RLPD episode threw the robot 1.5 m through the air across the line with saturated actions. Being
    past the line counts only from a step with a foot on the ground, and only after standing there FINISH_HOLD_S."""
    from simdist.tasks.quadruped.course_env import FINISH_HOLD_S

    env = get_task("slippery-slope").make_env("real", seed=0)
    env.reset(seed=0, options={"initial_condition": {"speed": 0.3}})
    _teleport_past_the_finish(env, 1.5)  # airborne
    _, _, terminated, truncated, info = env.step(np.zeros(12))
    assert info["progress_m"] == pytest.approx(env.course.length_m)
    assert not info["success"] and not terminated and not truncated and env.finish_step is None

    env.reset(seed=0, options={"initial_condition": {"speed": 0.3}})
    _teleport_past_the_finish(env, 0.31)  # standing height
    hold_steps = int(round(FINISH_HOLD_S / env.batch.dt))
    successes = []
    for _ in range(hold_steps + 5):
        _, _, terminated, truncated, info = env.step(np.zeros(12))
        successes.append(info["success"])
        if terminated or truncated:
            break
    assert not any(successes[: hold_steps - 1]) and successes[-1] and not info["fell"]
