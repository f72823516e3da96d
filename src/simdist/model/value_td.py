"""A TD training signal for the value head on unlabelled (real) windows: the Fig. 10 "unfreeze value" ablation.

Real data carry no value labels, so a value head unfrozen during finetuning gets the target the paper's
"long-horizon credit assignment returns" imply: an n-step return built from the model's own predictions,
bootstrapped from a copy of the value head (a target network): the pretrained head, frozen, or one that follows
the trained head by Polyak steps (``FinetuneConfig.value_iterations`` time constants per finetune), so the bootstrap
itself is re-estimated through the adapted dynamics:

    V([z_t, ẑ_{t+1..t+T-1}])_i ← Σ_{j=i}^{T-1} γ^{j-i} r̂_{t+j} + γ^{T-i} V̄(ẑ_{t+1..t+T})_{T-1},  i = 0 … T-1

i = 0 is V(z_t) ← Σ_k γ^k r̂_{t+k} + γ^T V̄(ẑ_{t+T}), the planner's own return (WorldModel.plan_returns_n).
z_t = E(o_t), ẑ are the current dynamics' predictions for the window's real actions, r̂ the (frozen) reward
head on [z_t, ẑ_{t+1..t+T-1}] and those actions. Returns are summed in raw reward units and compared in
z-scored value units. Everything but the value head's forward pass runs without gradients, so this term
trains the value head only, whatever else is trainable.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch
from torch import nn

from simdist.model.world_model import ACTION, COMMAND, PROPRIO, REWARD, VALUE, WorldModel


@dataclass(frozen=True)
class ValueTDConfig:
    weight: float = 1.0  # added to the Eq. 3 loss when "value" is among the trainable groups
    discount: float = 0.99  # γ, as in the planner's return (MPPIConfig.discount)


def value_target_network(model: WorldModel) -> nn.Module:
    """A frozen copy of the model's (pretrained) value head."""
    target = copy.deepcopy(model.value).eval()
    for p in target.parameters():
        p.requires_grad_(False)
    return target


def discounted_targets(rewards: torch.Tensor, bootstrap: torch.Tensor, discount: float) -> torch.Tensor:
    """(B, T) rewards r_{t..t+T-1}, (B,) bootstrap value at t+T → (B, T) n-step returns from each t+i."""
    out = torch.empty_like(rewards)
    ret = bootstrap
    for i in range(rewards.shape[1] - 1, -1, -1):
        ret = rewards[:, i] + discount * ret
        out[:, i] = ret
    return out


def value_td_terms(
    model: WorldModel, target_value: nn.Module, batch: dict, discount: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """(prediction, target), both (B, T) in z-scored value units; only the prediction carries gradients."""
    norm = model.normalizer
    command_n = norm.normalize(COMMAND, batch["commands"]) if model.spec.command_dim else None
    with torch.no_grad():
        z = model.encode_n(model.normalize_obs(batch["obs"]))
        context = model.context_n(
            z, norm.normalize(PROPRIO, batch["hist_proprio"]), norm.normalize(ACTION, batch["hist_action"])
        )
        actions_n = norm.normalize(ACTION, batch["actions"])
        zhat = model.latents_n(model.dynamics["decoder"].cache(context), actions_n)
        rewards = norm.denormalize(REWARD, model.rewards_n(z, zhat, actions_n, command_n))
        cmd_next = None if command_n is None else command_n[:, 1:]
        terminal = target_value(model._with_command(zhat, cmd_next), last_only=True)[:, -1]
        returns = discounted_targets(rewards, norm.denormalize(VALUE, terminal), discount)
        target = norm.normalize(VALUE, returns)
        states = torch.cat((z.unsqueeze(1), zhat[:, :-1]), dim=1)  # z_t, ẑ_{t+1..t+T-1}
    prediction = model.value(model._with_command(states, None if command_n is None else command_n[:, :-1]))
    return prediction, target


@torch.no_grad()
def follow(target_value: nn.Module, value: nn.Module, rate: float) -> None:
    """Polyak step of the target network: target ← target + rate × (value − target)."""
    for target, current in zip(target_value.parameters(), value.parameters()):
        target.lerp_(current, rate)


def value_td_loss(model: WorldModel, target_value: nn.Module, batch: dict, discount: float) -> torch.Tensor:
    prediction, target = value_td_terms(model, target_value, batch, discount)
    err = (prediction - target).pow(2)
    if "future_valid" in batch:  # the bootstrap needs the whole predicted window: complete windows only
        full = batch["future_valid"][:, -1:]
        return (err * full).sum() / (full.sum() * err.shape[1]).clamp_min(1)
    return err.mean()


__all__ = ["ValueTDConfig", "discounted_targets", "follow", "value_target_network", "value_td_loss", "value_td_terms"]
