"""`simdist diagnose`: simulator rollouts that leave the live env alone, and a decomposition that blames the part
we broke."""

import copy
import itertools
import json
import math

import numpy as np
import pytest
import torch

from simdist.cli import main
from simdist.eval.diagnose import DiagnoseConfig, diagnose, shapley, spearman, verdict
from simdist.planning.settings import MPPIConfig
from simdist.planning.simulator import simulator_rollouts
from simdist.tasks import get_task
from simdist.training.checkpoint import load_model

TINY_MPPI = MPPIConfig(samples=24, policy_samples=8, iterations=1, elites=8)


def test_shapley_shares_are_order_free_and_sum_to_the_gain():
    # f = ρ after swapping parts (dynamics, reward, value): only the value matters, or value and dynamics jointly
    only_value = {k: (1.0 if k[2] else 0.0) for k in itertools.product((False, True), repeat=3)}
    assert shapley(only_value) == pytest.approx([0.0, 0.0, 1.0])
    joint = {k: (1.0 if k[0] and k[2] else 0.0) for k in itertools.product((False, True), repeat=3)}
    assert shapley(joint) == pytest.approx([0.5, 0.0, 0.5])


def test_spearman_ranks():
    x = np.array([0.1, 0.5, 0.2, 0.9])
    assert spearman(x, x**3) == pytest.approx(1.0)
    assert spearman(x, -x) == pytest.approx(-1.0)
    assert math.isnan(spearman(x, np.ones(4)))
    assert spearman(np.array([1.0, 1.0, 2.0]), np.array([1.0, 2.0, 3.0])) == pytest.approx(math.sqrt(3) / 2)
    # ties out of order share their mean rank too: ranks [0, 2.5, 2.5, 1] against [0, 3, 2, 1]
    assert spearman(np.array([1.0, 3.0, 3.0, 2.0]), np.array([1.0, 4.0, 3.0, 2.0])) == pytest.approx(
        0.9486833, abs=1e-6
    )


def test_simulator_rollouts_match_the_env_and_leave_it_untouched():
    task = get_task("pendulum")
    env = task.make_env("real", seed=3)
    env.reset(seed=3)
    for _ in range(3):
        env.step(np.array([0.4]))
    twin = copy.deepcopy(env)
    actions = np.random.default_rng(0).uniform(-1, 1, (4, 5, 1)).astype(np.float32)
    rollouts = simulator_rollouts(env, task.critic(), actions)
    assert rollouts.rewards.shape == (4, 5) and rollouts.obs["proprio"].shape == (4, 5, 3)
    for k in range(5):  # the first sequence, played on a plain copy, earns the same rewards
        obs, _, _, _, _ = twin.step(actions[0, k])
        assert np.array_equal(obs["proprio"], rollouts.obs["proprio"][0, k])
    after = [env.step(np.array([0.1]))[0]["proprio"] for _ in range(3)]  # the live env continues as if unprobed
    fresh = task.make_env("real", seed=3)
    fresh.reset(seed=3)
    for _ in range(3):
        fresh.step(np.array([0.4]))
    assert all(np.array_equal(a, fresh.step(np.array([0.1]))[0]["proprio"]) for a in after)


def test_verdict_reads_closed_loop_swaps_before_open_loop_ones():
    probe = {"share_dynamics": 0.1, "share_value": 0.5, "share_reward": 0.2, "rho_learned_model": 0.2}
    rates = lambda h, m, d, t: {"head": h, "mppi": m, "mppi_true_dynamics": d, "mppi_true_model": t}
    assert verdict(rates(0.9, 0.1, 0.9, 0.9), 40, probe)[0] == "dynamics"
    assert verdict(rates(0.9, 0.1, 0.1, 0.9), 40, probe)[0] == "value"
    assert verdict(rates(0.9, 0.1, 0.1, 0.1), 40, probe)[0] == "search"
    # within noise closed loop (2 trials): the open-loop ranking names the part
    assert verdict(rates(1.0, 0.0, 0.0, 1.0), 2, probe)[0] == "value"
    assert verdict(rates(0.5, 0.5, 0.5, 0.5), 40, {**probe, "share_value": 0.1, "share_reward": 0.1})[0] == "search"


def _value_reversed(checkpoint):
    """The model with a value head that ranks end states backwards, and loudly."""
    model = load_model(checkpoint)
    with torch.no_grad():
        model.value.out.weight.mul_(-200.0)
    return model


@pytest.mark.slow
def test_diagnose_blames_a_broken_value_head(pretrained):
    cfg = DiagnoseConfig(domain="sim", trials=2, probe_episodes=2, probes_per_episode=4)
    result = diagnose(get_task("pendulum"), _value_reversed(pretrained), TINY_MPPI, cfg)
    assert result["loser"] == "value", result["verdict"]
    assert set(result["agents"]) == {"head", "mppi", "mppi_true_dynamics", "mppi_true_model"}
    assert result["probes"]["count"] == 8


def test_diagnose_cli_writes_json_and_plot(pretrained, pendulum_data, tmp_path, capsys):
    out = tmp_path / "diag"
    assert (
        main(
            [
                "diagnose",
                "pendulum",
                "--checkpoint",
                str(pretrained),
                "--trials",
                "1",
                "--probe-episodes",
                "1",
                "--probes-per-episode",
                "1",
                "--data",
                str(pendulum_data),
                "--set",
                "mppi.samples=16",
                "--set",
                "mppi.policy_samples=8",
                "--set",
                "mppi.elites=8",
                "--set",
                "mppi.iterations=1",
                "--out",
                str(out),
                "--json",
                "--quiet",
            ]
        )
        == 0
    )
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    written = json.loads((out / "diagnosis.json").read_text())
    assert printed["loser"] == written["loser"] and written["verdict"]
    assert len(written["latent_error_by_horizon"]) == 5 and written["probes"]["value_error_data_states"] >= 0
    assert (out / "diagnosis.png").stat().st_size > 0
