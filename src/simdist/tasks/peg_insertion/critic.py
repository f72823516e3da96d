"""The expert's value function V^e(s): a small MLP on the privileged vector, shipped as safetensors + JSON."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from torch import nn

from simdist.tasks.peg_insertion.layout import PRIVILEGED

PACKAGE_DIR = Path(__file__).resolve().parent
WEIGHTS_FILE = PACKAGE_DIR / "critic.safetensors"
CONFIG_FILE = PACKAGE_DIR / "critic.json"
INPUT_CLAMP = 10.0  # normalised inputs are clamped to +-INPUT_CLAMP standard deviations


@dataclass
class CriticConfig:
    input_dim: int = PRIVILEGED.size
    hidden: tuple[int, ...] = (256, 256)
    gamma: float = 0.99
    input_mean: list[float] = field(default_factory=list)
    input_std: list[float] = field(default_factory=list)
    target_mean: float = 0.0
    target_std: float = 1.0
    report: dict = field(default_factory=dict)  # how it was fitted and how well (R^2 on held-out episodes)


def build_mlp(input_dim: int, hidden: tuple[int, ...]) -> nn.Sequential:
    layers: list[nn.Module] = []
    width = input_dim
    for size in hidden:
        layers += [nn.Linear(width, size), nn.SiLU()]
        width = size
    layers.append(nn.Linear(width, 1))
    return nn.Sequential(*layers)


class MLPCritic:
    """Implements :class:`simdist.tasks.base.Critic`; normalisation is part of the saved artefact."""

    def __init__(self, config: CriticConfig, network: nn.Sequential):
        if config.input_dim != PRIVILEGED.size:
            raise ValueError(
                f"critic expects {config.input_dim} privileged features, the task has {PRIVILEGED.size}; "
                "refit with `python -m simdist.tasks.peg_insertion.fit_critic`"
            )
        self.config = config
        self.network = network.eval()
        self._mean = torch.tensor(config.input_mean, dtype=torch.float32)
        self._std = torch.tensor(config.input_std, dtype=torch.float32)

    @torch.no_grad()
    def values(self, privileged: np.ndarray) -> np.ndarray:
        x = torch.as_tensor(np.asarray(privileged, dtype=np.float32)).reshape(-1, self.config.input_dim)
        # Clamping keeps states far outside the training data (e.g. `real` physics) from extrapolating wildly.
        out = self.network(((x - self._mean) / self._std).clamp(-INPUT_CLAMP, INPUT_CLAMP)).squeeze(-1)
        return (out * self.config.target_std + self.config.target_mean).numpy().astype(np.float64)

    def value(self, privileged: np.ndarray) -> float:
        return float(self.values(privileged)[0])

    def save(self, weights: Path = WEIGHTS_FILE, config_path: Path = CONFIG_FILE) -> None:
        save_file({k: v.detach().contiguous() for k, v in self.network.state_dict().items()}, str(weights))
        config_path.write_text(json.dumps(asdict(self.config), indent=1) + "\n")


def load_critic(weights: Path = WEIGHTS_FILE, config_path: Path = CONFIG_FILE) -> MLPCritic:
    if not weights.exists() or not config_path.exists():
        raise FileNotFoundError(
            f"critic files missing ({weights.name}, {config_path.name}); "
            "create them with `python -m simdist.tasks.peg_insertion.fit_critic`"
        )
    raw = json.loads(config_path.read_text())
    raw["hidden"] = tuple(raw["hidden"])
    config = CriticConfig(**raw)
    network = build_mlp(config.input_dim, config.hidden)
    network.load_state_dict(load_file(str(weights)))
    return MLPCritic(config, network)
