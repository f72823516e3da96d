"""Finetuning (Eq. 3, Alg. 1): a trainable-parameter filter over a pretrained world model, on real windows mixed
with replayed simulation windows, the TD term of an unfrozen value head and the policy anchor, on the training loop
of simdist.training.train."""

from __future__ import annotations

import copy
import logging
import math
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch

from simdist.config import (
    FINETUNE_MODEL_FIELDS,
    POLICY_SHAPE_FIELDS,
    FinetuneConfig,
    TrainConfig,
    finetune_preset,
    replace,
    with_steps,
)
from simdist.data.episodes import read_info
from simdist.data.windows import WindowDataset
from simdist.model.policy_anchor import frozen_copy, policy_anchor_loss
from simdist.model.value_td import ValueTDConfig, follow, value_target_network, value_td_loss
from simdist.model.world_model import WorldModel
from simdist.overrides import parse_overrides
from simdist.training import checkpoint as ckpt
from simdist.training import train
from simdist.training.train import TrainResult, default_device, load_windows, train_loop

log = logging.getLogger(__name__)


def task_finetune(task, preset: str) -> FinetuneConfig:
    """The finetune preset with ``task.spec.finetune_overrides`` (what the task's author knows about fitting its robot's
    data) applied; the user's own `--set finetune.FIELD=VALUE` come after and win."""
    try:
        return replace(finetune_preset(preset), **parse_overrides(FinetuneConfig, list(task.spec.finetune_overrides)))
    except ValueError as e:
        raise ValueError(f"task {task.spec.name!r}: TaskSpec.finetune_overrides: {e}") from None


def steps_for_epochs(cfg: FinetuneConfig, real_windows: int) -> FinetuneConfig:
    """`cfg` with `steps` set from `cfg.epochs` passes over `real_windows` (unchanged when `epochs` is none)."""
    if cfg.epochs is None:
        return cfg
    per_step = cfg.batch_size * (1.0 - cfg.sim_replay_fraction)
    return with_steps(cfg, max(1, math.ceil(cfg.epochs * real_windows / per_step)))


def finetune_schedule(cfg: FinetuneConfig) -> TrainConfig:
    """A finetune's loop settings: decay over the run, one checkpoint at its end, no clipping, averaging or compile."""
    return TrainConfig(
        steps=cfg.steps,
        batch_size=cfg.batch_size,
        lr=cfg.lr,
        lr_end=cfg.lr_end,
        warmup_steps=cfg.warmup_steps,
        decay_steps=cfg.steps,
        val_fraction=cfg.val_fraction,
        val_every=cfg.val_every,
        checkpoint_every=cfg.steps,
        seed=cfg.seed,
        loss=cfg.loss,
    )


def set_trainable(model: WorldModel, groups: tuple[str, ...]) -> list[torch.nn.Parameter]:
    """Freeze every parameter, then unfreeze the named groups; returns the trainable parameters."""
    for p in model.parameters():
        p.requires_grad_(False)
    params = [p for g in groups for _, p in model.parameter_group(g)]
    if not params:
        raise ValueError(f"parameter groups {groups} hold no parameters")
    for p in params:
        p.requires_grad_(True)
    return params


def _reconfigured(model: WorldModel, overrides: dict[str, Any], cfg: FinetuneConfig) -> WorldModel:
    """Apply a finetune's ModelConfig overrides: fields read at every forward pass (FINETUNE_MODEL_FIELDS, e.g. let
    a retrained BC head see the history); with `cfg.fresh_policy`, the fresh BC head's shape; and a new single-step
    head (`policy_step_width`) beside the kept chunk head; or ensemble decoders (`dynamics_ensemble`) beside the
    model's dynamics, trained with the `ensemble` group on its frozen context (on its simulation data)."""
    if "dynamics_ensemble" in overrides and overrides["dynamics_ensemble"] != model.cfg.dynamics_ensemble:
        if "ensemble" not in cfg.trainable:
            raise ValueError(
                "dynamics_ensemble adds ensemble decoders: train them with --trainable ensemble, on "
                "the model's simulation data"
            )
        fresh = WorldModel(replace(model.cfg, dynamics_ensemble=overrides.pop("dynamics_ensemble")), model.spec)
        fresh = fresh.to(next(model.parameters()).device)
        kept = {k: v for k, v in model.state_dict().items() if "_members." not in k}
        missing, unexpected = fresh.load_state_dict(kept, strict=False)
        assert not unexpected and set(missing) == {n for n, _ in fresh.parameter_group("ensemble")}, missing
        model = fresh
    reshaped = {k for k in POLICY_SHAPE_FIELDS if k in overrides and overrides[k] != getattr(model.cfg, k)}
    new_step = "policy_step_width" in reshaped
    allowed = set(FINETUNE_MODEL_FIELDS) | {k for k in POLICY_SHAPE_FIELDS if k not in reshaped}
    allowed |= reshaped if cfg.fresh_policy else reshaped & {"policy_step_width"}
    if bad := sorted(set(overrides) - allowed):
        raise ValueError(
            f"a finetune cannot change ModelConfig {bad} (it would change the weights' shapes or "
            f"modules); it can change {list(FINETUNE_MODEL_FIELDS)}, and {list(POLICY_SHAPE_FIELDS)} "
            f"with fresh_policy=true (policy_step_width also without, to add a single-step head)"
        )
    new_cfg = replace(model.cfg, **overrides)
    if not (cfg.fresh_policy or new_step):
        model.cfg = new_cfg
        return model
    if "policy" not in cfg.trainable or cfg.policy_anchor > 0:
        raise ValueError(
            "fresh_policy needs 'policy' among the trainable groups and policy_anchor = 0 (there is no "
            "earlier head to stay near); so does a new single-step head (policy_step_width)"
        )
    fresh = WorldModel(new_cfg, model.spec).to(next(model.parameters()).device)
    renewed = {n for n, _ in fresh.parameter_group("policy") if cfg.fresh_policy or n.startswith("policy.step.")}
    missing, unexpected = fresh.load_state_dict(
        {k: v for k, v in model.state_dict().items() if k not in renewed and not k.startswith("policy.step.")},
        strict=False,
    )
    assert not unexpected and set(missing) == renewed, (missing, unexpected)
    return fresh


def finetune(
    checkpoint_dir: str | Path,
    data_dir: str | Path,
    out_dir: str | Path,
    cfg: FinetuneConfig,
    device: torch.device | None = None,
    progress: bool = True,
    sim_data: str | Path | WindowDataset | None = None,
    value_td: ValueTDConfig = ValueTDConfig(),
    model_overrides: dict[str, Any] | None = None,
) -> TrainResult:
    """Adapt a pretrained model on real data, training only `cfg.trainable` (default: the dynamics).

    The simulation normaliser is kept: real data are expressed in the units the frozen heads know.
    Real data need no reward, value or expert labels (``cfg.loss`` weights other terms only for data that have
    them, e.g. demonstrations for the BC head). When "value" is trainable (the Fig. 10 ablation), the
    value head is trained on a TD target bootstrapped from a copy of itself, frozen or following it
    (`cfg.value_iterations`, model/value_td.py).
    `sim_data` (replayed when `cfg.sim_replay_fraction` > 0) is a dataset directory, or its windows already loaded
    by `load_windows` (Alg. 1 loads them once for all rounds).
    """
    device = device or default_device()
    torch.manual_seed(cfg.seed)
    model = _reconfigured(ckpt.load_model(checkpoint_dir, map_location=device), model_overrides or {}, cfg)
    if model.cfg.sensor_noise_scale > 0 and not model.spec.sensor_noise_std:
        # pretrained without the augmentation, the checkpoint stores no noise stds: take the task's documented ones
        model.spec = replace(model.spec, sensor_noise_std=train.sensor_noise_std_of(read_info(data_dir).task))
    data = load_windows(data_dir, model.cfg, device, cfg.tail_windows)
    cfg = steps_for_epochs(cfg, len(data))
    if cfg.bc_successful_only:
        data.keep_bc_labels_of_successes()
    if (
        not ckpt.observation_groups_fit(model.spec.obs_shapes, data.info.obs_shapes)
        or data.info.action_dim != model.spec.action_dim
    ):  # data with more sensors than the model: it uses its own
        raise ValueError(
            f"dataset {data_dir} shapes {data.info.obs_shapes}/{data.info.action_dim} do not match "
            f"the checkpoint's {model.spec.obs_shapes}/{model.spec.action_dim}"
        )
    replay = None
    if cfg.sim_replay_fraction > 0:
        if sim_data is None:
            raise ValueError("sim_replay_fraction > 0 needs the simulation dataset (sim_data)")
        replay = (
            sim_data
            if isinstance(sim_data, WindowDataset)
            else load_windows(sim_data, model.cfg, device, cfg.tail_windows)
        )
        if (replay.H, replay.T, replay.device) != (model.cfg.history, model.cfg.horizon, torch.device(device)):
            raise ValueError(
                f"the simulation replay holds (history, horizon) = ({replay.H}, {replay.T}) windows on "
                f"{replay.device}; the model needs ({model.cfg.history}, {model.cfg.horizon}) on {device}"
            )
        if not cfg.replay_labels:  # replayed windows train the latent term only (a copy: the caller's keep theirs)
            replay = copy.copy(replay)
            replay.labelled = torch.zeros_like(replay.labelled)
            replay.bc_labelled = torch.zeros_like(replay.bc_labelled)
    labelled = [data] + ([replay] if replay is not None and cfg.replay_labels else [])  # who can feed each term
    unlabelled_replay = (
        "" if replay is None else " (nor has the replay)" if cfg.replay_labels else " (replay_labels off)"
    )
    for terms, steps, labels in (
        (("reward", "value"), "labelled_steps", "reward/value labels"),
        (("bc",), "bc_labelled_steps", "expert flags (demonstrations, corrections)"),
    ):
        if any(getattr(cfg.loss, k) > 0 for k in terms) and not any(getattr(d, steps).any() for d in labelled):
            raise ValueError(
                f"loss terms {[k for k in terms if getattr(cfg.loss, k) > 0]} need {labels}, and "
                f"{data_dir} has none{unlabelled_replay} (plain robot logs have neither; see "
                "docs/real-robot.md)"
            )
    params = set_trainable(model, cfg.trainable)
    log.info(
        "finetuning %s (%d params) on %d windows of %s",
        cfg.trainable,
        sum(p.numel() for p in params),
        len(data),
        data_dir,
    )
    extra = {"stage": "finetune", "finetune": asdict(cfg), "finetuned_from": str(checkpoint_dir), "data": str(data_dir)}
    extra_losses = []
    if "value" in cfg.trainable and value_td.weight:
        target_value = value_target_network(model)  # starts as the pretrained value
        extra["value_td"] = asdict(value_td)

        def value_td_term(batch: dict) -> tuple[torch.Tensor, str, float]:
            if cfg.value_iterations:  # one Polyak step per training step, towards the head as the last step left it
                follow(target_value, model.value, min(1.0, cfg.value_iterations / cfg.steps))
            term = value_td_loss(model, target_value, batch, value_td.discount)
            return value_td.weight * term, "value_td", float(term.detach())

        extra_losses.append(value_td_term)
    if "policy" in cfg.trainable and cfg.policy_anchor:
        if {"encoder", "history"} & set(cfg.trainable):
            raise ValueError("policy_anchor compares the head on one context: keep the encoder and history frozen")
        anchor = frozen_copy(model)  # the head before any update

        def anchor_term(batch: dict) -> tuple[torch.Tensor, str, float]:
            term = policy_anchor_loss(model, anchor, batch)
            return cfg.policy_anchor * term, "policy_anchor", float(term.detach())

        extra_losses.append(anchor_term)
    return train_loop(
        model,
        params,
        data,
        out_dir,
        finetune_schedule(cfg),
        extra,
        progress,
        replay,
        cfg.sim_replay_fraction,
        extra_losses,
    )
