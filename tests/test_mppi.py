"""The planner on problems with known solutions. The world model's scoring function is replaced by an
analytic one (the planner, not the model, is under test); everything else is the real model."""

import numpy as np
import pytest
import torch

from simdist.config import model_preset, replace
from simdist.model.world_model import ModelSpec, WorldModel
from simdist.planning.agent import MPPIAgent, PolicyAgent
from simdist.planning.mppi import MPPIPlanner, refit
from simdist.planning.settings import MPPIConfig

SPEC = ModelSpec({"proprio": (2,)}, action_dim=2, action_low=(-3.0, -3.0), action_high=(3.0, 3.0))


def model_with_returns(returns_fn) -> WorldModel:
    torch.manual_seed(0)
    model = WorldModel(model_preset("cpu"), SPEC).eval()

    def plan_returns_n(ctx, actions_n, discount, value_weight=1.0, uncertainty_weight=0.0, reference_n=None):
        return returns_fn(actions_n)

    model.plan_returns_n = plan_returns_n
    return model


def context(model):
    obs = {"proprio": torch.zeros(1, 2)}
    H = model.cfg.history
    return model.planning_context(obs, torch.zeros(1, H, 2), torch.zeros(1, H, 2))


def linear_quadratic_returns(x0: float = 2.0, rho: float = 0.1):
    """x_{k+1} = x_k + a_k (per action dim), R = -Σ x_{k+1}² - ρ Σ a_k²."""

    def returns(actions):
        x = x0 + torch.cumsum(actions, dim=1)
        return -(x**2).sum((1, 2)) - rho * (actions**2).sum((1, 2))

    return returns


def lq_optimum(T: int, x0: float = 2.0, rho: float = 0.1) -> np.ndarray:
    # Least squares in the T actions of one dimension: minimise ‖x0·1 + L a‖² + ρ‖a‖², L lower-triangular ones.
    L = np.tril(np.ones((T, T)))
    return np.linalg.solve(L.T @ L + rho * np.eye(T), -L.T @ (x0 * np.ones(T)))


def test_mppi_reaches_linear_quadratic_optimum():
    model = model_with_returns(linear_quadratic_returns(rho=1.0))
    cfg = MPPIConfig(
        samples=512,
        policy_samples=0,
        iterations=20,
        elites=64,
        temperature=0.5,
        init_std=1.0,
        min_std=0.01,
        warm_start=False,
    )
    result = MPPIPlanner(model, cfg).plan(context(model))
    optimum = lq_optimum(model.cfg.horizon, rho=1.0)
    np.testing.assert_allclose(result.mean[:, 0].numpy(), optimum, atol=0.1)
    np.testing.assert_allclose(result.mean[:, 1].numpy(), optimum, atol=0.1)


def test_prior_weight_pulls_the_plan_towards_the_base_policy():
    """R = -Σ(a - 1)² minus the prior penalty w·mean((a - a_BC)²): with w = T·A the optimum is (1 + a_BC) / 2,
    halfway to the BC chunk; with w = 0 it is the unregularised optimum 1."""
    model = model_with_returns(lambda a: -((a - 1.0) ** 2).sum((1, 2)))
    T, A = model.cfg.horizon, 2
    cfg = MPPIConfig(
        samples=512,
        policy_samples=0,
        iterations=20,
        elites=64,
        temperature=0.5,
        init_std=1.0,
        min_std=0.01,
        warm_start=False,
    )
    for weight, pull in ((0.0, 0.0), (float(T * A), 0.5)):
        planner = MPPIPlanner(model, replace(cfg, prior_weight=weight))
        ctx = context(model)
        bc = planner._clip(planner._policy_chunk(ctx)[0])
        expected = (1 - pull) * 1.0 + pull * bc
        np.testing.assert_allclose(planner.plan(ctx).mean.numpy(), expected.numpy(), atol=0.08)


def test_action_bounds_are_enforced():
    target = 10.0  # optimum far outside the bounds
    model = model_with_returns(lambda a: -((a - target) ** 2).sum((1, 2)))
    res = MPPIPlanner(model, MPPIConfig(samples=64, policy_samples=8, elites=16)).plan(context(model))
    assert (res.action <= 3.0 + 1e-6).all() and (res.action >= -3.0 - 1e-6).all()


def test_nan_returns_never_produce_nan_actions():
    model = model_with_returns(lambda a: torch.full((a.shape[0],), float("nan")))
    res = MPPIPlanner(model, MPPIConfig(samples=32, policy_samples=8, elites=8)).plan(context(model))
    assert res.fallback and torch.isfinite(res.action).all()

    def some_nan(a):
        r = -(a**2).sum((1, 2))
        r[::2] = float("nan")
        return r

    model = model_with_returns(some_nan)
    res = MPPIPlanner(model, MPPIConfig(samples=32, policy_samples=8, elites=8)).plan(context(model))
    assert not res.fallback and torch.isfinite(res.action).all()


def test_warm_start_shifts_previous_plan_by_one_step():
    model = model_with_returns(linear_quadratic_returns())
    planner = MPPIPlanner(model, MPPIConfig(samples=16, policy_samples=0, elites=4, warm_start=True))
    prev = torch.arange(10, dtype=torch.float32).reshape(5, 2)
    planner.prev_mean = prev
    mean = planner.initial_mean(torch.zeros(5, 2))
    assert mean[:4].tolist() == prev[1:].tolist() and mean[4].tolist() == prev[4].tolist()
    planner.reset()
    assert planner.initial_mean(torch.ones(5, 2)).tolist() == torch.ones(5, 2).tolist()
    fresh = MPPIPlanner(model, MPPIConfig(samples=16, policy_samples=0, elites=4))  # the default: a fresh search
    fresh.prev_mean = prev
    assert fresh.initial_mean(torch.ones(5, 2)).tolist() == torch.ones(5, 2).tolist()


def test_too_many_elites_is_an_error():
    model = model_with_returns(linear_quadratic_returns())
    with pytest.raises(ValueError, match="elites"):
        MPPIPlanner(model, MPPIConfig(samples=8, policy_samples=0, elites=16))


def test_agent_rejects_malformed_observations():
    torch.manual_seed(0)
    agent = MPPIAgent(WorldModel(model_preset("cpu"), SPEC), MPPIConfig(samples=16, policy_samples=4, elites=4))
    with pytest.raises(KeyError, match="proprio"):
        agent.act({"joints": np.zeros(2)})
    with pytest.raises(ValueError, match="shape"):
        agent.act({"proprio": np.zeros(3)})
    with pytest.raises(ValueError, match="NaN"):
        agent.act({"proprio": np.array([0.0, np.nan])})
    action = agent.act({"proprio": np.zeros(2)})
    assert action.shape == (2,) and np.isfinite(action).all()


def test_policy_agent_temporal_ensemble_weights_each_chunks_plan_for_now():
    """ensemble_decay=M executes sum_k exp(-M k) chunk_k[k] / sum_k exp(-M k) over the last T chunks (chunk k made k
    steps ago); without it the agent executes the newest chunk's first action; a reset or a takeover forgets them."""
    torch.manual_seed(0)
    model = WorldModel(model_preset("cpu"), SPEC).eval()
    observations = [{"proprio": np.array([0.3 * i, -0.2 * i], np.float32)} for i in range(7)]
    decay, T = 0.5, model.cfg.horizon
    agent, shadow, chunks = PolicyAgent(model, ensemble_decay=decay), PolicyAgent(model), []
    for step, obs in enumerate(observations):
        chunks.insert(0, shadow.bc_chunk(obs))  # the shadow's history follows what the agent executes
        recent = chunks[:T]
        w = np.exp(-decay * np.arange(len(recent)))
        expected = np.clip(sum(wk * c[k] for k, (wk, c) in enumerate(zip(w, recent))) / w.sum(), -3, 3)
        executed = agent.act(obs)
        shadow.execute(obs, executed)
        assert np.allclose(executed, expected, atol=1e-6), step
        if step == 0:
            assert np.allclose(executed, PolicyAgent(model).act(obs))  # one chunk: the plain head's action
        else:
            assert not np.allclose(executed, np.clip(chunks[0][0], -3, 3))
    agent.reset()
    assert np.allclose(agent.act(observations[0]), PolicyAgent(model).act(observations[0]))
    agent.observe(observations[1], np.zeros(2))
    assert not agent._chunks
    with pytest.raises(ValueError, match="ensemble_decay"):
        PolicyAgent(model, ensemble_decay=-1.0)


@pytest.mark.slow
def test_compiled_planner_matches_reference():
    """MPPIConfig.compile changes how an iteration is computed, not what: same returns, plan and action (in fp32;
    the bf16 products of `cpu_bf16` have their own tolerance, tests/test_precision.py)."""
    spec = ModelSpec({"proprio": (3,)}, action_dim=2, command_dim=1, action_low=(-1.0, -1.0), action_high=(1.0, 1.0))
    torch.manual_seed(0)
    model = WorldModel(replace(model_preset("cpu"), policy_step_width=4), spec).eval()  # with the single-step head
    # 64·5 queries: transposed attention; a prior penalty so that it is part of the compiled graph too
    cfg = MPPIConfig(samples=56, policy_samples=8, iterations=2, elites=8, prior_weight=0.5, cpu_bf16="off")
    ref, fast = MPPIPlanner(model, cfg), MPPIPlanner(model, replace(cfg, compile=True))
    assert ref.compile_s == 0.0 and fast.compile_s > 0.0  # compiled at construction
    H = model.cfg.history

    def same_plans():
        obs = {"proprio": torch.randn(1, 3)}
        ctx = model.planning_context(obs, torch.randn(1, H, 3), torch.randn(1, H, 2), torch.randn(1, 1))
        a, b = ref.plan(ctx), fast.plan(ctx)
        torch.testing.assert_close(b.mean, a.mean, rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(b.action, a.action, rtol=1e-4, atol=1e-4)
        assert b.best_return == pytest.approx(a.best_return, rel=1e-5, abs=1e-5) and a.fallback == b.fallback

    same_plans()
    same_plans()  # warm start from the previous plan
    with torch.no_grad():  # the weights are read at each call (finetuning is seen), not baked into the graph
        model.reward.out.bias += 1.0
    same_plans()


def test_failed_compile_plans_eagerly(monkeypatch, caplog):
    """A machine where torch.compile cannot build (no C++ compiler) gets a warning and the eager plan."""
    from simdist.planning import mppi

    def broken(*args):
        raise RuntimeError("no C++ compiler")

    monkeypatch.setattr(mppi, "_compiled_heads", lambda planner: (broken, broken))
    spec = ModelSpec({"proprio": (3,)}, action_dim=2)
    torch.manual_seed(0)
    model = WorldModel(model_preset("cpu"), spec).eval()
    cfg = MPPIConfig(samples=16, policy_samples=4, iterations=2, elites=4)
    with caplog.at_level("WARNING"):
        planner = MPPIPlanner(model, replace(cfg, compile=True))
    assert "torch.compile failed" in caplog.text and planner.compile_s == 0.0
    H = model.cfg.history
    ctx = model.planning_context({"proprio": torch.randn(1, 3)}, torch.randn(1, H, 3), torch.randn(1, H, 2), None)
    torch.testing.assert_close(planner.plan(ctx).action, MPPIPlanner(model, cfg).plan(ctx).action)


@pytest.mark.parametrize("candidates", [64, 1000])  # 320 shared queries: transposed path; 5000: fused kernel
def test_fast_attention_paths_match_explicit_reference(monkeypatch, candidates):
    """The planner's shared-context cross-attention (transposed on CPU, or the fused kernel for many queries)
    gives the returns of the explicit-matmul reference path."""
    from simdist.model import layers

    spec = ModelSpec({"proprio": (3,)}, action_dim=2, command_dim=1)
    torch.manual_seed(0)
    model = WorldModel(model_preset("cpu"), spec).eval()
    H, T = model.cfg.history, model.cfg.horizon
    ctx = model.planning_context(
        {"proprio": torch.randn(1, 3)}, torch.randn(1, H, 3), torch.randn(1, H, 2), torch.randn(1, 1)
    )
    actions = torch.randn(candidates, T, 2)
    fast = model.plan_returns_n(ctx, actions, 0.99)
    monkeypatch.setattr(layers, "FUSED_MIN_QUERIES", 10**9)  # explicit matmuls everywhere
    torch.testing.assert_close(fast, model.plan_returns_n(ctx, actions, 0.99), rtol=1e-5, atol=1e-5)


def test_refit_gives_non_finite_returns_zero_weight_like_leaving_them_out():
    """The graph-friendly refit (weight 0 for non-finite elites) equals fitting the finite elites alone."""
    torch.manual_seed(0)
    cfg = MPPIConfig(samples=12, policy_samples=0, elites=6, temperature=0.7)
    candidates, returns = torch.randn(12, 5, 2), torch.randn(12)
    returns[[1, 4, 7, 8, 9, 10, 11]] = torch.tensor([float("nan"), float("inf"), -float("inf")] + [float("nan")] * 4)
    mean, std, best = refit(candidates, returns, cfg)
    finite = torch.isfinite(returns)
    order = returns[finite].argsort(descending=True)
    r, elites = returns[finite][order], candidates[finite][order]
    w = torch.softmax(cfg.temperature * r, 0)[:, None, None]
    torch.testing.assert_close(mean, (w * elites).sum(0))
    torch.testing.assert_close(std, ((w * (elites - mean) ** 2).sum(0)).sqrt().clamp(cfg.min_std, cfg.max_std))
    assert best == r[0]


def test_every_mppi_preset_is_valid_and_manipulation_prior_is_the_paper_sampler_held_near_bc():
    from dataclasses import asdict

    from simdist.planning.settings import MPPI_PRESETS, mppi_preset

    for name in MPPI_PRESETS:
        cfg = mppi_preset(name)
        assert 0 < cfg.elites <= cfg.samples + cfg.policy_samples and cfg.iterations >= 1, name
    paper, held = asdict(mppi_preset("paper-manipulation")), asdict(mppi_preset("manipulation-prior"))
    assert {k for k in paper if paper[k] != held[k]} == {"prior_weight", "policy_noise_std"}
    assert held["prior_weight"] > 0 == paper["prior_weight"]
    with pytest.raises(KeyError, match="manipulation-prior"):
        mppi_preset("nope")  # the error lists the valid presets


@pytest.mark.slow
@pytest.mark.parametrize("causal", [True, False])
def test_compiled_self_attention_unrolls_and_matches_eager(monkeypatch, causal):
    """Under torch.compile on CPU (no grad) small-head self-attention takes the samples-last unrolled form
    (`SelfAttention._samples_last`), with the eager result; with gradients it keeps the matmul form."""
    from simdist.model import layers

    traced = []
    original = layers.SelfAttention._samples_last
    monkeypatch.setattr(layers.SelfAttention, "_samples_last", lambda self, x: traced.append(1) or original(self, x))
    torch.manual_seed(0)
    attn = layers.SelfAttention(32, 4, 0.0, causal=causal).eval()
    x = torch.randn(6, 7, 32)
    with torch.no_grad():
        expected = attn(x)
        got = torch.compile(attn, dynamic=False)(x)
    assert traced, "the compiled path did not take the unrolled form"
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)
    traced.clear()
    torch._dynamo.reset()
    torch.compile(attn, dynamic=False)(x).sum().backward()  # training: no unrolled form
    assert not traced and attn.qkv.weight.grad is not None


@pytest.mark.slow
def test_compiled_training_attention_sums_match_eager_gradients(monkeypatch):
    """Compiled training on one CPU thread computes small-head attention as broadcast sums (`_attention_sums`) in
    self- and cross-attention, with the eager loss and gradients; on two threads it keeps the matmul form."""
    from simdist.model import layers

    traced = []
    original = layers._attention_sums
    monkeypatch.setattr(layers, "_attention_sums", lambda *a, **k: traced.append(1) or original(*a, **k))
    torch.manual_seed(0)
    layer = layers.DecoderLayer(32, 4, 64, 0.0, 0.0).train()
    x, context = torch.randn(6, 5, 32, requires_grad=True), torch.randn(6, 11, 32)

    def loss_and_grads(fn):
        layer.zero_grad()
        x.grad = None
        loss = fn(x, context).square().mean()
        loss.backward()
        return loss.detach(), x.grad.clone(), layer.cross_attn.q.weight.grad.clone()

    forward = lambda x, c: layer(x, layer.cross_attn.cache(c))
    expected = loss_and_grads(forward)
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        torch._dynamo.reset()
        got = loss_and_grads(torch.compile(forward, dynamic=False))
        assert len(traced) == 2, "self- and cross-attention should both take the broadcast-sum form"
        torch.set_num_threads(2)
        torch._dynamo.reset()
        traced.clear()
        loss_and_grads(torch.compile(forward, dynamic=False))
        assert not traced
    finally:
        torch.set_num_threads(threads)
        torch._dynamo.reset()
    for a, b in zip(got, expected):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)


def test_gate_keeps_the_bc_chunk_unless_the_predicted_gain_exceeds_the_models_return_error():
    """R = -Σ(a - 1)²: the plan gains T·A·(1 - a_BC)²-ish over the BC chunk. Below the gate's threshold (the
    model's measured return error × gate_weight) the BC chunk is executed; above it, the plan; unmeasured (0), the
    paper's planner."""
    model = model_with_returns(lambda a: -((a - 1.0) ** 2).sum((1, 2)))
    cfg = MPPIConfig(
        samples=256,
        policy_samples=0,
        iterations=10,
        elites=32,
        temperature=0.5,
        min_std=0.01,
        warm_start=False,
        gate_weight=1.0,
    )
    ctx = context(model)
    planner = MPPIPlanner(model, cfg)
    bc = planner._clip(planner._policy_chunk(ctx)[0])
    gain = float(((bc - 1.0) ** 2).sum())  # the optimum's gain over the chunk
    assert gain > 1.0
    for error, gated in ((0.0, False), (0.5 * gain, False), (2.0 * gain, True)):
        model.return_error.fill_(error)
        result = MPPIPlanner(model, cfg).plan(ctx)
        assert result.gated is gated
        if gated:
            torch.testing.assert_close(result.mean, bc)
        else:
            np.testing.assert_allclose(result.mean.numpy(), 1.0, atol=0.1)
    model.return_error.fill_(2.0 * gain)
    assert MPPIPlanner(model, replace(cfg, gate_weight=0.0)).plan(ctx).gated is False


def test_scaled_weights_are_the_same_on_every_reward_scale():
    """With `weights="scaled"` the elites' weights depend on returns only in units of their own spread (or the model's
    return error, when larger): multiplying every return by 1,000 leaves the refit unchanged; raw weights do not."""
    gen = torch.Generator().manual_seed(0)
    candidates = torch.randn(40, 5, 2, generator=gen)
    returns = torch.randn(40, generator=gen)
    scaled = MPPIConfig(samples=40, policy_samples=0, elites=10, temperature=1.0, weights="scaled")
    raw = MPPIConfig(samples=40, policy_samples=0, elites=10, temperature=1.0)
    for cfg, same in ((scaled, True), (raw, False)):
        small, large = refit(candidates, returns, cfg)[0], refit(candidates, 1000 * returns, cfg)[0]
        assert torch.allclose(small, large, atol=1e-5) == same
    # a return error far above the elites' spread: they cannot be told apart, so they are averaged nearly evenly
    uniform = candidates[torch.topk(returns, 10).indices].mean(0)
    assert torch.allclose(refit(candidates, returns, scaled, return_error=1e4)[0], uniform, atol=1e-3)
    assert not torch.allclose(refit(candidates, returns, scaled)[0], uniform, atol=1e-3)


def test_unknown_weights_name_the_valid_ones():
    with pytest.raises(ValueError, match=r"raw.*scaled"):
        MPPIConfig(weights="softmax")


def test_unanimous_acceptance_acts_only_where_every_member_predicts_a_gain():
    """accept="unanimous": the plan acts where the paper's dynamics and every member score it above the BC chunk,
    however small the gain; one dissenting member hands the step back to the chunk. Without members it is refused."""
    torch.manual_seed(0)
    model = WorldModel(replace(model_preset("cpu"), dynamics_ensemble=2), SPEC).eval()
    model.plan_returns_n = lambda ctx, actions_n, *args, **kw: -((actions_n - 1.0) ** 2).sum((1, 2))
    dissent = {"member": None}

    def member_returns_n(ctx, actions_n, discount, value_weight, reference_n):
        both = torch.cat((actions_n, reference_n[None]))
        returns = (-1e-3 * ((both - 1.0) ** 2).sum((1, 2))).repeat(3, 1)  # a small gain, seen by all three
        if dissent["member"] is not None:
            returns[dissent["member"]] = returns[dissent["member"]].flip(0)
        return returns

    model.member_returns_n = member_returns_n
    cfg = MPPIConfig(samples=256, policy_samples=0, iterations=10, elites=32, min_std=0.01, accept="unanimous")
    ctx = context(model)
    bc = MPPIPlanner(model, cfg)._clip(MPPIPlanner(model, cfg)._policy_chunk(ctx)[0])
    result = MPPIPlanner(model, cfg).plan(ctx)
    assert result.gated is False
    np.testing.assert_allclose(result.mean.numpy(), 1.0, atol=0.1)
    for member in (0, 2):
        dissent["member"] = member
        result = MPPIPlanner(model, cfg).plan(ctx)
        assert result.gated is True
        torch.testing.assert_close(result.mean, bc)
    with pytest.raises(ValueError, match="dynamics_ensemble"):
        MPPIPlanner(model_with_returns(lambda a: a.sum((1, 2))), cfg)
    with pytest.raises(ValueError, match="accept"):
        MPPIConfig(accept="majority")
