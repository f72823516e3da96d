"""Pretraining on simulation data (Eq. 2) and dynamics-only finetuning on real data (Eq. 3).

Both share one loop: Adam, linear warmup then cosine decay, periodic validation on held-out episodes,
atomic checkpoints with optimiser state, and exact resume (batches are drawn from a generator seeded by
(seed, step), so a resumed run sees the same batches as an uninterrupted one).
"""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

from simdist.config import ModelConfig, TrainConfig
from simdist.data.records import dataset_provenance
from simdist.data.windows import WindowDataset
from simdist.model.loss import world_model_loss
from simdist.model.world_model import ModelSpec, WorldModel
from simdist.precision import use_cpu_bf16
from simdist.progress import progress_bar
from simdist.tasks.registry import get_task, task_names
from simdist.training import checkpoint as ckpt
from simdist.training.distributed import SINGLE, Ranks, process_group, run_device
from simdist.training.validation import evaluate, return_error

log = logging.getLogger(__name__)


@dataclass
class TrainResult:
    out_dir: Path
    steps: int
    train_loss: dict[str, float]
    val_loss: dict[str, float]


def default_device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def plan_device(name: str) -> torch.device:
    """The device a user asked the world model to plan on ("cpu", "cuda", "cuda:1"), checked before any work."""
    try:
        device = torch.device(name)
    except RuntimeError:
        raise ValueError(f"unknown device {name!r}; valid: cpu, cuda, cuda:N") from None
    if device.type not in ("cpu", "cuda"):
        raise ValueError(f"unknown device {name!r}; valid: cpu, cuda, cuda:N")
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {name!r}: PyTorch sees no CUDA device here (a CPU-only build, or no GPU)")
    return device


def lr_at(step: int, lr: float, lr_end: float, warmup: int, decay_steps: int) -> float:
    """Linear warmup 0 → lr, then cosine decay lr → lr_end until `decay_steps` (warmup included)."""
    if step < warmup:
        return lr * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, decay_steps - warmup))
    return lr_end + (lr - lr_end) * 0.5 * (1.0 + math.cos(math.pi * progress))


def build_model(cfg: ModelConfig, data: WindowDataset) -> WorldModel:
    """A fresh world model whose normaliser holds the statistics of `data` (the simulation dataset)."""
    info = data.info
    spec = ModelSpec(
        info.obs_shapes,
        info.action_dim,
        info.command_dim,
        info.action_low,
        info.action_high,
        sensor_noise_std=sensor_noise_std_of(info.task) if cfg.sensor_noise_scale > 0 else {},
        action_frame=get_task(info.task).spec.action_frame if info.task in task_names() else "",
    )
    model = WorldModel(cfg, spec)
    for name, st in data.statistics().items():
        model.normalizer.set_stats(name, st.mean, st.std)
    return model


def sensor_noise_std_of(task_name: str) -> dict[str, tuple[float, ...]]:
    if task_name not in task_names():
        raise ValueError(
            f"sensor_noise_scale > 0 needs the task's documented sensor noise, but the dataset's task "
            f"{task_name!r} is not registered; registered: {task_names()}"
        )
    noise = get_task(task_name).spec.sensor_noise_std
    if not noise:
        raise ValueError(
            f"task {task_name!r} documents no sensor noise (TaskSpec.sensor_noise_std); "
            "use input_noise_std instead, or set sensor_noise_scale=0"
        )
    return noise


def load_windows(
    data_dir: str | Path, cfg: ModelConfig, device: torch.device, tail_windows: bool = False
) -> WindowDataset:
    return WindowDataset.from_dir(data_dir, cfg.history, cfg.horizon, device=device, tail_windows=tail_windows)


def train_loop(
    model: WorldModel,
    params: list[torch.nn.Parameter],
    data: WindowDataset,
    out_dir: str | Path,
    cfg: TrainConfig,
    extra: dict | None = None,
    progress: bool = True,
    replay: WindowDataset | None = None,
    replay_fraction: float = 0.0,
    extra_losses=(),
    ranks: Ranks = SINGLE,
) -> TrainResult:
    """Train `params` of `model` on `data` with `cfg`'s schedule, loss weights, validation and checkpoints (its
    `bc_successful_only` and `tail_windows` are the data's business: see `pretrain`), resuming a run in `out_dir`.
    `extra` is recorded in the checkpoint's config.json. A share `replay_fraction` of each batch comes from `replay`.
    Each of `extra_losses`, `f(batch) -> (weighted loss, name, unweighted float)`, adds a term to every step.
    With `cfg.ema_decay` > 0 the saved (and validated) model is an exponential moving average of the weights; the
    raw weights go to OUT/raw for an exact resume. With `ranks` of a data-parallel run (training/distributed.py)
    this process trains on its shard of every global batch and only rank 0 validates and writes."""
    out_dir, extra = Path(out_dir), extra or {}
    steps, batch_size, lr, lr_end, seed = cfg.steps, cfg.batch_size, cfg.lr, cfg.lr_end, cfg.seed
    warmup, decay_steps, weights, ema_decay = cfg.warmup_steps, cfg.decay_steps or cfg.steps, cfg.loss, cfg.ema_decay
    ranks.check_batch(batch_size)
    if ranks.main:
        out_dir.mkdir(parents=True, exist_ok=True)
    ranks.start_from_rank0(model)
    device = next(model.parameters()).device
    optimizer = adam(params, lr, device)
    # bf16 autocast: on a GPU with `amp`, on a CPU with bf16 matrix units per `cpu_bf16` (simdist.precision)
    amp = (cfg.amp and device.type == "cuda") or use_cpu_bf16(cfg.cpu_bf16, device)
    if amp and device.type == "cpu":
        log.info("training with bf16 matrix products (TrainConfig.cpu_bf16=%s)", cfg.cpu_bf16)
    train_ids, val_ids = data.split(cfg.val_fraction, seed)
    if len(train_ids) == 0:
        raise ValueError("no training windows after the validation split; record more or longer episodes")
    start = 0
    ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(ema_decay)) if ema_decay else None
    had_ema = False
    if ckpt.has_trainer_state(out_dir):
        had_ema = (out_dir / "raw" / "model.safetensors").exists()  # the optimiser's weights are the raw ones
        ckpt.load_state_into(model, out_dir / "raw" if had_ema else out_dir)
        start = int(ckpt.load_trainer_state(out_dir, optimizer)["step"])
        if ema and had_ema:  # continue the average; a run without one starts it at the resumed weights
            ckpt.load_state_into(ema.module, out_dir)
            ema.n_averaged.fill_(max(start, 1))
        log.info("resuming from step %d in %s", start, out_dir)
    deployed = ema.module if ema else model  # what is validated, saved as the model and kept
    forward_model = compile_model(model, cfg.compile_mode) if cfg.compile else model
    metrics_path = out_dir / "metrics.jsonl"
    model.train()
    train_logs: dict[str, float] = {}
    val_logs: dict[str, float] = {}

    def save(step: int) -> None:
        if (error := return_error(deployed, data, val_ids)) is not None:  # a finetune on robot logs keeps its own
            for m in {id(deployed): deployed, id(model): model}.values():  # the raw weights too, under an average
                m.return_error.fill_(error)
        if ema or had_ema:  # OUT/raw, once there, must stay current: a later resume reads it
            ckpt.save_model(out_dir / "raw", model, extra)
        ckpt.save_model(out_dir, deployed, extra)
        if cfg.keep_checkpoints:  # a loadable copy per checkpoint, to choose among by closed-loop evaluation
            ckpt.save_model(ckpt.kept_checkpoint_dir(out_dir, step), deployed, {**extra, "step": step})
        ckpt.save_trainer_state(out_dir, optimizer, {"step": step})

    bar = progress_bar(
        range(start, steps), initial=start, total=steps, disable=not (progress and ranks.main), desc=out_dir.name
    )
    last_record = (start, time.perf_counter())  # throughput between metrics records (validation excluded)
    for step in bar:
        for group in optimizer.param_groups:
            group["lr"] = lr_at(step, lr, lr_end, warmup, decay_steps)
        rng = np.random.default_rng([seed, step])
        n_replay = int(round(batch_size * replay_fraction)) if replay is not None else 0
        batch = data.batch(ranks.shard(rng.choice(train_ids, batch_size - n_replay)))
        if n_replay:
            batch = concat_batches(batch, replay.batch(ranks.shard(rng.integers(0, len(replay), n_replay))))
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=amp):
            loss, train_logs = world_model_loss(forward_model, batch, weights)
            for extra_loss in extra_losses:
                term, name, value = extra_loss(batch)
                loss = loss + term
                train_logs = {**train_logs, name: value, "total": train_logs["total"] + float(term.detach())}
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        ranks.average_gradients(params)
        if cfg.grad_clip:
            torch.nn.utils.clip_grad_norm_(params, cfg.grad_clip)
        optimizer.step()
        if ema:
            ema.update_parameters(model)
        done = step + 1
        recording = done % cfg.val_every == 0 or done == steps
        if recording:
            train_logs = ranks.mean(train_logs)  # the global batch's terms (a collective: on every rank)
        if recording and ranks.main:
            steps_per_s = (done - last_record[0]) / max(time.perf_counter() - last_record[1], 1e-9)
            val_logs = evaluate(deployed, data, val_ids, weights, batch_size, seed)
            record = {
                "step": done,
                "lr": optimizer.param_groups[0]["lr"],
                "steps_per_s": round(steps_per_s, 3),
                **{f"train/{k}": v for k, v in train_logs.items()},
                **{f"val/{k}": v for k, v in val_logs.items()},
            }
            with open(metrics_path, "a") as f:
                f.write(json.dumps(record) + "\n")
            bar.set_postfix(loss=f"{train_logs['total']:.4f}", val=f"{val_logs.get('total', float('nan')):.4f}")
            log.debug("step %d %s", done, record)
            last_record = (done, time.perf_counter())
        if (done % cfg.checkpoint_every == 0 or done == steps) and ranks.main:
            save(done)
    if start >= steps and ranks.main:
        val_logs = evaluate(deployed, data, val_ids, weights, batch_size, seed)
    ranks.barrier()  # every rank returns once rank 0 has written the last checkpoint
    return TrainResult(out_dir, steps, train_logs, val_logs)


def adam(params, lr: float, device: torch.device) -> torch.optim.Adam:
    """Fused on a CPU or GPU: 2.9 instead of 8.6 ms of a 120 ms paper-manipulation step (docs/benchmarks.md)."""
    return torch.optim.Adam(params, lr=lr, fused=device.type in ("cpu", "cuda") or None)


def compile_model(model: torch.nn.Module, mode: str) -> torch.nn.Module:
    """torch.compile with `mode`; an unknown mode is a ValueError naming the valid ones, before any step. On a CPU,
    in the default mode, the compiled graph draws its dropout masks with PyTorch's own generator (inductor's
    `fallback_random`): inductor's per-element one cost 10 % of a paper-manipulation step (docs/benchmarks.md)."""
    log.info("compiling the training forward, mode %s (one-off, about 2 min on 2 CPU cores)", mode)
    try:
        on_cpu = all(p.device.type == "cpu" for p in model.parameters())
        if mode == "default" and on_cpu:  # torch.compile takes a mode or options, not both
            return torch.compile(model, options={"fallback_random": True})
        return torch.compile(model, mode=mode)
    except RuntimeError as err:
        raise ValueError(f"compile mode {mode!r}: {err}") from None


def concat_batches(a: dict, b: dict) -> dict:
    if ("bc_actions" in a) != ("bc_actions" in b):  # DAgger windows beside plain ones: BC targets = executed actions
        a, b = ({**x, "bc_actions": x.get("bc_actions", x["actions"])} for x in (a, b))
    return {k: concat_batches(v, b[k]) if isinstance(v, dict) else torch.cat((v, b[k])) for k, v in a.items()}


def warm_start(model: WorldModel, checkpoint_dir: str | Path) -> int:
    """Copy every tensor of a checkpoint into `model`; tensors the checkpoint lacks (modules the new
    configuration adds, e.g. the reconstruction decoder) keep their fresh initialisation. Refuses to drop or
    reshape a tensor of the checkpoint, so a changed width cannot pass silently. Returns the fresh count."""
    source = ckpt.load_model(checkpoint_dir).state_dict()
    own = model.state_dict()
    lost = [f"{k} {tuple(v.shape)}" for k, v in source.items() if k not in own or own[k].shape != v.shape]
    if lost:
        raise ValueError(
            f"cannot warm-start from {checkpoint_dir}: the new model has no place for {lost[:5]}"
            f"{' …' if len(lost) > 5 else ''}; only added modules may differ"
        )
    model.load_state_dict(source, strict=False)
    return len(own) - len(source)


def pretrain(
    data_dir: str | Path,
    out_dir: str | Path,
    model_cfg: ModelConfig,
    cfg: TrainConfig,
    device: torch.device | None = None,
    progress: bool = True,
    init_from: str | Path | None = None,
) -> TrainResult:
    """Train a world model on a simulation dataset: from scratch, or from the weights of `init_from` (a
    checkpoint whose modules `model_cfg` may extend). Resumes if `out_dir` already holds a run. Under torchrun,
    data-parallel over the launched processes (training/distributed.py), each on its own GPU where there are GPUs."""
    device = run_device(device or default_device())
    with process_group(device) as ranks:
        ranks.check_batch(cfg.batch_size)  # before the data load
        torch.manual_seed(cfg.seed)
        data = load_windows(data_dir, model_cfg, device, cfg.tail_windows)
        if cfg.bc_successful_only:
            data.keep_bc_labels_of_successes()
        model = build_model(model_cfg, data).to(device)
        log.info(
            "pretraining %d params on %d windows from %d episodes",
            sum(p.numel() for p in model.parameters()),
            len(data),
            data.n_episodes,
        )
        extra = {"stage": "pretrain", "train": asdict(cfg), "data": str(data_dir)}
        extra["data_made_by"] = dataset_provenance(data_dir)
        if init_from is not None and not ckpt.has_trainer_state(out_dir):  # a resumed run has its own weights
            fresh = warm_start(model, init_from)
            log.info("warm start from %s (%d tensors started afresh)", init_from, fresh)
            extra["init_from"] = str(init_from)
        return train_loop(model, list(model.parameters()), data, out_dir, cfg, extra, progress, ranks=ranks)
