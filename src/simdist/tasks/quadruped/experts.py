"""The privileged PPO expert, its sub-optimal checkpoints and its critic, loaded from exported safetensors files.

Training (``python -m simdist.tasks.quadruped.train_expert``) writes rsl-rl checkpoints; ``--export`` turns them
into ``checkpoints/policy_<iteration>.safetensors`` (actor, deterministic mean action, with its observation
normaliser) and ``checkpoints/critic.safetensors`` (the final critic), both acting on the 433-D privileged state.
Each file holds the normaliser's mean and std and the MLP's layers; its header metadata names the format, the
activation and the normaliser's epsilon, so no code is unpickled to run an expert. The highest iteration is the
expert; the others are the sub-optimal policies of Alg. 2. Until a trained run has been exported, every accessor
raises a FileNotFoundError naming the command — there is no stand-in expert.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from safetensors import safe_open
from safetensors.torch import save_file
from torch import nn

CHECKPOINT_DIR = Path(__file__).parent / "checkpoints"
TRAIN_COMMAND = (
    "python -m simdist.tasks.quadruped.train_expert --run runs/quadruped_ppo "
    "(repeat to resume), then the same command with --export"
)


def _missing(what: str) -> FileNotFoundError:
    return FileNotFoundError(
        f"no trained quadruped {what} in {CHECKPOINT_DIR}: train and export the privileged PPO expert with "
        f"`{TRAIN_COMMAND}` (see docs/tasks/quadruped.md)"
    )


def exported_iterations(directory: Path = CHECKPOINT_DIR) -> list[int]:
    found = [re.fullmatch(r"policy_(\d+)\.safetensors", p.name) for p in directory.glob("policy_*.safetensors")]
    return sorted(int(m.group(1)) for m in found if m)


FORMAT = "simdist-rsl-rl-mlp-v1"
ACTIVATIONS = {"elu": nn.ELU}


class ExportedMLP(nn.Module):
    """rsl-rl's exported actor or critic: (x − mean) / (std + eps), then Linear layers with the activation between."""

    def __init__(self, tensors: dict[str, torch.Tensor], activation: str, eps: float):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"unknown activation {activation!r}; valid: {sorted(ACTIVATIONS)}")
        self.register_buffer("mean", tensors["obs_mean"])
        self.register_buffer("std", tensors["obs_std"])
        self.eps = eps
        n = len([k for k in tensors if k.startswith("layers.") and k.endswith(".weight")])
        layers: list[nn.Module] = []
        for i in range(n):
            w, b = tensors[f"layers.{i}.weight"], tensors[f"layers.{i}.bias"]
            linear = nn.Linear(w.shape[1], w.shape[0])
            linear.weight.data.copy_(w)
            linear.bias.data.copy_(b)
            layers += [linear] + ([ACTIVATIONS[activation]()] if i < n - 1 else [])
        self.mlp = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mlp((x - self.mean) / (self.std + self.eps))


def save_exported(state: dict[str, torch.Tensor], eps: float, activation: str, path: Path) -> None:
    """Write an rsl-rl `as_jit()` module's state (normaliser `_mean`/`_std`, `mlp.<i>` Linear layers)."""
    linear = sorted({int(k.split(".")[1]) for k in state if k.startswith("mlp.") and k.endswith(".weight")})
    tensors = {"obs_mean": state["obs_normalizer._mean"], "obs_std": state["obs_normalizer._std"]}
    for j, i in enumerate(linear):
        tensors[f"layers.{j}.weight"], tensors[f"layers.{j}.bias"] = state[f"mlp.{i}.weight"], state[f"mlp.{i}.bias"]
    save_file(
        {k: v.detach().cpu().float().contiguous() for k, v in tensors.items()},
        str(path),
        metadata={"format": FORMAT, "activation": activation, "normalizer_eps": repr(float(eps))},
    )


def load_exported(path: Path) -> ExportedMLP:
    with safe_open(str(path), framework="pt") as f:
        meta = f.metadata() or {}
        if meta.get("format") != FORMAT:
            raise ValueError(
                f"{path} is not an exported quadruped expert (format {meta.get('format')!r}, "
                f"expected {FORMAT!r}); re-export with `{TRAIN_COMMAND}`"
            )
        tensors = {k: f.get_tensor(k) for k in f.keys()}
    return ExportedMLP(tensors, meta["activation"], float(meta["normalizer_eps"])).eval()


@dataclass
class PPOPolicy:
    """A deterministic exported actor on the privileged state."""

    name: str
    path: Path
    _module: ExportedMLP | None = field(default=None, repr=False)

    def reset(self, rng: np.random.Generator) -> None:
        pass

    @torch.no_grad()
    def act(self, privileged: np.ndarray) -> np.ndarray:
        if self._module is None:
            self._module = load_exported(self.path)
        x = torch.as_tensor(np.asarray(privileged, np.float32))
        return self._module(x.reshape(-1, x.shape[-1])).numpy().reshape(*x.shape[:-1], -1)


class PPOCritic:
    def __init__(self, path: Path):
        self.module = load_exported(path)

    @torch.no_grad()
    def value(self, privileged: np.ndarray) -> float:
        return float(self.module(torch.as_tensor(np.asarray(privileged, np.float32))[None])[0, 0])

    @torch.no_grad()
    def values(self, privileged: np.ndarray) -> np.ndarray:
        """(N,) values of a batch of privileged states."""
        return self.module(torch.as_tensor(np.asarray(privileged, np.float32)))[:, 0].numpy()


def expert() -> PPOPolicy:
    its = exported_iterations()
    if not its:
        raise _missing("expert")
    return PPOPolicy("expert", CHECKPOINT_DIR / f"policy_{its[-1]}.safetensors")


def suboptimal_policies() -> list[PPOPolicy]:
    its = exported_iterations()
    if len(its) < 2:
        raise _missing("sub-optimal checkpoints")
    return [PPOPolicy(f"iter_{it}", CHECKPOINT_DIR / f"policy_{it}.safetensors") for it in its[:-1]]


def critic() -> PPOCritic:
    path = CHECKPOINT_DIR / "critic.safetensors"
    if not path.exists():
        raise _missing("critic")
    return PPOCritic(path)
