"""Measurements on held-out windows: the validation losses, and the world model's own return error (how far the
planner's return estimate is from the labelled return).

MPPI ranks candidates by R̂ = Σ_k γ^k r̂_{t+k} + γ^T v̂_{t+T}. Near the goal the candidates' returns differ by
less than the heads' fitting error (docs/findings.md, "Planning"), so a predicted gain counts as evidence only
above a share of that error (`MPPIConfig.gate_weight`). It is measured at every save, on held-out simulation windows
with their true actions, and kept in the model (`WorldModel.return_error`, raw return units) so the planner can read it.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from simdist.config import LossConfig
from simdist.data.windows import WindowDataset
from simdist.model.loss import world_model_loss
from simdist.model.world_model import REWARD, VALUE, WorldModel

CALIBRATION_DISCOUNT = 0.99  # every MPPI preset's discount
VAL_BATCHES = 8
RETURN_ERROR_WINDOWS = 4096  # a ±1 % estimate of an RMS error; a paper-scale split holds ~10^5


@torch.no_grad()
def evaluate(
    model: WorldModel, data: WindowDataset, ids: np.ndarray, weights: LossConfig, batch_size: int, seed: int = 0
) -> dict[str, float]:
    """Mean loss terms over up to VAL_BATCHES batches of `ids` (model in eval mode: no dropout, no noise)."""
    if len(ids) == 0:
        return {}
    was_training = model.training
    model.eval()
    rng = np.random.default_rng(seed)
    ids = rng.permutation(ids)[: VAL_BATCHES * batch_size]
    totals: dict[str, float] = {}
    chunks = np.array_split(ids, max(1, math.ceil(len(ids) / batch_size)))
    for chunk in chunks:
        _, logs = world_model_loss(model, data.batch(chunk), weights)
        for k, v in logs.items():
            totals[k] = totals.get(k, 0.0) + v / len(chunks)
    model.train(was_training)
    return totals


@torch.no_grad()
def return_error(
    model: WorldModel,
    data: WindowDataset,
    ids: np.ndarray,
    batch_size: int = 256,
    discount: float = CALIBRATION_DISCOUNT,
) -> float | None:
    """RMS error (raw units) of R̂ against Σ_k γ^k r_{t+k} + γ^T V^e(s_{t+T}) over the complete, labelled windows
    among `ids` (a seeded sample of at most RETURN_ERROR_WINDOWS: it runs at every checkpoint); None where there are
    none (robot logs carry no reward or value labels)."""
    ids = np.random.default_rng(0).permutation(ids)[:RETURN_ERROR_WINDOWS]
    was_training = model.training
    model.eval()
    squared, count = 0.0, 0
    for chunk in np.array_split(ids, max(1, math.ceil(len(ids) / batch_size))):
        if len(chunk) == 0:
            continue
        batch = data.batch(chunk)
        keep = batch["labelled"] > 0
        if "future_valid" in batch:
            keep &= batch["future_valid"].bool().all(dim=1)
        if not keep.any():
            continue
        out = model(batch)
        T = out["reward"].shape[1]
        gammas = discount ** torch.arange(T, dtype=torch.float32, device=out["reward"].device)
        predicted = model.normalizer.denormalize(
            REWARD, out["reward"]
        ) @ gammas + discount**T * model.normalizer.denormalize(VALUE, out["value"][:, -1])
        labelled = batch["rewards"] @ gammas + discount**T * batch["values"][:, -1]
        squared += float((predicted - labelled)[keep].pow(2).sum())
        count += int(keep.sum())
    model.train(was_training)
    return math.sqrt(squared / count) if count else None


__all__ = ["CALIBRATION_DISCOUNT", "RETURN_ERROR_WINDOWS", "VAL_BATCHES", "evaluate", "return_error"]
