"""Observation encoder E: one encoder per observation group, fused by an MLP into the latent z.

* 1-D groups (``proprio``): MLP.
* 2-D groups (a height map, H×W): strided CNN (kernel 3, stride 2, 'same' padding) plus learned row and
  column position encodings, flattened and projected by an MLP. Images can be added later as another
  group type with its own encoder class.
No normalisation on z (the paper: no SimNorm, no LayerNorm).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from simdist.config import ModelConfig
from simdist.model.layers import MLP, learned_encoding


class GridEncoder(nn.Module):
    """Height-map CNN: conv(1→c1) GELU conv(c1→c2) GELU conv(c2→c3), + 2-D position encodings, MLP → d."""

    def __init__(self, shape: tuple[int, int], cfg: ModelConfig):
        super().__init__()
        rows, cols = shape
        convs: list[nn.Module] = []
        in_ch = 1
        for i, ch in enumerate(cfg.cnn_channels):
            convs.append(nn.Conv2d(in_ch, ch, kernel_size=3, stride=2, padding=1))
            if i < len(cfg.cnn_channels) - 1:
                convs.append(nn.GELU())
            in_ch = ch
            rows, cols = math.ceil(rows / 2), math.ceil(cols / 2)
        self.cnn = nn.Sequential(*convs)
        self.row_encoding = learned_encoding(in_ch, rows, 1)
        self.col_encoding = learned_encoding(in_ch, 1, cols)
        self.project = MLP(in_ch * rows * cols, cfg.cnn_projection_hidden, cfg.latent_dim)

    def forward(self, grid: torch.Tensor) -> torch.Tensor:
        lead = grid.shape[:-2]
        x = grid.reshape(-1, 1, *grid.shape[-2:])
        x = self.cnn(x) + self.row_encoding + self.col_encoding
        return self.project(x.flatten(1)).reshape(*lead, -1)


class ObservationEncoder(nn.Module):
    """E(o): per-group features concatenated and fused by an MLP into z ∈ R^d.

    ``proprio_features`` is exposed separately because the history context reuses the proprio projection
    for its observation tokens, as in the paper.
    """

    def __init__(self, obs_shapes: dict[str, tuple[int, ...]], cfg: ModelConfig):
        super().__init__()
        self.group_names = tuple(obs_shapes)
        encoders: dict[str, nn.Module] = {}
        for name, shape in obs_shapes.items():
            if len(shape) == 1:
                encoders[name] = MLP(shape[0], cfg.proprio_hidden, cfg.latent_dim)
            elif len(shape) == 2:
                encoders[name] = GridEncoder((shape[0], shape[1]), cfg)
            else:
                raise ValueError(f"observation group {name!r} has unsupported shape {shape}; use 1-D or 2-D")
        self.groups = nn.ModuleDict(encoders)
        self.fuse = MLP(cfg.latent_dim * len(obs_shapes), cfg.latent_hidden, cfg.latent_dim)

    def proprio_features(self, proprio: torch.Tensor) -> torch.Tensor:
        return self.groups["proprio"](proprio)

    def forward(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        feats = [self.groups[name](obs[name]) for name in self.group_names]
        return self.fuse(torch.cat(feats, dim=-1))
