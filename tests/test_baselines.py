"""Baselines (issue #7): each update runs on tiny data and improves a trivial problem; SGFT shaping is exact;
symmetric sampling holds its ratio; checkpoints round-trip. Synthetic 1-D data keeps the file fast."""

import numpy as np
import pytest
import torch

from simdist.baselines.bc import BCConfig, BCLearner
from simdist.baselines.diffusion_policy import ChunkDataset, ChunkDDPM, DiffusionConfig, DiffusionLearner, cosine_betas
from simdist.baselines.iql import IQLConfig, IQLLearner, expectile_loss
from simdist.baselines.replay import (
    OFFLINE_FLAG,
    SymmetricSampler,
    TransitionBuffer,
    cached_transitions,
    sim_labels,
    sparse_success,
)
from simdist.baselines.rlpd import SACConfig, SACLearner
from simdist.baselines.sgft import SGFTConfig, SGFTLearner, SimValue, shape_transitions, shaped_reward
from simdist.data.episodes import Episode
from simdist.model.world_model import ModelSpec

torch.set_num_threads(1)
SPEC = ModelSpec({"proprio": (3,)}, action_dim=1, action_low=(-2.0,), action_high=(2.0,))
TINY = dict(encoder_preset="cpu", hidden=(32, 32), batch_size=32)


def episode(rng, length=6, action=None, success=False, labels=True) -> Episode:
    obs = rng.normal(size=(length, 3)).astype(np.float32)
    act = rng.uniform(-2, 2, size=(length, 1)).astype(np.float32) if action is None else action(obs)
    lab = lambda: np.ones(length, np.float32) if labels else None
    return Episode(
        obs={"proprio": obs},
        action=act.astype(np.float32),
        reward=lab(),
        value=(obs[:, 0] * 2.0).astype(np.float32) if labels else None,
        expert=np.ones(length, bool) if labels else None,
        success=success,
    )


def buffer(n, rng, reward=None, done=0.0) -> TransitionBuffer:
    """n random transitions with rewards from `reward(action)` (or 1) and a fixed done flag."""
    obs = {"proprio": rng.normal(size=(n, 3)).astype(np.float32)}
    nxt = {"proprio": rng.normal(size=(n, 3)).astype(np.float32)}
    action = rng.uniform(-2, 2, size=(n, 1)).astype(np.float32)
    r = np.ones(n, np.float32) if reward is None else reward(action).astype(np.float32)
    return TransitionBuffer.from_arrays(
        obs, action, r, nxt, np.full(n, done, np.float32), np.ones(n, bool), np.full(n, np.nan, np.float32)
    )


def mode(actor, obs) -> float:
    with torch.no_grad():
        return float(actor.to_raw(actor.mode(obs)).mean())


# --------------------------------------------------------------------------------------------- replay
def test_transitions_from_episodes_and_sparse_reward():
    rng = np.random.default_rng(0)
    eps = [episode(rng, 5, success=True, labels=False), episode(rng, 4, success=False, labels=False)]
    buf = TransitionBuffer.from_episodes(eps, sparse_success, expert_default=True)
    assert len(buf) == 4 + 3
    np.testing.assert_array_equal(buf.reward, [0, 0, 0, 1, 0, 0, 0])
    np.testing.assert_array_equal(buf.done, [0, 0, 0, 1, 0, 0, 0])  # a failure at the time limit is not terminal
    np.testing.assert_array_equal(buf.next_obs["proprio"][0], eps[0].obs["proprio"][1])
    assert buf.expert.all() and np.isnan(buf.value).all()
    with pytest.raises(ValueError, match="reward labels"):
        TransitionBuffer.from_episodes(eps, sim_labels)


def test_transitions_store_each_observation_once_through_extend_and_subset():
    rng = np.random.default_rng(4)
    eps = [episode(rng, L) for L in (5, 7, 3)]
    buf = TransitionBuffer.from_episodes(eps, sim_labels)
    assert len(buf) == 4 + 6 + 2 and len(buf.rows["proprio"]) == 5 + 7 + 3  # o′ shares o's rows
    want_obs = np.concatenate([e.obs["proprio"][:-1] for e in eps])
    want_next = np.concatenate([e.obs["proprio"][1:] for e in eps])
    both = buf.extend(buffer(4, rng))
    np.testing.assert_array_equal(both.obs["proprio"][:12], want_obs)
    np.testing.assert_array_equal(both.next_obs["proprio"][:12], want_next)
    mask = rng.random(12) < 0.5
    part = buf.subset(mask)
    np.testing.assert_array_equal(part.next_obs["proprio"], want_next[mask])
    batch = part.batch(np.arange(len(part)))
    np.testing.assert_array_equal(batch["obs"]["proprio"].numpy(), want_obs[mask])
    assert len(part.rows["proprio"]) <= 2 * int(mask.sum())  # only the rows it uses


def test_expert_only_transitions_keep_their_own_next_observations():
    rng = np.random.default_rng(0)
    ep = episode(rng, 6)
    ep.expert = np.array([True, False, True, True, False, True])
    buf = TransitionBuffer.from_episodes([ep], sim_labels, expert_only=True)
    kept = [0, 2, 3]  # step 5 is the last: no transition
    assert len(buf) == 3 and buf.expert.all()
    np.testing.assert_array_equal(buf.obs["proprio"], ep.obs["proprio"][kept])
    np.testing.assert_array_equal(buf.next_obs["proprio"], ep.obs["proprio"][[k + 1 for k in kept]])
    np.testing.assert_array_equal(buf.action, ep.action[kept])


def test_learned_reward_labels_are_computed_once_per_key():
    rng = np.random.default_rng(0)
    eps = [episode(rng, 6) for _ in range(3)] + [episode(rng, 1)]  # a 1-step episode gives no transition
    calls = []

    def reward(e):
        calls.append(1)
        return rng.normal(size=len(e) - 1).astype(np.float32), np.zeros(len(e) - 1, np.float32)

    first = cached_transitions(eps, reward, key=("data", "model"))
    again = cached_transitions(eps, reward, key=("data", "model"))
    assert len(calls) == 3 and np.array_equal(first.reward, again.reward)
    cached_transitions(eps, reward, key=("data", "another model"))
    cached_transitions(eps, reward, key=None)
    assert len(calls) == 9


def test_symmetric_sampling_ratio_holds():
    rng = np.random.default_rng(0)
    offline = buffer(500, rng, reward=lambda a: np.ones(len(a)))
    online = buffer(20, rng, reward=lambda a: np.zeros(len(a)))
    sampler = SymmetricSampler(offline, TransitionBuffer.empty({"proprio": (3,)}, 1), offline_ratio=0.5)
    assert sampler.sample(64, rng)[OFFLINE_FLAG].mean() == 1.0  # no online data yet: all offline
    sampler.add_online(online)
    for _ in range(5):
        b = sampler.sample(64, rng)
        assert b[OFFLINE_FLAG].mean() == 0.5
        assert torch.equal(b["reward"], b[OFFLINE_FLAG])  # rows really come from the buffer they claim
    # 50/50 even though the online buffer is 25x smaller: online rows are heavily over-represented
    assert SymmetricSampler(offline, online, 0.25).sample(64, rng)[OFFLINE_FLAG].mean() == 0.25


def test_iql_sampler_is_uniform_over_offline_and_online_data_without_copying_the_offline_data():
    from simdist.baselines.learners import UniformSampler

    rng = np.random.default_rng(0)
    offline = buffer(900, rng, reward=lambda a: np.ones(len(a)))
    sampler = UniformSampler(offline)
    assert sampler.sample(64, rng)["reward"].mean() == 1.0  # no online data yet: all offline
    for _ in range(2):  # 100 online rows in two parts: a tenth of the union
        sampler.add_online(buffer(50, rng, reward=lambda a: np.zeros(len(a))))
    assert sampler.offline is offline and len(sampler.online) == 100
    online_share = 1.0 - np.mean([float(sampler.sample(256, rng)["reward"].mean()) for _ in range(200)])
    assert abs(online_share - 0.1) < 0.01


# ----------------------------------------------------------------------------------------------- BC
def test_rl_actor_started_from_bc_keeps_its_mean_and_explores_narrowly():
    learner = SACLearner(SPEC, SACConfig.preset("cpu", hidden=(16,)))
    obs = {"proprio": torch.randn(8, 3)}
    before = learner.actor(obs)[0].clone()
    learner.actor.set_constant_std(0.05)
    mean, log_std = learner.actor(obs)
    torch.testing.assert_close(mean, before)
    torch.testing.assert_close(log_std, torch.full_like(log_std, float(np.log(0.05))))


def test_bc_loss_falls_and_agent_acts():
    rng = np.random.default_rng(0)
    eps = [episode(rng, 20, action=lambda o: np.tanh(o[:, :1]) * 1.5) for _ in range(10)]
    learner = BCLearner(SPEC, BCConfig(**TINY, lr=3e-3))
    buf = TransitionBuffer.from_episodes(eps, sim_labels)
    first = learner.train(buf, steps=1)["bc_loss"]
    last = learner.train(buf, steps=200)["bc_loss"]
    assert last < 0.3 * first
    action = learner.agent().act({"proprio": np.zeros(3, np.float32)})
    assert action.shape == (1,) and -2.0 <= action[0] <= 2.0


# ------------------------------------------------------------------------------------------------ SAC
def test_sac_critics_fit_constant_reward_value():
    """r = 1, never terminal, γ = 0.5: Q ≡ 1 / (1 − γ) = 2 for every action (no entropy in the backup)."""
    rng = np.random.default_rng(0)
    cfg = SACConfig(**TINY, gamma=0.5, num_qs=4, num_min_qs=2, utd_ratio=2, tau=0.05, lr=3e-3, backup_entropy=False)
    learner = SACLearner(SPEC, cfg)
    sampler = SymmetricSampler(buffer(200, rng), buffer(200, rng), cfg.offline_ratio)
    info = learner.train_round(sampler, new_steps=150, rng=rng)
    assert info["q_mean"] == pytest.approx(2.0, abs=0.25)


def test_sac_actor_moves_to_rewarded_action_on_bandit():
    """One-step bandit (every transition terminal), reward −(a − 1)²: the policy mode should approach 1."""
    rng = np.random.default_rng(1)
    cfg = SACConfig(**TINY, gamma=0.9, num_qs=4, utd_ratio=2, lr=3e-3, init_temperature=0.05)
    learner = SACLearner(SPEC, cfg)
    reward = lambda a: -((a[:, 0] - 1.0) ** 2)
    sampler = SymmetricSampler(buffer(300, rng, reward, done=1.0), buffer(300, rng, reward, done=1.0))
    probe = sampler.sample(64, rng)["obs"]
    before = abs(mode(learner.actor, probe) - 1.0)
    learner.train_round(sampler, new_steps=200, rng=rng)
    after = abs(mode(learner.actor, probe) - 1.0)
    assert after < 0.3 and after < before


def test_sac_critic_warmup_leaves_actor_and_temperature_untouched_then_lets_them_move():
    rng = np.random.default_rng(2)
    cfg = SACConfig(**TINY, num_qs=3, utd_ratio=2, lr=3e-3, critic_warmup_updates=5)
    learner = SACLearner(SPEC, cfg)
    reward = lambda a: -((a[:, 0] - 1.0) ** 2)
    sampler = SymmetricSampler(buffer(100, rng, reward), buffer(100, rng, reward))
    actor0 = {k: v.clone() for k, v in learner.actor.state_dict().items()}
    critic0 = {k: v.clone() for k, v in learner.critic.state_dict().items()}
    alpha0 = learner.log_alpha.detach().clone()
    learner.train_round(sampler, new_steps=5, rng=rng)
    assert all(torch.equal(v, learner.actor.state_dict()[k]) for k, v in actor0.items())
    assert torch.equal(alpha0, learner.log_alpha.detach())
    assert not all(torch.equal(v, learner.critic.state_dict()[k]) for k, v in critic0.items())
    learner.train_round(sampler, new_steps=1, rng=rng)
    assert not all(torch.equal(v, learner.actor.state_dict()[k]) for k, v in actor0.items())
    assert not torch.equal(alpha0, learner.log_alpha.detach())


@pytest.mark.slow
@pytest.mark.parametrize("anchor_weight", [0.0, 100.0])
def test_sac_anchor_keeps_the_actor_near_its_start_policy(anchor_weight):
    """The bandit above: unanchored the mode walks to a = 1; a heavy pull to the start policy keeps it home."""
    rng = np.random.default_rng(1)
    cfg = SACConfig(
        **TINY, gamma=0.9, num_qs=4, utd_ratio=2, lr=3e-3, init_temperature=0.05, anchor_weight=anchor_weight
    )
    learner = SACLearner(SPEC, cfg)
    reward = lambda a: -((a[:, 0] - 1.0) ** 2)
    sampler = SymmetricSampler(buffer(300, rng, reward, done=1.0), buffer(300, rng, reward, done=1.0))
    probe = sampler.sample(64, rng)["obs"]
    start = mode(learner.actor, probe)
    info = learner.train_round(sampler, new_steps=200, rng=rng)
    moved = abs(mode(learner.actor, probe) - start)
    if anchor_weight:
        assert moved < 0.1 and "anchor_shift" in info
    else:
        assert moved > 0.3 and "anchor_shift" not in info


@pytest.mark.parametrize("actor_lr, moves", [(0.0, False), (None, True)])
def test_sac_actor_lr_is_the_actors_own(actor_lr, moves):
    rng = np.random.default_rng(3)
    learner = SACLearner(SPEC, SACConfig(**TINY, num_qs=3, utd_ratio=1, lr=3e-3, actor_lr=actor_lr))
    sampler = SymmetricSampler(buffer(100, rng), buffer(100, rng))
    actor0 = {k: v.clone() for k, v in learner.actor.state_dict().items()}
    critic0 = {k: v.clone() for k, v in learner.critic.state_dict().items()}
    learner.train_round(sampler, new_steps=3, rng=rng)
    assert moves != all(torch.equal(v, learner.actor.state_dict()[k]) for k, v in actor0.items())
    assert not all(torch.equal(v, learner.critic.state_dict()[k]) for k, v in critic0.items())


# ------------------------------------------------------------------------------------------------ IQL
def test_expectile_loss_is_asymmetric():
    d = torch.tensor([1.0, -1.0])
    assert float(expectile_loss(d[:1], 0.7)) == pytest.approx(0.7)
    assert float(expectile_loss(d[1:], 0.7)) == pytest.approx(0.3)


def test_iql_value_fits_constant_reward():
    rng = np.random.default_rng(0)
    cfg = IQLConfig(**TINY, gamma=0.5, tau=0.05, lr=3e-3)
    learner = IQLLearner(SPEC, cfg)
    info = learner.pretrain(buffer(300, rng), rng, steps=300)
    assert info["v_mean"] == pytest.approx(2.0, abs=0.25)


@pytest.mark.slow
def test_iql_actor_moves_to_rewarded_action_on_bandit():
    rng = np.random.default_rng(2)
    cfg = IQLConfig(**TINY, gamma=0.9, lr=3e-3, beta=10.0, expectile=0.9)
    learner = IQLLearner(SPEC, cfg)
    data = buffer(400, rng, lambda a: -((a[:, 0] - 1.0) ** 2), done=1.0)
    probe = data.sample(64, rng)["obs"]
    before = abs(mode(learner.actor, probe) - 1.0)
    learner.pretrain(data, rng, steps=700)  # Q must fit before the advantages point the right way
    after = abs(mode(learner.actor, probe) - 1.0)
    assert after < 0.3 and after < before


# ----------------------------------------------------------------------------------------------- SGFT
def test_sgft_shaping_term_is_exact():
    rng = np.random.default_rng(0)
    buf = buffer(50, rng, reward=lambda a: a[:, 0])
    buf.done[::3] = 1.0
    value_fn = lambda obs: obs["proprio"].sum(-1) * 3.0
    shaped = shape_transitions(buf, value_fn, gamma=0.9)
    v, v_next = value_fn(buf.obs), value_fn(buf.next_obs)
    expected = buf.reward + 0.9 * (1.0 - buf.done) * v_next - v
    np.testing.assert_allclose(shaped.reward, expected, rtol=1e-6)
    terminal = buf.done == 1.0  # zero potential at terminal states: no γ·V(o′) term
    np.testing.assert_allclose(shaped.reward[terminal], (buf.reward - v)[terminal], rtol=1e-6)
    assert not np.shares_memory(shaped.reward, buf.reward)  # the original rewards are kept
    assert shaped_reward(np.float32(1.0), np.float32(2.0), np.float32(5.0), np.float32(0.0), 0.5) == 1.0 + 2.5 - 2.0


def test_sgft_shaping_telescopes_along_an_episode():
    """Σ γ^t r′_t = Σ γ^t r_t − V(o_0) + γ^n V(o_n): shaping only shifts the return by the start potential."""
    rng = np.random.default_rng(3)
    ep = episode(rng, 8)
    buf = TransitionBuffer.from_episodes([ep], sim_labels)
    value_fn = lambda obs: np.cos(obs["proprio"][:, 0])
    shaped = shape_transitions(buf, value_fn, gamma=0.9)
    g = 0.9 ** np.arange(len(buf))
    v = value_fn(ep.obs)
    expected = np.dot(g, buf.reward) - v[0] + 0.9 ** len(buf) * v[len(buf)]
    assert np.dot(g, shaped.reward) == pytest.approx(expected, rel=1e-5)


def test_sim_value_fits_labels_and_sgft_learner_updates():
    rng = np.random.default_rng(0)
    sim = TransitionBuffer.from_episodes([episode(rng, 30) for _ in range(10)], sim_labels)
    cfg = SGFTConfig.preset("cpu", hidden=(32, 32), batch_size=32, lr=3e-3)
    value = SimValue(SPEC, cfg)
    assert value.fit(sim, steps=200, rng=rng) < 0.2  # labels are 2·o_0: an easy regression
    obs = {"proprio": np.array([[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]], np.float32)}
    np.testing.assert_allclose(value(obs), [2.0, -2.0], atol=0.6)  # back in label units
    learner = SGFTLearner(SPEC, cfg)
    online = learner.shape(buffer(100, rng), value)
    info = learner.train_round(SymmetricSampler(None, online, cfg.offline_ratio), new_steps=5, rng=rng)
    assert np.isfinite(info["critic_loss"]) and learner.critic.n == 2


# ------------------------------------------------------------------------------------ Diffusion Policy
def test_diffusion_policy_learns_a_constant_chunk():
    rng = np.random.default_rng(0)
    demos = ChunkDataset([episode(rng, 20, action=lambda o: np.full((len(o), 1), 1.2)) for _ in range(5)], chunk=4)
    sim = ChunkDataset([episode(rng, 20, action=lambda o: np.full((len(o), 1), 1.2))], chunk=4, expert_only=True)
    cfg = DiffusionConfig(**TINY, chunk=4, action_steps=2, diffusion_steps=10, lr=3e-3, cotrain_sim=True)
    learner = DiffusionLearner(SPEC, cfg)
    first = learner.train(demos, sim, steps=1)["diffusion_loss"]
    last = np.mean([learner.train(demos, sim, steps=1)["diffusion_loss"] for _ in range(300)][-50:])
    assert last < 0.5 * first
    agent = learner.agent()
    agent.reset()
    actions = [agent.act({"proprio": np.zeros(3, np.float32)}) for _ in range(4)]
    assert np.mean(actions) == pytest.approx(1.2, abs=0.3)


def test_cosine_schedule_ends_in_pure_noise_at_any_length():
    for steps in (5, 20, 100):
        alpha_bar = torch.cumprod(1 - cosine_betas(steps), 0)
        assert alpha_bar[-1] < 1e-3 and alpha_bar[0] > 1 - 2 / steps and torch.all(alpha_bar[1:] < alpha_bar[:-1])


def test_chunk_ddpm_samples_both_modes_of_an_either_or_target():
    """Half the chunks go +0.7, half −0.7: a regression head would answer 0; the DDPM must sample each mode, whole
    chunks at a time."""
    torch.manual_seed(0)
    spec = ModelSpec({"proprio": (3,)}, action_dim=1, action_low=(-1.0,), action_high=(1.0,))
    ddpm = ChunkDDPM(cond_dim=1, chunk=2, spec=spec, hidden=(64, 64), diffusion_steps=20)
    optimizer = torch.optim.Adam(ddpm.parameters(), lr=3e-3)
    for _ in range(1500):
        sign = torch.randint(0, 2, (128, 1, 1)).float() * 2 - 1
        loss = ddpm.chunk_loss(torch.zeros(128, 1), (0.7 * sign).expand(128, 2, 1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    x = ddpm.sample_chunk(torch.zeros(400, 1), torch.Generator().manual_seed(0))[..., 0]
    assert 0.3 < float((x[:, 0] > 0.4).float().mean()) < 0.7
    assert float((x[:, 0] < -0.4).float().mean()) > 0.3
    assert float((x[:, 0].abs() < 0.3).float().mean()) < 0.1
    assert float((torch.sign(x[:, 0]) == torch.sign(x[:, 1])).float().mean()) > 0.95


# ------------------------------------------------------------------------------------------ checkpoints
@pytest.mark.parametrize(
    "make",
    [
        lambda: BCLearner(SPEC, BCConfig(**TINY)),
        lambda: IQLLearner(SPEC, IQLConfig(**TINY)),
        lambda: SACLearner(SPEC, SACConfig(**TINY, num_qs=3)),
        lambda: SGFTLearner(SPEC, SGFTConfig.preset("cpu", hidden=(16,))),
        lambda: DiffusionLearner(SPEC, DiffusionConfig(**TINY, diffusion_steps=5)),
    ],
)
def test_save_load_round_trip(make, tmp_path):
    learner = make()
    for enc in [m for m in vars(learner).values() if isinstance(m, torch.nn.Module)]:
        for buf in enc.buffers():  # non-default normaliser statistics must survive too
            buf.add_(0.5)
    learner.save(tmp_path)
    loaded = type(learner).load(tmp_path)
    assert loaded.cfg == learner.cfg
    for name, module in vars(learner).items():
        if isinstance(module, torch.nn.Module):
            for (ka, va), (kb, vb) in zip(module.state_dict().items(), getattr(loaded, name).state_dict().items()):
                assert ka == kb and torch.equal(va, vb)
    with pytest.raises(ValueError, match="not"):
        (IQLLearner if not isinstance(learner, IQLLearner) else BCLearner).load(tmp_path)


def test_observation_stats_match_the_stacked_statistics():
    from simdist.baselines.replay import observation_stats

    rng = np.random.default_rng(0)
    eps = [episode(rng, n) for n in (3, 7, 5)]
    stacked = np.concatenate([e.obs["proprio"] for e in eps]).astype(np.float64)
    mean, std = observation_stats(eps)["proprio"]
    np.testing.assert_allclose(mean, stacked.mean(0), atol=1e-12)
    np.testing.assert_allclose(std, stacked.std(0), atol=1e-9)
