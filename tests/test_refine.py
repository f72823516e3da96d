"""Planner rounds in simulation (`simdist refine`): the planner's episodes carry Alg. 2's labels and no BC targets,
and the model trains on, warm-started, over the simulation data and them."""

import json

import numpy as np
import pytest
import torch

from simdist.data.episodes import episode_files, load_episodes
from simdist.planning.agent import MPPIAgent
from simdist.planning.refine import RefineConfig, planner_episode, refine
from simdist.planning.settings import MPPIConfig
from simdist.tasks import get_task
from simdist.training.checkpoint import load_model

PLANNER = MPPIConfig(samples=16, policy_samples=4, iterations=1, elites=4)


def test_planner_episode_has_alg2_labels_and_no_bc_targets(pretrained):
    task = get_task("pendulum")
    env, critic = task.make_env("sim", seed=3), task.critic()
    ep = planner_episode(task, env, MPPIAgent(load_model(pretrained), PLANNER), critic, seed=11)
    assert len(ep.action) == task.spec.episode_steps
    assert not ep.expert.any() and ep.source_policy == "planner"
    assert np.isfinite(ep.reward).all() and np.isfinite(ep.value).all()
    # the first label is the expert critic at the true reset state of the same seed
    _, info = task.make_env("sim", seed=3).reset(seed=11)
    assert ep.value[0] == pytest.approx(critic.value(info["privileged"]), rel=1e-5)


def test_refine_trains_on_the_planner_episodes_and_resumes(pretrained, pendulum_data, tmp_path):
    task, out = get_task("pendulum"), tmp_path / "refined"
    cfg = RefineConfig(rounds=2, episodes=2, steps=4)
    result = refine(task, pretrained, pendulum_data, out, cfg, PLANNER, progress=False)
    assert result["checkpoint"] == str(out / "round_02" / "model")
    sim_files = len(episode_files(pendulum_data))
    assert len(episode_files(out / "round_02" / "data")) == sim_files + 2  # Alg. 2's data and both rounds' episodes
    _, planner_eps = load_episodes(out / "round_01" / "planner_data")
    assert len(planner_eps) == 2 and not any(ep.expert.any() for ep in planner_eps)
    before, after = load_model(pretrained).state_dict(), load_model(result["checkpoint"]).state_dict()
    for group in ("dynamics.", "value."):  # warm-started and trained on
        assert any(not torch.equal(before[k], after[k]) for k in before if k.startswith(group))
    stamp = (out / "round_01" / "planner_data" / "stats.json").stat().st_mtime_ns
    assert refine(task, pretrained, pendulum_data, out, cfg, PLANNER, progress=False) == result  # resumes: no work
    assert (out / "round_01" / "planner_data" / "stats.json").stat().st_mtime_ns == stamp
    with pytest.raises(ValueError, match="other settings"):
        refine(
            task, pretrained, pendulum_data, out, RefineConfig(rounds=2, episodes=3, steps=4), PLANNER, progress=False
        )
    assert json.loads((out / "refine_results.json").read_text())["rounds"][1]["round"] == 2
    more = refine(
        task, pretrained, pendulum_data, out, RefineConfig(rounds=3, episodes=2, steps=4), PLANNER, progress=False
    )  # more rounds continue the run
    assert more["rounds"][:2] == result["rounds"] and more["checkpoint"] == str(out / "round_03" / "model")
    assert (out / "round_01" / "planner_data" / "stats.json").stat().st_mtime_ns == stamp


def test_refine_config_refuses_empty_rounds():
    with pytest.raises(ValueError, match="at least one"):
        RefineConfig(episodes=0)


def test_candidate_branches_continue_the_executed_history_with_simulated_labels(pretrained):
    """A branch is the H executed steps before a planner step, then one of the candidates it scored, played in the
    simulator: its observations and rewards are what a copy of the env gives for those actions."""
    task = get_task("pendulum")
    env, critic = task.make_env("sim", seed=3), task.critic()
    agent = MPPIAgent(load_model(pretrained), PLANNER)
    agent.planner.keep_candidates = True
    branches: list = []
    ep = planner_episode(task, env, agent, critic, seed=11, branches=4, branch_every=10, branch_out=branches)
    H, T = agent.H, agent.model.cfg.horizon
    steps = range(0, task.spec.episode_steps, 10)
    complete = [t for t in steps if t + T <= task.spec.episode_steps]  # no branch past the episode's end
    assert len(branches) == 4 * len(complete)
    for b, t in zip(branches[::4], complete):
        s = max(0, t - H)
        assert len(b) == (t - s) + T + 1 and not b.expert.any() and b.source_policy == "planner_branch"
        np.testing.assert_array_equal(b.obs["proprio"][: t - s + 1], ep.obs["proprio"][s : t + 1])
        np.testing.assert_array_equal(b.action[: t - s], ep.action[s:t])
        assert b.value[t - s] == ep.value[t] and np.isfinite(b.value).all()
    # replayed on a fresh env of the same seed, a branch's actions give its observations and rewards
    t, b = complete[1], branches[4]
    twin = task.make_env("sim", seed=3)
    twin.reset(seed=11)
    for a in ep.action[:t]:
        twin.step(a)
    for k in range(T):
        obs, reward, *_ = twin.step(b.action[t - max(0, t - H) + k])
        assert reward == pytest.approx(b.reward[t - max(0, t - H) + k], abs=1e-6)
        np.testing.assert_allclose(obs["proprio"], b.obs["proprio"][t - max(0, t - H) + k + 1], atol=1e-5)
