"""bf16 matrix products on CPUs that have bf16 matrix units (Intel AMX, AVX512-BF16), fp32 everywhere else.

`TrainConfig.cpu_bf16` and `MPPIConfig.cpu_bf16` take one of CPU_BF16_SETTINGS:
  "auto": bf16 autocast (matrix products in bf16, accumulated in fp32; LayerNorm, softmax and the losses in fp32)
          where `cpu_has_bf16_matmul()`, fp32 elsewhere;
  "on":   bf16 autocast on any CPU (slow where the products are emulated; for tests and comparisons);
  "off":  fp32, as before.
On such a CPU a 1750×64×256 product (the planner's feed-forward) takes 0.13 ms in bf16 against 0.46 ms in fp32 on
one thread (docs/benchmarks.md).
"""

from __future__ import annotations

import functools

import torch

CPU_BF16_SETTINGS = ("auto", "on", "off")


@functools.cache
def cpu_has_bf16_matmul() -> bool:
    """Whether this CPU multiplies bf16 matrices in hardware (AMX tiles or AVX512-BF16) and PyTorch reaches them
    (oneDNN built in). False on older x86 and on CPUs PyTorch cannot query."""
    if not torch.backends.mkldnn.is_available():
        return False
    cpu = getattr(torch, "cpu", None)
    checks = ("_is_amx_tile_supported", "_is_avx512_bf16_supported")
    try:
        return any(bool(getattr(cpu, name)()) for name in checks if hasattr(cpu, name))
    except RuntimeError:
        return False


def check_cpu_bf16(setting: str) -> None:
    if setting not in CPU_BF16_SETTINGS:
        raise ValueError(f"cpu_bf16 must be one of {list(CPU_BF16_SETTINGS)}, got {setting!r}")


def use_cpu_bf16(setting: str, device: torch.device | str) -> bool:
    """Whether work on `device` runs under bf16 autocast for this `cpu_bf16` setting (never on a GPU: there
    `TrainConfig.amp` decides)."""
    check_cpu_bf16(setting)
    if torch.device(device).type != "cpu" or setting == "off":
        return False
    return setting == "on" or cpu_has_bf16_matmul()
