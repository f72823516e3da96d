"""Keep a finetuned BC head where it was on the states it is not taught: a proximal term for operator corrections.

Cloning a few minutes of operator steps, or the replayed simulation windows, can move the BC head on the states the
robot visits on its own and break a gait that worked (docs/tasks/slippery-slope.md). The anchor
penalises the change of the head's action chunk on every window whose first step carries no expert label, against a
frozen copy of the head as it was before the finetune:
    anchor = mean over those windows of ‖π(c) − π₀(c)‖²   (normalised actions, c = the frozen encoder's context)
The encoder and history stay frozen whenever the policy head is finetuned this way, so π and π₀ read one context.
It is recomputed here without gradient (encoder and history forward once more per step): the loss's forward does
not expose it, and the anchor is used only in short finetunes.
"""

from __future__ import annotations

import copy

import torch

from simdist.model.world_model import ACTION, COMMAND, PROPRIO, WorldModel


def frozen_copy(model: WorldModel) -> WorldModel:
    anchor = copy.deepcopy(model).eval()
    for p in anchor.parameters():
        p.requires_grad_(False)
    return anchor


def policy_anchor_loss(model: WorldModel, anchor: WorldModel, batch: dict) -> torch.Tensor:
    with torch.no_grad():  # the context: frozen encoder and history, no augmentation
        z = model.encode_n(model.normalize_obs(batch["obs"]))
        context = model.context_n(
            z,
            model.normalizer.normalize(PROPRIO, batch["hist_proprio"]),
            model.normalizer.normalize(ACTION, batch["hist_action"]),
        )
        policy_ctx = model.policy_context_n(context)
        command_n = model.normalizer.normalize(COMMAND, batch["commands"]) if model.spec.command_dim else None
        before = anchor.policy_n(anchor.policy["decoder"].cache(policy_ctx), z.shape[0], command_n)
    now = model.policy_n(model.policy["decoder"].cache(policy_ctx), z.shape[0], command_n)
    untaught = 1.0 - batch["bc_labelled"] * batch["expert"][:, 0]  # no expert label at the window's first step
    per_window = (now - before).pow(2).mean((1, 2))
    return (per_window * untaught).sum() / untaught.sum().clamp_min(1.0)
