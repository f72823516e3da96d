"""simdist.tasks.gymnasium: Gymnasium's InvertedPendulum-v5 wired as a simdist task follows every convention of
simdist.tasks.base, its physics land in the MjModel, latency delays actions, and the example runs through the CLI."""

import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("imageio", reason="Gymnasium's MuJoCo envs need the gym extra: pip install 'simdist[gym]'")

from simdist.cli import main  # noqa: E402
from simdist.tasks import registry  # noqa: E402
from simdist.tasks.gymnasium import GymTask, GymTaskSpec, PhysicsParam, Read  # noqa: E402
from simdist.tasks.gymnasium.env import make_gym_env  # noqa: E402
from simdist.tasks.physics_schema import PhysicsError  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "inverted_pendulum" / "task.py"


class ZeroPolicy:
    name = "zero"

    def reset(self, rng):
        pass

    def act(self, privileged):
        return np.zeros(1, np.float32)


def make_task(**changes) -> GymTask:
    spec = dict(
        name="test-cartpole",
        env_id="InvertedPendulum-v5",
        episode_steps=5,
        state={"cart_x": Read("qpos", 0), "pole_angle": Read("qpos", 1), "qvel": Read("qvel")},
        success=lambda s: abs(s["pole_angle"]) < 0.2,
        physics=(
            PhysicsParam("pole_mass", "body_mass", "pole"),
            PhysicsParam("gear", "actuator_gear", 0),
            PhysicsParam("damping", "dof_damping", "hinge", mode="value"),
        ),
        randomize={"pole_mass": (0.5, 2.0)},
        real={"gear_scale": 0.5, "action_delay_steps": 1},
    )
    spec.update(changes)
    return GymTask(GymTaskSpec(**spec), expert=lambda task: ZeroPolicy())


def test_the_adapted_env_follows_the_task_conventions():
    task = make_task()
    assert task.spec.obs_shapes == {"proprio": (4,)} and task.spec.control_period_s == pytest.approx(0.04)
    assert task.layout.names == ("cart_x", "pole_angle", "qvel", "pole_mass", "gear", "damping")
    ic = task.initial_conditions("default", 1, seed=3)[0]
    for domain in ("sim", "real"):
        env = task.make_env(domain, seed=0)
        obs, info = env.reset(seed=1, options={"initial_condition": ic})
        task.spec.check_obs(obs)
        assert np.allclose(env.data.qpos, ic["qpos"]) and isinstance(info["success"], bool)
        for t in range(12):  # past episode_steps: the critic fitter rolls on (rollout_factor)
            obs, reward, terminated, truncated, info = env.step(np.array([3.0], np.float32))
            assert terminated is False and truncated == (t + 1 >= 5)  # Gymnasium's own termination is dropped
            task.spec.check_obs(obs)
        assert not info["success"]  # the pole has fallen past Gymnasium's 0.2 rad
        if domain == "sim":
            named = task.layout.unpack(info["privileged"])
            assert named["pole_angle"] == pytest.approx(env.data.qpos[1], abs=1e-6)
            assert "dense_reward" in info and reward == info["dense_reward"]
        else:
            assert "privileged" not in info and "dense_reward" not in info and reward == 0.0
            assert env.oracle_privileged_state().shape == (task.layout.dim,)


def test_physics_land_in_the_model_and_randomise_in_sim_only():
    task = make_task()
    nominal = make_gym_env("InvertedPendulum-v5").model
    pole = nominal.body("pole").id
    masses = []
    for seed in range(6):
        env = task.make_env("sim")
        env.reset(seed=seed)
        masses.append(env.model.body_mass[pole] / nominal.body_mass[pole])
        ratio = env.model.body_inertia[pole] / nominal.body_inertia[pole]
        assert np.allclose(ratio, masses[-1])  # a body's inertia follows its mass
    assert 0.5 <= min(masses) < max(masses) <= 2.0
    env = task.make_env("real", {"pole_mass_scale": 3.0, "damping": 0.25})
    env.reset(seed=0)
    named = env.named_state()
    assert named["pole_mass"] == pytest.approx(3.0 * nominal.body_mass[pole])
    assert named["gear"] == pytest.approx(0.5 * nominal.actuator_gear[0, 0]) and named["damping"] == 0.25
    with pytest.raises(PhysicsError, match="pole_mass_scale = -1: must be > 0"):
        task.make_env("real", {"pole_mass_scale": -1})
    with pytest.raises(PhysicsError, match="action_delay_steps = 11: must be >= 0 and <= 10"):
        task.make_env("real", {"action_delay_steps": 11})


def test_latency_delays_actions_by_whole_control_steps():
    task = make_task()
    ic = task.initial_conditions("default", 1)[0]
    runs = {}
    for delay in (0, 1):
        env = task.make_env("sim", {"pole_mass_scale_range": [1, 1], "action_delay_steps": delay})
        env.reset(options={"initial_condition": ic})
        runs[delay] = [env.step(np.array([a], np.float32))[4]["privileged"] for a in (2.0, 0.0, 0.0)]
    rest = task.make_env("sim", {"pole_mass_scale_range": [1, 1]})
    rest.reset(options={"initial_condition": ic})
    idle = rest.step(np.zeros(1, np.float32))[4]["privileged"]
    assert np.allclose(runs[1][0], idle)  # the first command is still on its way
    assert not np.allclose(runs[0][0], idle)


def test_a_missing_mujoco_dependency_says_which_extra_to_install(monkeypatch):
    def broken(*args, **kwargs):
        raise ModuleNotFoundError("No module named 'imageio'", name="imageio")

    monkeypatch.setattr(gym, "make", broken)
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'simdist\[gym\]'"):
        make_task()


def test_a_spec_naming_unknown_parameters_is_refused():
    with pytest.raises(ValueError, match="unknown parameters \\['pole_mas'\\]"):
        make_task(randomize={"pole_mas": (0.9, 1.1)})


def _expert_wins(task, ics) -> dict[str, list[float]]:
    """The privileged expert's success from each initial condition, in both domains."""
    expert, wins = task.expert(), {}
    for domain in ("sim", "real"):
        env = task.make_env(domain)
        wins[domain] = []
        for ic in ics:
            env.reset(seed=0, options={"initial_condition": ic})
            infos = [env.step(expert.act(env.oracle_privileged_state()))[4] for _ in range(task.spec.episode_steps)]
            wins[domain].append(task.episode_metrics(infos)["success"])
    return wins


def test_the_inverted_pendulum_example_runs_through_the_cli(tmp_path, monkeypatch, capsys, fresh_registry):
    """The LQR expert balances in `sim` and, reading the true physics, in `real`; generation writes episodes."""
    monkeypatch.setenv(registry.MODULES_ENV, str(EXAMPLE))
    task = registry.get_task("inverted-pendulum")
    assert task.default_physics("real").action_delay_steps == 1
    assert _expert_wins(task, task.initial_conditions("default", 4, seed=0)) == {"sim": [1.0] * 4, "real": [1.0] * 4}
    assert (
        main(["generate", "inverted-pendulum", "--episodes", "3", "--out", str(tmp_path / "sim"), "--json", "--quiet"])
        == 0
    )
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["episodes"] == 3


def test_the_reacher_example_reaches_in_both_domains(monkeypatch, fresh_registry):
    """Reacher-v5: a "value" parameter (the fingertip payload), angles wrapped, vectors in the named state."""
    monkeypatch.setenv(registry.MODULES_ENV, str(EXAMPLE.parents[1] / "reacher" / "task.py"))
    task = registry.get_task("reacher")
    assert task.default_physics("real").fingertip_mass == 0.05
    assert _expert_wins(task, task.initial_conditions("default", 3, seed=0)) == {"sim": [1.0] * 3, "real": [1.0] * 3}
    named = task.make_env("real").named_state()
    assert named["fingertip_mass"] == pytest.approx(0.05) and named["target"].shape == (2,)


def test_a_critic_records_what_it_was_fitted_on_and_is_refitted_when_that_changes(tmp_path, monkeypatch, caplog):
    """A changed reward (or physics, spec, expert) never reuses the old critic silently."""
    from simdist.experts import fitted_critic
    from simdist.tasks.gymnasium import task as gym_task

    fits = []

    def fit(task, directory, cfg, fitted_on=None):
        fits.append(fitted_on)
        fitted_critic.MLPCritic(3, (4,)).save(directory, {"fitted_on": fitted_on})
        return 1.0

    monkeypatch.setattr(gym_task, "fit_and_save", fit)
    task = make_task()
    task.critic_dir = tmp_path / "critic"
    task.critic()
    task.critic()  # the same definition: fitted once
    assert len(fits) == 1 and json.loads((tmp_path / "critic" / "critic.json").read_text())["fitted_on"] == fits[0]
    changed = make_task(dense_reward=lambda s, a: -abs(s["pole_angle"]))
    changed.critic_dir = tmp_path / "critic"
    changed.critic()
    assert len(fits) == 2 and fits[1] != fits[0]
    assert "fitted on another definition of task 'test-cartpole'" in caplog.text


@pytest.mark.parametrize("example", ["inverted_pendulum", "reacher"])
def test_the_shipped_example_critics_match_their_tasks(example, monkeypatch, fresh_registry):
    """A committed critic is used as it is: a new spec field that does not change what it values (e.g.
    `finetune_overrides`) must not refit it into the examples' folders on first use."""
    from simdist.experts.fitted_critic import definition_hash, recorded_definition

    monkeypatch.setenv(registry.MODULES_ENV, str(EXAMPLE.parents[1] / example / "task.py"))
    task = registry.get_task(example.replace("_", "-"))
    current = definition_hash(task.gym_spec, task._sim, task._expert, task._suboptimal, task.critic_fit)
    assert recorded_definition(task.critic_dir) == current
