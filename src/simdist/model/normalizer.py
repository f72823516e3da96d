"""Per-field z-scoring that lives inside the model: raw units in, raw units out.

Statistics come from the simulation dataset and are buffers, so they are saved in `model.safetensors`,
never trained, and kept unchanged when the dynamics are finetuned on real data.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import torch
from torch import nn

STD_FLOOR = 1e-3  # a dimension constant in simulation must not explode when real data varies


class Normalizer(nn.Module):
    def __init__(self, shapes: Mapping[str, tuple[int, ...]]):
        super().__init__()
        self.fields = tuple(shapes)
        for name, shape in shapes.items():
            self.register_buffer(f"{name}_mean", torch.zeros(shape))
            self.register_buffer(f"{name}_std", torch.ones(shape))

    def _stats(self, name: str) -> tuple[torch.Tensor, torch.Tensor]:
        if name not in self.fields:
            raise KeyError(f"normaliser has no field {name!r}; fields: {list(self.fields)}")
        return getattr(self, f"{name}_mean"), getattr(self, f"{name}_std")

    def normalize(self, name: str, x: torch.Tensor) -> torch.Tensor:
        mean, std = self._stats(name)
        return (x - mean) / std

    def denormalize(self, name: str, x: torch.Tensor) -> torch.Tensor:
        mean, std = self._stats(name)
        return x * std + mean

    @torch.no_grad()
    def set_stats(self, name: str, mean: np.ndarray | torch.Tensor, std: np.ndarray | torch.Tensor) -> None:
        cur_mean, cur_std = self._stats(name)
        mean_t = torch.as_tensor(np.asarray(mean), dtype=cur_mean.dtype).reshape(cur_mean.shape)
        std_t = torch.as_tensor(np.asarray(std), dtype=cur_std.dtype).reshape(cur_std.shape)
        if not (torch.isfinite(mean_t).all() and torch.isfinite(std_t).all()):
            raise ValueError(f"normaliser statistics for {name!r} contain NaN or Inf")
        cur_mean.copy_(mean_t)
        cur_std.copy_(std_t.clamp_min(STD_FLOOR))
