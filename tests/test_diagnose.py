"""`simdist diagnose`: simulator rollouts that leave the live env alone, and a decomposition that blames the part
we broke."""

import copy
import itertools
import json
import math
from pathlib import Path

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
    finished = [json.loads(line) for line in (out / "agents.jsonl").read_text().splitlines()]
    assert [r["agent"] for r in finished] == ["head", "mppi", "mppi_true_dynamics", "mppi_true_model"]
    assert finished[1]["success_rate"] == written["agents"]["mppi"]["success_rate"]
    assert "end_distance_to_data" in written["probes"] and written["probes"]["value_error_further_half"] >= 0


def _played_near_the_end(env, steps_before_end: int, action: float):
    for _ in range(env_steps(env) - steps_before_end):
        env.step(np.full(env.action_space.shape, action))


def env_steps(env) -> int:
    return getattr(env, "episode_steps", None) or env.spec_.episode_steps


@pytest.mark.parametrize("steps_before_end", [40, 3])  # inside the episode, and truncated inside the horizon
def test_batched_simulator_rollouts_equal_stepped_copies(steps_before_end):
    """The pendulum's native-thread rollouts (latency queue, sensor noise, truncation) give what stepping a copy
    of the env once per sequence gives."""
    from simdist.planning.simulator import stepped_rollouts

    task = get_task("pendulum")
    env = task.make_env("real", seed=5)
    env.reset(seed=5)
    _played_near_the_end(env, steps_before_end, 0.3)
    actions = np.random.default_rng(1).uniform(-1.2, 1.2, (6, 5, 1)).astype(np.float32)
    fast, slow = simulator_rollouts(env, task.critic(), actions), stepped_rollouts(env, task.critic(), actions)
    np.testing.assert_allclose(fast.obs["proprio"], slow.obs["proprio"], atol=1e-5)
    np.testing.assert_allclose(fast.rewards, slow.rewards, atol=1e-6)
    np.testing.assert_allclose(fast.terminal_value, slow.terminal_value, atol=1e-4)
    assert np.array_equal(fast.ended, slow.ended) and fast.ended.all() == (steps_before_end < 5)


def test_batched_gymnasium_rollouts_equal_stepped_copies(monkeypatch, fresh_registry):
    pytest.importorskip("gymnasium.envs.mujoco")
    from simdist.planning.simulator import stepped_rollouts
    from simdist.tasks import registry

    monkeypatch.setenv(
        registry.MODULES_ENV, str(Path(__file__).resolve().parents[1] / "examples" / "inverted_pendulum" / "task.py")
    )
    task = registry.get_task("inverted-pendulum")
    env = task.make_env("real", seed=2)  # one control step of latency
    env.reset(seed=2)
    for _ in range(4):
        env.step(np.array([0.5]))
    actions = np.random.default_rng(2).uniform(-3.5, 3.5, (5, 4, 1)).astype(np.float32)
    fast, slow = simulator_rollouts(env, task.critic(), actions), stepped_rollouts(env, task.critic(), actions)
    np.testing.assert_allclose(fast.obs["proprio"], slow.obs["proprio"], atol=1e-5)
    np.testing.assert_allclose(fast.rewards, slow.rewards, atol=1e-6)
    np.testing.assert_allclose(fast.terminal_value, slow.terminal_value, atol=1e-4)


def test_simulator_planner_keeps_the_learned_objective_but_the_estimate(tiny_cfg):
    """Every agent `diagnose` compares scores candidates as the learned planner does except for the part swapped:
    given the model's own return estimate, the simulator planner's objective (ensemble pessimism around the BC
    chunk, prior penalty) equals the learned planner's. Fails if either objective drifts from the other."""
    from simdist.config import replace
    from simdist.model.world_model import ModelSpec, WorldModel
    from simdist.planning.mppi import MPPIPlanner, prior_penalty
    from simdist.planning.simulator import SimulatorMPPIPlanner

    torch.manual_seed(0)
    spec = ModelSpec({"proprio": (3,)}, action_dim=1, action_low=(-1.0,), action_high=(1.0,))
    model = WorldModel(replace(tiny_cfg, dynamics_ensemble=3), spec).eval()
    cfg = MPPIConfig(samples=16, policy_samples=4, iterations=1, elites=4, uncertainty_weight=0.7, prior_weight=3.0)
    H = model.cfg.history
    ctx = model.planning_context({"proprio": torch.randn(1, 3)}, torch.randn(1, H, 3), torch.randn(1, H, 1))
    learned, simulated = MPPIPlanner(model, cfg), SimulatorMPPIPlanner(model, cfg, critic=None, score="true")
    simulated._estimate = lambda c, cands: model.plan_returns_n(c, cands, cfg.discount, cfg.value_weight)
    chunk = model.plan_policy_n(ctx)[0]
    cands = torch.randn(8, model.cfg.horizon, 1)
    objective = lambda planner: planner._returns(ctx, cands, chunk) - prior_penalty(cands, chunk, cfg)
    assert not torch.allclose(model.plan_returns_n(ctx, cands, cfg.discount), learned._returns(ctx, cands, chunk))
    torch.testing.assert_close(objective(simulated), objective(learned), atol=1e-5, rtol=1e-5)


def test_sim_physics_critic_reads_the_gap_at_sim_values():
    """The pendulum's `real` motor is outside `sim`'s range: that entry (and no state entry) is put back."""
    from simdist.planning.simulator import SimPhysicsCritic

    task = get_task("pendulum")
    ic = task.initial_conditions("default", 1, seed=0)[0]
    critic = SimPhysicsCritic(task.critic(), task, None, ic, resets=8)
    assert not critic.gap[:2].any() and critic.gap[5]  # θ, θ̇ untouched; max torque at its sim mean
    env = task.make_env("real", seed=0)
    env.reset(seed=0, options={"initial_condition": ic})
    real_state = env.oracle_privileged_state()
    as_sim = real_state.copy()
    as_sim[critic.gap] = critic.nominal[critic.gap]
    assert critic.value(real_state) == pytest.approx(task.critic().value(as_sim))
    assert critic.values(real_state[None])[0] == pytest.approx(critic.value(real_state), abs=1e-5)


def test_latent_coverage_is_in_units_of_the_data(pretrained, pendulum_data):
    from simdist.data.episodes import load_episodes
    from simdist.eval.coverage import LatentCoverage

    model = load_model(pretrained)
    coverage = LatentCoverage(model, load_episodes(pendulum_data)[1], samples=256)
    assert np.allclose(coverage.distance(coverage.latents[:8]), 0.0)
    far = coverage.latents[:8] + 100 * coverage.unit
    assert (coverage.distance(far) > 50).all()


def test_step_values_agree_between_batched_and_stepped_rollouts():
    from simdist.planning.simulator import stepped_rollouts

    task = get_task("pendulum")
    env = task.make_env("sim", seed=4)
    env.reset(seed=4)
    _played_near_the_end(env, 3, -0.2)  # truncated inside the horizon: no value after the end
    actions = np.random.default_rng(3).uniform(-1, 1, (3, 5, 1)).astype(np.float32)
    fast = simulator_rollouts(env, task.critic(), actions, step_values=True)
    slow = stepped_rollouts(env, task.critic(), actions, step_values=True)
    np.testing.assert_allclose(fast.values, slow.values, atol=1e-4)
    assert (fast.values[:, 3:] == 0).all() and (fast.values[:, :3] != 0).all()


def test_effect_error_is_zero_for_exact_shifts_and_one_for_a_model_that_ignores_the_actions():
    import torch

    from simdist.eval.diagnose import effect_error

    true = torch.randn(6, 4, 3)
    assert effect_error(true.clone(), true) == pytest.approx(0.0, abs=1e-6)
    assert effect_error(true + 5.0, true) == pytest.approx(0.0, abs=1e-5)  # an offset shared by all is no effect
    frozen = true[-1:].expand(6, 4, 3).clone()  # every candidate predicted where the head goes
    assert effect_error(frozen, true) == pytest.approx(1.0)
