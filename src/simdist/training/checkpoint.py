"""Checkpoints: `model.safetensors` (weights and normaliser) + `config.json` (ModelConfig, ModelSpec).

Optimiser state for resuming goes to `trainer_state.safetensors` + `trainer_state.json`. Nothing is pickled.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save_file

from simdist.config import ModelConfig, from_dict
from simdist.model.world_model import ModelSpec, WorldModel

CHECKPOINT_VERSION = 1
MODEL_FILE, CONFIG_FILE = "model.safetensors", "config.json"
KEPT_CHECKPOINT = re.compile(r"step_(\d+)$")  # a run's kept checkpoints (TrainConfig.keep_checkpoints)


def kept_checkpoint_dir(run_dir: str | Path, step: int) -> Path:
    """Where a run keeps its checkpoint of `step`: RUN/step_NNNNNN."""
    return Path(run_dir) / f"step_{step:06d}"


class CheckpointError(ValueError):
    """A checkpoint is missing, malformed, or does not match the model it is loaded into."""


def _atomic(path: Path, write) -> None:
    tmp = path.with_name(path.name + ".tmp")
    write(tmp)
    os.replace(tmp, path)


def save_model(directory: str | Path, model: WorldModel, extra: dict[str, Any] | None = None) -> Path:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().contiguous().cpu() for k, v in model.state_dict().items()}
    _atomic(directory / MODEL_FILE, lambda p: save_file(state, str(p)))
    config = {"version": CHECKPOINT_VERSION, "model": asdict(model.cfg), "spec": asdict(model.spec), **(extra or {})}
    _atomic(directory / "config.json", lambda p: p.write_text(json.dumps(config, indent=2)))
    return directory


def read_config(directory: str | Path) -> dict[str, Any]:
    path = Path(directory) / "config.json"
    if not path.exists():
        raise CheckpointError(f"{directory} is not a checkpoint (no config.json)")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as err:
        raise CheckpointError(f"{path} is not valid JSON: {err}") from err


def read_model_config(directory: str | Path) -> ModelConfig:
    """The ModelConfig a checkpoint was saved with."""
    try:
        return from_dict(ModelConfig, read_config(directory)["model"])
    except (KeyError, TypeError, ValueError) as err:
        raise CheckpointError(f"{directory}/config.json does not describe a world model: {err}") from err


# Measured quantities a checkpoint saved before they were introduced lacks: the model keeps its 'not measured'.
OPTIONAL_STATE = ("return_error",)


def load_state_into(model: WorldModel, directory: str | Path) -> None:
    path = Path(directory) / MODEL_FILE
    if not path.exists():
        raise CheckpointError(f"{directory} has no {MODEL_FILE}")
    try:
        state = load_file(str(path))
    except Exception as err:  # safetensors raises its own error types for truncated files
        raise CheckpointError(f"cannot read {path}: {err}") from err
    own = model.state_dict()
    state = {**{k: own[k] for k in OPTIONAL_STATE if k not in state}, **state}  # saved before they existed
    missing, unexpected = sorted(set(own) - set(state)), sorted(set(state) - set(own))
    if missing or unexpected:
        raise CheckpointError(f"{path} does not match the model: missing {missing[:5]}, unexpected {unexpected[:5]}")
    bad = [
        f"{k}: checkpoint {tuple(state[k].shape)} vs model {tuple(v.shape)}"
        for k, v in own.items()
        if tuple(state[k].shape) != tuple(v.shape)
    ]
    if bad:
        raise CheckpointError(f"{path} has mismatched shapes: {bad[:5]}")
    model.load_state_dict(state)


def load_model(directory: str | Path, map_location: str | torch.device = "cpu") -> WorldModel:
    config = read_config(directory)
    missing = [key for key in ("model", "spec") if key not in config]
    if missing:
        raise CheckpointError(
            f"{directory}/config.json does not describe a world model: it has no "
            f"{' or '.join(missing)} section (it has {sorted(config) or 'none'})"
        )
    try:
        cfg = from_dict(ModelConfig, config["model"])
        spec = from_dict(ModelSpec, config["spec"])
    except (KeyError, TypeError, ValueError) as err:
        raise CheckpointError(f"{directory}/config.json does not describe a world model: {err}") from err
    model = WorldModel(cfg, spec)
    load_state_into(model, directory)
    return model.to(map_location).eval()


def check_model_fits_task(model: WorldModel, task, directory: str | Path) -> None:
    """Refuse a world model whose observations or actions are not the task's (another task's checkpoint) before
    any episode runs, rather than failing at the first observation. Tasks that share a robot (the quadruped's
    Foam and Slippery Slope) share models."""
    have = ({k: tuple(v) for k, v in model.spec.obs_shapes.items()}, model.spec.action_dim, model.spec.command_dim)
    want = ({k: tuple(v) for k, v in task.spec.obs_shapes.items()}, task.spec.action_dim, task.spec.command_dim)
    if not (observation_groups_fit(have[0], want[0]) and have[1:] == want[1:]):
        describe = lambda s: f"observations {s[0]}, {s[1]} actions, {s[2]} command dims"  # noqa: E731
        raise CheckpointError(
            f"{directory} is a world model for {describe(have)}; task {task.spec.name!r} has "
            f"{describe(want)}: is it a checkpoint of another task?"
        )
    if model.spec.action_frame != task.spec.action_frame:
        frame = lambda f: repr(f) if f else "the default"  # noqa: E731
        raise CheckpointError(
            f"{directory} acts in the action frame {frame(model.spec.action_frame)}; task {task.spec.name!r} in "
            f"{frame(task.spec.action_frame)}: use the task it was trained on"
        )


def observation_groups_fit(model_groups: dict, task_groups: dict) -> bool:
    """A model runs on a task that observes each of its groups with the same shape; the task may observe more (a
    model trained without a sensor runs on a robot that has it: the agent feeds the model its own groups only)."""
    return all(name in task_groups and tuple(task_groups[name]) == tuple(shape) for name, shape in model_groups.items())


# ------------------------------------------------------------------------------------ optimiser state
def save_trainer_state(directory: str | Path, optimizer: torch.optim.Optimizer, meta: dict[str, Any]) -> None:
    directory = Path(directory)
    sd = optimizer.state_dict()
    tensors = {
        f"state.{pid}.{name}": t.detach().contiguous().cpu()
        for pid, st in sd["state"].items()
        for name, t in st.items()
        if torch.is_tensor(t)
    }
    _atomic(directory / "trainer_state.safetensors", lambda p: save_file(tensors, str(p)))
    payload = {"param_groups": sd["param_groups"], **meta}
    _atomic(directory / "trainer_state.json", lambda p: p.write_text(json.dumps(payload, indent=2)))


def load_trainer_state(directory: str | Path, optimizer: torch.optim.Optimizer) -> dict[str, Any]:
    directory = Path(directory)
    meta = json.loads((directory / "trainer_state.json").read_text())
    tensors = load_file(str(directory / "trainer_state.safetensors"))
    state: dict[int, dict[str, torch.Tensor]] = {}
    for key, t in tensors.items():
        _, pid, name = key.split(".", 2)
        state.setdefault(int(pid), {})[name] = t
    optimizer.load_state_dict({"state": state, "param_groups": meta.pop("param_groups")})
    return meta


def has_trainer_state(directory: str | Path) -> bool:
    d = Path(directory)
    return (d / "trainer_state.json").exists() and (d / "trainer_state.safetensors").exists()


# ------------------------------------------------------------------------------------ shipped models and task fit
SHIPPED_DIR = Path(__file__).resolve().parents[3] / "checkpoints"  # the repository's checkpoints/ (editable install)


def shipped_checkpoint(name: str) -> Path:
    """A pretrained world model committed in the repository's `checkpoints/` folder."""
    path = SHIPPED_DIR / name
    if not (path / "config.json").exists():
        have = (
            sorted(p.name for p in SHIPPED_DIR.iterdir() if (p / "config.json").exists())
            if SHIPPED_DIR.is_dir()
            else []
        )
        raise FileNotFoundError(
            f"no shipped checkpoint {name!r} in {SHIPPED_DIR} (shipped: {have}); the shipped "
            f"models live in the repository, so install from a clone with `pip install -e .`"
        )
    return path


def check_fits_task(directory: str | Path, task) -> None:
    """Refuse a checkpoint trained for another task's observations or actions, naming what differs."""
    spec = from_dict(ModelSpec, read_config(directory)["spec"])
    want = task.spec
    diffs = []
    if not observation_groups_fit(spec.obs_shapes, want.obs_shapes):
        diffs.append(f"observation groups {spec.obs_shapes} vs the task's {dict(want.obs_shapes)}")
    if (spec.action_dim, spec.command_dim) != (want.action_dim, want.command_dim):
        diffs.append(
            f"action/command dims {spec.action_dim}/{spec.command_dim} vs {want.action_dim}/{want.command_dim}"
        )
    if diffs:
        raise CheckpointError(f"checkpoint {directory} does not fit task {want.name!r}: " + "; ".join(diffs))
