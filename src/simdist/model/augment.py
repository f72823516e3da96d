"""Sensor augmentation: the robot's documented sensor noise added to clean simulation observations in training, and
a per-window bias of one observation group (`add_group_offset`).

The authors add their Go2 noise stds to the world model's inputs (never to its targets); the same function serves
the world model and the single-step BC baseline, so both see exactly the noise the task declares.
"""

from __future__ import annotations

from typing import Mapping

import torch


def add_sensor_noise(
    obs: Mapping[str, torch.Tensor], sensor_noise_std: Mapping[str, tuple[float, ...]], scale: float
) -> dict[str, torch.Tensor]:
    """`obs` (raw units) plus Gaussian noise of std `scale` × `sensor_noise_std[group]` (one value per element of the
    group's last axis, or one for all); groups without a declared std, such as the command, are left as they are."""
    if scale <= 0:
        return dict(obs)
    if not sensor_noise_std:
        raise ValueError("sensor_noise_scale > 0 but the task documents no sensor noise (TaskSpec.sensor_noise_std)")
    out = dict(obs)
    for group, std in sensor_noise_std.items():
        if group in out:
            x = out[group]
            out[group] = x + scale * torch.tensor(std, dtype=x.dtype, device=x.device) * torch.randn_like(x)
    return out


def check_offset_group(group: str, groups) -> None:
    if group not in groups:
        raise ValueError(f"input_offset_group {group!r} is not an observation group; groups: {sorted(groups)}")


def add_group_offset(obs: Mapping[str, torch.Tensor], group: str, std: float) -> dict[str, torch.Tensor]:
    """`obs` with one Gaussian constant of std `std` per sample (first axis) added to every element of `group`."""
    check_offset_group(group, obs)
    x = obs[group]
    offset = std * torch.randn((x.shape[0],) + (1,) * (x.dim() - 1), dtype=x.dtype, device=x.device)
    return {**obs, group: x + offset}
