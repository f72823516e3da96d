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
