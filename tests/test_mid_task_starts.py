"""Alg. 2's diverse resets: episodes that start along a noised expert run (GenerationConfig.mid_task_prob)."""

import numpy as np

from simdist.data.generate import GenerationConfig, run_episode
from simdist.data.resets import MidTaskStarts
from simdist.tasks import get_task


def test_starts_are_seeded_states_of_an_expert_run_each_on_its_own_env():
    task = get_task("pendulum")
    env = task.make_env("sim", seed=0)
    cfg = GenerationConfig(mid_task_prob=1.0, mid_task_starts_per_run=3)
    starts = MidTaskStarts(task, env, task.expert(), cfg, np.random.default_rng(0))
    got = [starts.next(seed=3) for _ in range(3)]
    assert len({id(e) for e, _, _ in got}) == 3 and all(e is not env for e, _, _ in got)
    reset, _ = env.reset(seed=3)
    assert not any(np.allclose(obs["proprio"], reset["proprio"]) for _, obs, _ in got)
    first_env, first_obs, _ = got[0]
    again = MidTaskStarts(task, env, task.expert(), cfg, np.random.default_rng(0)).next(seed=3)
    np.testing.assert_array_equal(first_obs["proprio"], again[1]["proprio"])  # a seeded run: the same starts
    step = np.zeros(task.spec.action_dim)
    np.testing.assert_array_equal(first_env.step(step)[0]["proprio"], again[0].step(step)[0]["proprio"])


def test_mid_task_episodes_are_shorter_and_the_default_draws_nothing_more():
    task = get_task("pendulum")
    critic = task.critic()

    def episode(cfg, with_starts):
        env, rng = task.make_env("sim", seed=0), np.random.default_rng(0)
        starts = MidTaskStarts(task, env, task.expert(), cfg, rng) if with_starts else None
        return run_episode(task, env, task.expert(), True, critic, cfg, rng, starts=starts)

    mid = episode(GenerationConfig(mid_task_prob=1.0, mid_task_s=1.0), True)
    assert len(mid) == round(1.0 / task.spec.control_period_s) < task.spec.episode_steps
    plain, never = episode(GenerationConfig(), False), episode(GenerationConfig(mid_task_prob=0.0), True)
    np.testing.assert_array_equal(plain.action, never.action)  # opt-in: the default data are unchanged
    np.testing.assert_array_equal(plain.obs["proprio"], never.obs["proprio"])
