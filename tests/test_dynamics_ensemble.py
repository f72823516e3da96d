"""Ensemble dynamics decoders (ModelConfig.dynamics_ensemble): trained beside the paper's dynamics without touching
the rest of the model, finetuned with it by Alg. 1, and read by the planner as the model's uncertainty about a
candidate's return."""

import numpy as np
import pytest
import torch

from simdist.config import FinetuneConfig, LossConfig, replace
from simdist.model.loss import world_model_loss
from simdist.model.world_model import ModelSpec, WorldModel
from simdist.planning.settings import MPPIConfig, elite_selection_bias
from simdist.training.checkpoint import load_model
from simdist.training.finetune import finetune

SPEC = ModelSpec(obs_shapes={"proprio": (3,)}, action_dim=1, action_low=(-1.0,), action_high=(1.0,))


def _model(tiny_cfg, members: int, seed: int = 0) -> WorldModel:
    torch.manual_seed(seed)
    return WorldModel(replace(tiny_cfg, dynamics_ensemble=members), SPEC).eval()


def _batch(cfg, B=8):
    g = torch.Generator().manual_seed(1)
    H, T = cfg.history, cfg.horizon
    r = lambda *s: torch.randn(*s, generator=g)
    return {
        "obs": {"proprio": r(B, 3)},
        "hist_proprio": r(B, H, 3),
        "hist_action": r(B, H, 1),
        "actions": r(B, T, 1),
        "future_obs": {"proprio": r(B, T, 3)},
        "rewards": r(B, T),
        "values": r(B, T),
        "expert": torch.ones(B, T),
        "labelled": torch.ones(B),
        "bc_labelled": torch.ones(B),
    }


def test_the_paper_modules_start_from_the_same_weights_with_or_without_members(tiny_cfg):
    plain, ensemble = _model(tiny_cfg, 0).state_dict(), _model(tiny_cfg, 3).state_dict()
    assert all(torch.equal(plain[k], ensemble[k]) for k in plain)
    assert any(k.startswith("dynamics_members.2.") for k in ensemble)


def test_members_learn_from_the_model_but_never_train_it(tiny_cfg):
    model = _model(tiny_cfg, 2).train()
    loss, terms = world_model_loss(model, _batch(tiny_cfg), LossConfig(latent=0, reward=0, value=0, bc=0))
    assert terms["ensemble"] > 0
    loss.backward()
    trained = [n for n, p in model.named_parameters() if p.grad is not None and p.grad.abs().sum() > 0]
    assert trained and all(n.startswith("dynamics_members.") for n in trained)
    members = {n for n, _ in model.named_parameters() if n.startswith("dynamics_members.")}
    assert {n for n, _ in model.parameter_group("ensemble")} == members
    assert members <= {n for n, _ in model.parameter_group("dynamics")}  # Alg. 1 finetunes them with the dynamics


def test_the_planner_scores_the_members_pessimistic_gain_over_the_bc_chunk(tiny_cfg):
    model = _model(tiny_cfg, 3)
    H = tiny_cfg.history
    ctx = model.planning_context({"proprio": torch.randn(1, 3)}, torch.randn(1, H, 3), torch.randn(1, H, 1))
    actions = torch.randn(16, tiny_cfg.horizon, 1)
    chunk = model.plan_policy_n(ctx)[0]
    paper = model.plan_returns_n(ctx, actions, 0.99)
    assert torch.equal(paper, _model(tiny_cfg, 0).plan_returns_n(ctx, actions, 0.99))  # weight 0: the paper's R
    returns = []
    for acts in (actions, chunk[None]):
        per_member = [paper if acts is actions else model.plan_returns_n(ctx, acts, 0.99)]
        for zhat in model.member_latents_n(ctx.member_kv, acts):
            r, v = model.return_parts_n(ctx, zhat, acts, 0.99)
            per_member.append(r + 0.99**tiny_cfg.horizon * v)
        returns.append(torch.stack(per_member))
    gains = returns[0] - returns[1]
    scored = model.plan_returns_n(ctx, actions, 0.99, uncertainty_weight=2.0, reference_n=chunk)
    torch.testing.assert_close(scored, paper - 2.0 * gains.std(0))
    at_chunk = model.plan_returns_n(ctx, chunk[None], 0.99, uncertainty_weight=2.0, reference_n=chunk)
    torch.testing.assert_close(at_chunk, returns[1][0])  # the chunk's own gain is 0 in every member: no penalty
    unpaired = model.plan_returns_n(ctx, actions, 0.99, uncertainty_weight=2.0)
    torch.testing.assert_close(unpaired, paper - 2.0 * returns[0].std(0))


def test_dynamics_ensemble_of_one_is_refused(tiny_cfg):
    with pytest.raises(ValueError, match="dynamics_ensemble"):
        replace(tiny_cfg, dynamics_ensemble=1)


def test_a_finetune_adds_members_to_a_trained_model_and_changes_nothing_else(pretrained, pendulum_data, tmp_path):
    cfg = replace(
        FinetuneConfig(steps=10, batch_size=16, warmup_steps=2, val_every=10),
        trainable=("ensemble",),
        loss=LossConfig(latent=0.0, reward=0.0, value=0.0, bc=0.0, ensemble=1.0),
    )
    result = finetune(
        pretrained, pendulum_data, tmp_path / "ens", cfg, progress=False, model_overrides={"dynamics_ensemble": 2}
    )
    before, after = load_model(pretrained).state_dict(), load_model(result.out_dir).state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert load_model(result.out_dir).cfg.dynamics_ensemble == 2 and any("dynamics_members.1." in k for k in after)
    with pytest.raises(ValueError, match="--trainable ensemble"):
        finetune(
            pretrained,
            pendulum_data,
            tmp_path / "no",
            replace(cfg, trainable=("dynamics",)),
            progress=False,
            model_overrides={"dynamics_ensemble": 2},
        )


def test_uncertainty_weight_none_derives_kappa_from_the_elites_selection_bias():
    rng = np.random.default_rng(0)
    noise = np.sort(rng.standard_normal((4000, 160)), axis=1)[:, -32:]  # the top 32 of 160 equally noisy estimates
    assert elite_selection_bias(32, 160) == pytest.approx(noise.mean(), abs=0.03)
    assert elite_selection_bias(32, 160) == pytest.approx(1.40, abs=0.005)
    assert elite_selection_bias(8, 8) == 0.0  # keeping every candidate selects nothing
    derived = MPPIConfig(samples=128, policy_samples=32, elites=32, uncertainty_weight=None)
    assert derived.pessimism == elite_selection_bias(32, 160)
    assert MPPIConfig(uncertainty_weight=0.0).pessimism == 0.0
