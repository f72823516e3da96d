"""Quadruped data generation (terrain and course scenes, the batched Alg. 2 generator) and the PPO expert's export."""

from __future__ import annotations

import numpy as np
import pytest

from simdist.tasks.quadruped import experts, robot
from simdist.tasks.quadruped.batch_env import PRIVILEGED_DIM
from simdist.tasks.registry import get_task


def test_terrain_scene_for_data_generation():
    task = get_task("foam")
    env = task.make_env("sim", physics={"scene": "terrain"})
    obs, info = env.reset(seed=3)
    for _ in range(5):
        obs, reward, terminated, truncated, info = env.step(np.zeros(12, np.float32))
    task.spec.check_obs(obs)
    assert info["privileged"].shape == (PRIVILEGED_DIM,) and reward == info["dense_reward"]
    assert set(task.episode_metrics([info])) >= {"success", "progress_m"}
    with pytest.raises(ValueError, match="only in the sim domain"):
        task.make_env("real", physics={"scene": "terrain"})


def test_generic_alg2_episode_runs_on_the_terrain_scene():
    """Plumbing only: the generic generator's episode loop with a stand-still stub policy and a zero critic."""
    from simdist.data.generate import generation_preset, run_episode

    class StandStill:
        name = "stub"

        def reset(self, rng):
            pass

        def act(self, privileged):
            return np.zeros(12)

    class ZeroCritic:
        def value(self, privileged):
            return 0.0

    task = get_task("slippery-slope")
    env = task.make_env("sim", physics={"scene": "terrain"})
    episode = run_episode(
        task, env, StandStill(), True, ZeroCritic(), generation_preset("quadruped"), np.random.default_rng(0)
    )
    assert episode.obs["height"].shape[1:] == (21, 15) and episode.command.shape[1] == 3
    assert len(episode.action) == len(episode.reward) > 10


def test_forward_command_preset_stays_in_its_box():
    from simdist.tasks.quadruped.commands import COMMAND_PRESETS, RandomCommands

    ranges = COMMAND_PRESETS["forward"]
    cmds = RandomCommands(256, robot.CONTROL_PERIOD_S, np.random.default_rng(0), ranges)
    cmds.resample(np.arange(256))
    seen = [cmds.update(np.zeros(256)) for _ in range(600)]  # 12 s: drift, heading control and one resample
    seen = np.concatenate(seen)
    assert np.all(seen >= np.array(ranges.low) - 1e-9) and np.all(seen <= np.array(ranges.high) + 1e-9)
    assert seen[:, 0].mean() > 0.4  # mostly forward walking


def test_ppo_settings_are_saved_with_the_run_and_reused(tmp_path):
    pytest.importorskip("rsl_rl")  # the PPO glue imports it; the `test` extra installs it
    from simdist.tasks.quadruped.ppo import PPOSettings, ppo_config
    from simdist.tasks.quadruped.train_expert import load_settings

    first = PPOSettings(num_envs=512, obs_normalization=True, commands="forward", terrains=("flat", "rough"))
    assert load_settings(tmp_path, first) == first
    assert load_settings(tmp_path, PPOSettings()) == first  # a resumed chunk keeps the run's settings
    cfg = ppo_config(PPOSettings(schedule="fixed", learning_rate=3e-4, num_learning_epochs=3))
    assert cfg["algorithm"]["schedule"] == "fixed" and cfg["algorithm"]["num_learning_epochs"] == 3


def test_batched_generator_writes_alg2_episodes(tmp_path):
    """Plumbing only: stub policies (zero actions) and a zero critic; whole episodes in the dataset format."""
    from simdist.data.episodes import load_episodes
    from simdist.data.generate import GenerationConfig
    from simdist.data.quadruped_batched import generate_batched

    class Stub:
        def __init__(self, name):
            self.name = name

        def act(self, privileged):
            return np.zeros((len(privileged), 12))

    class ZeroCritic:
        def values(self, privileged):
            return np.zeros(len(privileged))

    cfg = GenerationConfig(
        noise_on_steps=(1, 3), noise_off_steps=(2, 4), noise_std_range=(3.0, 5.0), episodes_per_file=2
    )
    stats = generate_batched(
        get_task("foam"),
        tmp_path / "d",
        transitions=4 * 150,
        num_envs=4,
        cfg=cfg,
        policies=[Stub("expert"), Stub("iter_0")],
        critic=ZeroCritic(),
    )
    info, episodes = load_episodes(tmp_path / "d")
    assert stats["episodes"] == len(episodes) > 0 and stats["steps"] == sum(len(e) for e in episodes)
    e = episodes[0]
    assert e.obs["height"].shape[1:] == (21, 15) and e.command.shape == (len(e), 3) and e.value.shape == (len(e),)
    assert 0.0 < np.mean(np.concatenate([e.expert for e in episodes])) < 1.0  # noise windows clear the flag


def test_batched_generation_on_the_course_runs_evaluation_style_trials(tmp_path):
    """--scene course: the P-controller's command, a speed within the task's trial speeds, the trial time limit."""
    from simdist.data.episodes import load_episodes
    from simdist.data.quadruped_batched import generate_batched
    from simdist.tasks.quadruped.course_env import time_limit_s

    class Still:
        name = "expert"

        def act(self, privileged):
            return np.zeros((len(privileged), 12))

    class ZeroCritic:
        def values(self, privileged):
            return np.zeros(len(privileged))

    from simdist.data.generate import GenerationConfig

    task = get_task("foam")
    quiet = GenerationConfig(never_noise_prob=1.0)
    generate_batched(
        task,
        tmp_path / "c",
        transitions=2 * 1400,
        num_envs=2,
        cfg=quiet,
        policies=[Still()],
        critic=ZeroCritic(),
        scene="course",
        progress=False,
    )
    _, episodes = load_episodes(tmp_path / "c")
    assert episodes
    dt = task.spec.control_period_s
    shortest, longest = (time_limit_s(task.course, v) for v in (max(task.config.speeds), min(task.config.speeds)))
    for e in episodes:  # a robot that stands still times out, having made no progress
        assert not e.success and e.metrics["progress_m"] < 0.3
        assert shortest - dt <= len(e) * dt <= longest + dt
        assert e.command[0, 0] == pytest.approx(0.0, abs=1e-6) and e.command[:, 0].max() > 0.1
    with pytest.raises(ValueError, match="valid scenes"):
        generate_batched(task, tmp_path / "x", 10, num_envs=1, policies=[Still()], critic=ZeroCritic(), scene="moon")
    # The same trials on the held-out robot: the dataset says so, and its observations carry the sensor noise.
    generate_batched(
        task,
        tmp_path / "r",
        transitions=2 * 1400,
        num_envs=2,
        cfg=quiet,
        policies=[Still()],
        critic=ZeroCritic(),
        scene="course",
        progress=False,
        domain="real",
    )
    info, real = load_episodes(tmp_path / "r")
    assert info.domain == "real" and real
    from simdist.tasks.quadruped.batch_env import HEIGHT_NOISE_STD

    clean, noisy = episodes[0].obs["height"][0], real[0].obs["height"][0]  # the first scan, from the same spawn
    assert 0.5 * HEIGHT_NOISE_STD < (noisy - clean).std() < 2 * HEIGHT_NOISE_STD
    generate_batched(
        task,
        tmp_path / "low",
        transitions=2 * 150,
        num_envs=2,
        cfg=quiet,
        policies=[Still()],
        critic=ZeroCritic(),
        progress=False,
        physics={"foot_friction_range": [0.15, 0.15]},
    )
    assert "'foot_friction_range': (0.15, 0.15)" in load_episodes(tmp_path / "low")[0].notes
    with pytest.raises(ValueError, match="needs scene 'course'"):
        generate_batched(task, tmp_path / "y", 10, num_envs=1, policies=[Still()], critic=ZeroCritic(), domain="real")


def test_exported_expert_walks_the_foam_course_in_sim():
    """The committed expert (checkpoints/) crosses the sim foam course at 0.7 m/s; its critic and checkpoints load."""
    if not experts.exported_iterations():
        pytest.skip("no exported expert")
    task = get_task("foam")
    policy, critic = task.expert(), task.critic()
    assert len(task.suboptimal_policies()) >= 2
    env = task.make_env("sim", seed=0)
    obs, info = env.reset(seed=0, options={"initial_condition": {"speed": 0.7}})
    for _ in range(400):  # 8 s: the course takes about 5.3 s at this speed
        action = policy.act(info["privileged"])
        assert action.shape == (12,) and np.isfinite(action).all()
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    assert info["success"] and not info["fell"]
    assert np.isfinite(critic.value(info["privileged"]))


@pytest.mark.parametrize("normalize_obs", [True, False])
def test_export_reproduces_the_trained_actor_and_critic_without_pickle(tmp_path, normalize_obs):
    """`--export` writes weights only (safetensors); loaded back they compute what rsl-rl's own modules compute."""
    pytest.importorskip("rsl_rl")
    import torch

    from simdist.tasks.quadruped.ppo import PPOSettings
    from simdist.tasks.quadruped.train_expert import checkpoints, export, make_runner, train

    settings = PPOSettings(num_envs=4, hidden_dims=(32, 32), obs_normalization=normalize_obs)
    train(tmp_path / "run", 1, 0, settings)
    written = export(tmp_path / "run", settings, tmp_path / "out")
    assert sorted(p.name for p in written) == ["critic.safetensors", "policy_0.safetensors"]
    assert experts.exported_iterations(tmp_path / "out") == [0]
    runner, _ = make_runner(tmp_path / "reference", settings, 0, num_envs=4)
    runner.load(str(checkpoints(tmp_path / "run")[0]))
    x = 3 * torch.randn(64, 433)
    with torch.no_grad():
        for name, reference in (("policy_0", runner.alg.get_policy()), ("critic", runner.alg.critic)):
            ours = experts.load_exported(tmp_path / "out" / f"{name}.safetensors")
            torch.testing.assert_close(ours(x), reference.as_jit().eval()(x), rtol=0, atol=1e-6)


def test_a_file_that_is_not_an_exported_expert_is_refused(tmp_path):
    import torch
    from safetensors.torch import save_file

    save_file({"w": torch.zeros(2)}, str(tmp_path / "policy_0.safetensors"))
    with pytest.raises(ValueError, match="not an exported quadruped expert"):
        experts.load_exported(tmp_path / "policy_0.safetensors")
