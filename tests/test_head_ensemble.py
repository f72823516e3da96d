"""Ensemble reward/value heads (ModelConfig.head_ensemble): trained beside the paper's heads without touching them,
frozen by a dynamics finetune, and read by the planner as the model's uncertainty about a candidate's return."""

import pytest
import torch

from simdist.config import FinetuneConfig, LossConfig, replace
from simdist.model.loss import world_model_loss
from simdist.model.world_model import ModelSpec, PlanningContext, WorldModel
from simdist.training.checkpoint import load_model
from simdist.training.train import finetune

SPEC = ModelSpec(obs_shapes={"proprio": (3,)}, action_dim=1, action_low=(-1.0,), action_high=(1.0,))


def _model(tiny_cfg, members: int, seed: int = 0) -> WorldModel:
    torch.manual_seed(seed)
    return WorldModel(replace(tiny_cfg, head_ensemble=members), SPEC).eval()


def _batch(cfg, B=8):
    g = torch.Generator().manual_seed(1)
    H, T = cfg.history, cfg.horizon
    r = lambda *s: torch.randn(*s, generator=g)
    return {"obs": {"proprio": r(B, 3)}, "hist_proprio": r(B, H, 3), "hist_action": r(B, H, 1),
            "actions": r(B, T, 1), "future_obs": {"proprio": r(B, T, 3)}, "rewards": r(B, T), "values": r(B, T),
            "expert": torch.ones(B, T), "labelled": torch.ones(B), "bc_labelled": torch.ones(B)}


def test_the_paper_modules_start_from_the_same_weights_with_or_without_members(tiny_cfg):
    plain, ensemble = _model(tiny_cfg, 0).state_dict(), _model(tiny_cfg, 3).state_dict()
    assert all(torch.equal(plain[k], ensemble[k]) for k in plain)
    assert any(k.startswith("value_members.2.") for k in ensemble)


def test_members_learn_from_the_model_but_never_train_it(tiny_cfg):
    model = _model(tiny_cfg, 2).train()
    loss, terms = world_model_loss(model, _batch(tiny_cfg), LossConfig(latent=0, reward=0, value=0, bc=0))
    assert terms["ensemble"] > 0
    loss.backward()
    members = [n for n, p in model.named_parameters() if p.grad is not None and p.grad.abs().sum() > 0]
    assert members and all(n.startswith(("reward_members.", "value_members.")) for n in members)
    frozen = {n for group in ("reward", "value") for n, _ in model.parameter_group(group)}
    members_group = {n for n, _ in model.parameter_group("ensemble")}
    assert members_group == {n for n, _ in model.named_parameters() if "_members." in n} and not members_group & frozen


def test_the_planner_subtracts_the_members_spread(tiny_cfg):
    model = _model(tiny_cfg, 3)
    H = tiny_cfg.history
    ctx = model.planning_context({"proprio": torch.randn(1, 3)}, torch.randn(1, H, 3), torch.randn(1, H, 1))
    actions = torch.randn(16, tiny_cfg.horizon, 1)
    paper = model.plan_returns_n(ctx, actions, 0.99)
    assert torch.equal(paper, _model(tiny_cfg, 0).plan_returns_n(ctx, actions, 0.99))  # members off: the paper's R
    pessimistic = model.plan_returns_n(ctx, actions, 0.99, uncertainty_weight=2.0)
    zhat = model.latents_n(ctx.dynamics_kv, actions)
    spread = torch.cat((paper[None], model.member_returns_n(ctx, zhat, actions, 0.99))).std(0)
    assert spread.min() > 0
    assert torch.allclose(pessimistic, paper - 2.0 * spread)
    assert isinstance(ctx, PlanningContext)


def test_head_ensemble_of_one_is_refused(tiny_cfg):
    with pytest.raises(ValueError, match="head_ensemble"):
        replace(tiny_cfg, head_ensemble=1)


def test_a_finetune_adds_members_to_a_trained_model_and_changes_nothing_else(pretrained, pendulum_data, tmp_path):
    cfg = replace(FinetuneConfig(steps=10, batch_size=16, warmup_steps=2, val_every=10),
                  trainable=("ensemble",), loss=LossConfig(latent=0.0, reward=0.0, value=0.0, bc=0.0, ensemble=1.0))
    result = finetune(pretrained, pendulum_data, tmp_path / "ens", cfg, progress=False,
                      model_overrides={"head_ensemble": 2})
    before, after = load_model(pretrained).state_dict(), load_model(result.out_dir).state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert load_model(result.out_dir).cfg.head_ensemble == 2 and any("value_members.1." in k for k in after)
    with pytest.raises(ValueError, match="--trainable ensemble"):
        finetune(pretrained, pendulum_data, tmp_path / "no", replace(cfg, trainable=("dynamics",)), progress=False,
                 model_overrides={"head_ensemble": 2})
