"""Benchmarks behind `simdist bench plan|train` (figures recorded in docs/benchmarks.md).

Models are randomly initialised with the paper's observation/action sizes: weights do not change the cost.
"""

from __future__ import annotations

import platform
import statistics
import time

import torch
from torch.utils.flop_counter import FlopCounterMode, sdpa_flop_count

from simdist.config import LossConfig, model_preset, replace, train_preset
from simdist.model.loss import world_model_loss
from simdist.model.world_model import ModelSpec, WorldModel
from simdist.planning.mppi import MPPIPlanner
from simdist.planning.settings import mppi_preset
from simdist.precision import cpu_has_bf16_matmul, use_cpu_bf16
from simdist.training.train import adam, compile_model

# Observation/action sizes of the paper's robots (manipulation: our proprio-only stand-in for the images).
BENCH_SPECS = {
    "manipulation": ModelSpec({"proprio": (40,)}, action_dim=7, action_low=(-1.0,) * 7, action_high=(1.0,) * 7),
    "quadruped": ModelSpec({"proprio": (35,), "height": (21, 15)}, action_dim=12, command_dim=3),
}


def _spec_for(preset: str) -> ModelSpec:
    return BENCH_SPECS["quadruped" if "quadruped" in preset else "manipulation"]


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _to(x, device: torch.device):
    return {k: _to(v, device) for k, v in x.items()} if isinstance(x, dict) else x.to(device)


def _time_s(step, repeats: int, warmup: int, device: torch.device) -> list[float]:
    """Wall-clock seconds of `repeats` calls after `warmup` calls, synchronising the GPU around each."""
    for _ in range(warmup):
        step()
    times = []
    for _ in range(repeats):
        _sync(device)
        t0 = time.perf_counter()
        step()
        _sync(device)
        times.append(time.perf_counter() - t0)
    return times


def _random_batch(model: WorldModel, batch: int) -> dict:
    spec, H, T = model.spec, model.cfg.history, model.cfg.horizon
    P, A = spec.obs_shapes["proprio"][0], spec.action_dim
    device = next(model.parameters()).device
    b = {
        "obs": {k: torch.randn(batch, *s) for k, s in spec.obs_shapes.items()},
        "hist_proprio": torch.randn(batch, H, P),
        "hist_action": torch.randn(batch, H, A),
        "actions": torch.randn(batch, T, A),
        "future_obs": {k: torch.randn(batch, T, *s) for k, s in spec.obs_shapes.items()},
        "rewards": torch.randn(batch, T),
        "values": torch.randn(batch, T),
        "expert": torch.ones(batch, T),
        "labelled": torch.ones(batch),
        "bc_labelled": torch.ones(batch),
    }
    if spec.command_dim:
        b["commands"] = torch.randn(batch, T + 1, spec.command_dim)
    return _to(b, device)


def _cpu_sdpa_flops(query_shape, key_shape, value_shape, *args, out_shape=None, **kwargs) -> int:
    """The CPU fused attention kernel is missing from torch's FLOP registry; count it as the GPU kernels are
    (q kᵀ and p v, 4·B·H·N·M·d, masked entries included, as the explicit path computes them)."""
    return sdpa_flop_count(query_shape, key_shape, value_shape)


# FLOPs the counter would otherwise miss (the planner's shared cross-attention runs through this kernel on CPU).
FLOP_FORMULAS = {torch.ops.aten._scaled_dot_product_flash_attention_for_cpu: _cpu_sdpa_flops}


def count_gflop(fn) -> float:
    with FlopCounterMode(display=False, custom_mapping=FLOP_FORMULAS) as counter:
        fn()
    return counter.get_total_flops() / 1e9


def matmul_peak_gflops(device: torch.device, n: int = 1024, repeats: int = 20) -> float:
    """fp32 GEMM throughput on this machine, measured now (the roofline for achieved_gflops)."""
    n = 8192 if device.type == "cuda" else n
    a, b = torch.randn(n, n, device=device), torch.randn(n, n, device=device)
    for _ in range(3):
        a @ b
    times = []
    for _ in range(repeats):
        _sync(device)
        t0 = time.perf_counter()
        a @ b
        _sync(device)
        times.append(time.perf_counter() - t0)
    return 2 * n**3 / min(times) / 1e9


def machine() -> dict:
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "bf16_units": cpu_has_bf16_matmul(),
        "device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu",
    }


def bench_plan(
    model_name: str,
    mppi_name: str,
    repeats: int = 30,
    device: str = "cpu",
    compile: bool | None = None,
    overrides: dict | None = None,
) -> dict:
    """Latency of one full control step (encode + context + MPPI iterations) at batch 1. FLOPs are counted
    on the eager path (the compiled one does the same arithmetic). `compile` overrides the preset's
    MPPIConfig.compile; when on, compile_s is the planner's one-off warm-up at construction (torch.compile,
    or a cache load when inductor's on-disk cache has the graphs). `overrides` replaces MPPIConfig fields."""
    dev = torch.device(device)
    model = WorldModel(model_preset(model_name), _spec_for(model_name)).eval().requires_grad_(False).to(dev)
    cfg = replace(mppi_preset(mppi_name), **(overrides or {}))
    cfg = cfg if compile is None else replace(cfg, compile=compile)
    b = _random_batch(model, 1)
    command = b["commands"][:, 0] if model.spec.command_dim else None

    def step_with(planner: MPPIPlanner):
        ctx = model.planning_context(b["obs"], b["hist_proprio"], b["hist_action"], command)
        return planner.plan(ctx)

    gflop = count_gflop(lambda: step_with(MPPIPlanner(model, replace(cfg, compile=False))))
    planner = MPPIPlanner(model, cfg)  # compiles here with cfg.compile
    with torch.inference_mode():
        times = [t * 1e3 for t in _time_s(lambda: step_with(planner), repeats, warmup=3, device=dev)]
    median = statistics.median(times)
    return {
        "model_preset": model_name,
        "mppi_preset": mppi_name,
        "samples": cfg.samples,
        "policy_samples": cfg.policy_samples,
        "iterations": cfg.iterations,
        "elites": cfg.elites,
        "horizon": model.cfg.horizon,
        "compile": cfg.compile,
        "compile_s": planner.compile_s,
        "cpu_bf16": cfg.cpu_bf16,
        "bf16": cfg.compile and use_cpu_bf16(cfg.cpu_bf16, dev),
        "params": sum(p.numel() for p in model.parameters()),
        "median_ms": median,
        "min_ms": min(times),
        "gflop_per_plan": gflop,
        "achieved_gflops": gflop / (median / 1e3),
        "peak_gflops": matmul_peak_gflops(dev),
        **machine(),
    }


def bench_train(
    model_name: str,
    repeats: int = 20,
    device: str = "cpu",
    amp: bool = False,
    compile_mode: str | None = None,
    batch_size: int | None = None,
    model_overrides: dict | None = None,
) -> dict:
    """Training throughput (sequences/s) of Eq. 2 forward + backward + Adam at the preset's batch size, or
    `batch_size` (with `amp`: bf16 autocast, as the trainer uses on a GPU with `amp` and on a CPU with
    `cpu_bf16`). `compile_mode` runs the forward through torch.compile as the trainer's `TrainConfig.compile`
    does ("default"), or with another inductor mode ("reduce-overhead": CUDA graphs; "max-autotune-no-cudagraphs");
    first_steps_s is the two warm-up steps, the compile included. `model_overrides` replaces ModelConfig fields."""
    dev = torch.device(device)
    model_cfg = replace(model_preset(model_name), **(model_overrides or {}))
    model = WorldModel(model_cfg, _spec_for(model_name)).train().to(dev)
    batch_size = batch_size or train_preset(model_name).batch_size
    forward_model = compile_model(model, compile_mode) if compile_mode else model
    opt = adam(list(model.parameters()), 1e-4, dev)  # the trainer's optimizer
    b = _random_batch(model, batch_size)

    def step():
        with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=amp):
            loss, _ = world_model_loss(forward_model, b, LossConfig())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    t0 = time.perf_counter()
    _time_s(step, 0, warmup=2, device=dev)
    _sync(dev)
    first_steps_s = time.perf_counter() - t0
    median = statistics.median(_time_s(step, repeats, warmup=1, device=dev))
    return {
        "model_preset": model_name,
        "model_overrides": model_overrides or {},
        "batch_size": batch_size,
        "amp": amp,
        "compile_mode": compile_mode,
        "first_steps_s": first_steps_s,
        "median_step_s": median,
        "steps_per_s": 1 / median,
        "sequences_per_s": batch_size / median,
        **machine(),
    }
