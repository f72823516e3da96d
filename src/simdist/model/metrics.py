"""Model-quality metrics on recorded episodes (no labels needed, so they work on real data)."""

from __future__ import annotations

import numpy as np
import torch

from simdist.data.episodes import DatasetInfo, Episode
from simdist.data.windows import WindowDataset
from simdist.model.world_model import WorldModel

MAX_WINDOWS = 4096


@torch.no_grad()
def latent_prediction_error(model: WorldModel, episodes: list[Episode]) -> np.ndarray:
    """Mean ‖ẑ_{t+k} − E(o_{t+k})‖² per horizon step k = 1..T over every window of `episodes` (Fig. 8a)."""
    spec = model.spec
    info = DatasetInfo(
        task="",
        domain="",
        control_period_s=0.0,
        obs_shapes=spec.obs_shapes,
        action_dim=spec.action_dim,
        command_dim=spec.command_dim,
    )
    device = next(model.parameters()).device
    data = WindowDataset(info, episodes, model.cfg.history, model.cfg.horizon, device=device)
    ids = np.arange(len(data))[:: max(1, len(data) // MAX_WINDOWS)]
    was_training = model.training
    model.eval()
    out = model(data.batch(ids))
    model.train(was_training)
    return (out["zhat"] - out["z_target"]).pow(2).mean(dim=(0, 2)).cpu().numpy()
