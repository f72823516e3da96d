"""Networks, configs and checkpoints shared by every baseline.

All baselines use SimDist's own observation encoder (`ObservationEncoder`, same shapes as the world model's)
with the in-model `Normalizer` in front of it, so every network takes *raw* observations and its statistics
come from the simulation dataset, exactly as the world model's do.

Actions: networks work in the *unit* action space u ∈ [-1, 1]^A, the task's box [low, high] mapped
affinely; `Actor.to_raw`/`to_unit` convert. A tanh head keeps every policy inside the box, so BC, IQL and
SAC actors are interchangeable (the quadruped baselines start RL from the single-step BC policy).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Mapping, TypeVar

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from torch import nn

from simdist.config import ModelConfig, from_dict, model_preset
from simdist.model.encoders import ObservationEncoder
from simdist.model.normalizer import Normalizer
from simdist.model.world_model import ModelSpec
from simdist.presets import Registry
from simdist.tasks.base import COMMAND_KEY

log = logging.getLogger(__name__)
LOG_STD_MIN, LOG_STD_MAX = -5.0, 2.0  # SAC/IQL log-std clamp; -5 keeps log-probs finite near the mode
UNIT_EPS = 1e-4  # keeps atanh and Gaussian log-probs finite at the box boundary
WEIGHTS_FILE, CONFIG_FILE = "weights.safetensors", "config.json"
CHECKPOINT_VERSION = 1
C = TypeVar("C", bound="BaselineConfig")


# ------------------------------------------------------------------------------------------- configs
@dataclass(frozen=True)
class BaselineConfig:
    """Fields every baseline shares. Subclasses add their own; each method registers its presets
    (`register_baseline_presets`: `bc-cpu`, `bc-paper`, …) in the one registry."""

    encoder_preset: str = "cpu"  # a simdist model preset: the encoder is built exactly as SimDist's
    hidden: tuple[int, ...] = (256, 256)  # MLP head widths (RLPD/IQL: 2×256)
    lr: float = 3e-4
    batch_size: int = 256
    gamma: float = 0.99
    seed: int = 0
    # Exploration std (unit action range) of an RL actor that starts from the BC policy (the quadruped setting):
    # BC trains only the mean, and an untrained log-std head explores with std ≈ 1, the whole action range.
    bc_start_std: float = 0.05

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):  # JSON gives lists; keep tuples so configs stay hashable
            if isinstance(getattr(self, f.name), list):
                object.__setattr__(self, f.name, tuple(getattr(self, f.name)))

    @classmethod
    def preset(cls: type[C], name: str, **overrides: Any) -> C:
        """The method's preset at scale `name` (`cpu`, `paper`), with `overrides`."""
        if cls not in _METHOD_OF:
            raise KeyError(f"{cls.__name__} has no registered presets")
        return dataclasses.replace(BASELINE_PRESETS.get(f"{_METHOD_OF[cls].replace('_', '-')}-{name}"), **overrides)

    def encoder_config(self) -> ModelConfig:
        name = "paper-manipulation" if self.encoder_preset == "paper" else self.encoder_preset
        return model_preset(name)


BASELINE_PRESETS: Registry[BaselineConfig] = Registry("baseline")
_METHOD_OF: dict[type, str] = {}


def register_baseline_presets(method: str, cls: type, table: dict[str, dict[str, Any]]) -> None:
    """`method`'s presets, one per scale (`cpu`, `paper`), as overrides of `cls`'s defaults: `METHOD-SCALE`."""
    _METHOD_OF[cls] = method
    for scale, overrides in table.items():
        name = f"{method.replace('_', '-')}-{scale}"  # kebab case, as every preset name
        BASELINE_PRESETS.add(name, lambda overrides=overrides: cls(**overrides))


def spec_of(source: Any) -> ModelSpec:
    """A ModelSpec (shapes, action box and, from a TaskSpec, the sensor noise) from a TaskSpec or a DatasetInfo."""
    return ModelSpec(
        dict(source.obs_shapes),
        source.action_dim,
        source.command_dim,
        tuple(source.action_low),
        tuple(source.action_high),
        sensor_noise_std=dict(getattr(source, "sensor_noise_std", {})),
        action_frame=getattr(source, "action_frame", ""),
    )


# ------------------------------------------------------------------------------------------ building blocks
def mlp(in_dim: int, hidden: tuple[int, ...], out_dim: int, layer_norm: bool = False) -> nn.Sequential:
    """Linear → (LayerNorm) → ReLU … → Linear, as in RLPD/IQL (ReLU, optional LayerNorm before it)."""
    layers: list[nn.Module] = []
    for a, b in zip((in_dim, *hidden[:-1]), hidden):
        layers += [nn.Linear(a, b), *([nn.LayerNorm(b)] if layer_norm else []), nn.ReLU()]
    layers.append(nn.Linear(hidden[-1] if hidden else in_dim, out_dim))
    return nn.Sequential(*layers)


class ObsEncoder(nn.Module):
    """Raw observation dict → Normalizer → ObservationEncoder → z (+ the normalised command, if any)."""

    def __init__(self, spec: ModelSpec, cfg: ModelConfig):
        super().__init__()
        self.spec = spec
        shapes = dict(spec.obs_shapes)
        if spec.command_dim:
            shapes[COMMAND_KEY] = (spec.command_dim,)
        self.normalizer = Normalizer(shapes)
        self.encoder = ObservationEncoder(spec.obs_shapes, cfg)
        self.out_dim = cfg.latent_dim + spec.command_dim

    def forward(self, obs: Mapping[str, torch.Tensor]) -> torch.Tensor:
        z = self.encoder({g: self.normalizer.normalize(g, obs[g]) for g in self.spec.obs_shapes})
        if self.spec.command_dim:  # commands condition the heads, as in SimDist's policy/reward/value
            z = torch.cat((z, self.normalizer.normalize(COMMAND_KEY, obs[COMMAND_KEY])), dim=-1)
        return z

    def set_stats(self, stats: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> None:
        """Per-dimension (mean, std) of the simulation dataset's observations (`replay.observation_stats`)."""
        for name in self.normalizer.fields:
            self.normalizer.set_stats(name, *stats[name])


class Actor(nn.Module):
    """Encoder + MLP → (pre-tanh mean, log std) per action dimension.

    * deterministic action (BC, evaluation): tanh(mean)
    * SAC: tanh-squashed Normal(mean, std) with the change-of-variables correction
    * IQL/AWR: Normal(tanh(mean), std) evaluated at the dataset action (CORL's Gaussian actor)
    """

    def __init__(self, spec: ModelSpec, cfg: BaselineConfig):
        super().__init__()
        self.encoder = ObsEncoder(spec, cfg.encoder_config())
        self.head = mlp(self.encoder.out_dim, cfg.hidden, 2 * spec.action_dim)
        self.register_buffer("low", torch.tensor(spec.action_low, dtype=torch.float32))
        self.register_buffer("high", torch.tensor(spec.action_high, dtype=torch.float32))

    def forward(self, obs: Mapping[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        mean, log_std = self.head(self.encoder(obs)).chunk(2, dim=-1)
        return mean, log_std.clamp(LOG_STD_MIN, LOG_STD_MAX)

    def mode(self, obs: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return torch.tanh(self(obs)[0])

    @torch.no_grad()
    def set_constant_std(self, std: float) -> None:
        """Make the log-std output log(std) for every observation (the mean is untouched); training moves it on."""
        last = [m for m in self.head.modules() if isinstance(m, nn.Linear)][-1]
        A = last.out_features // 2
        last.weight[A:].zero_()
        last.bias[A:] = float(np.log(std))

    def sample(self, obs: Mapping[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        """Reparameterised tanh-Normal sample u and its log-probability (summed over dimensions)."""
        mean, log_std = self(obs)
        dist = torch.distributions.Normal(mean, log_std.exp())
        pre = dist.rsample()
        u = torch.tanh(pre)
        log_prob = dist.log_prob(pre) - 2.0 * (np.log(2.0) - pre - F.softplus(-2.0 * pre))
        return u, log_prob.sum(-1)

    def gaussian_log_prob(self, obs: Mapping[str, torch.Tensor], u: torch.Tensor) -> torch.Tensor:
        mean, log_std = self(obs)
        dist = torch.distributions.Normal(torch.tanh(mean), log_std.exp())
        return dist.log_prob(u.clamp(-1 + UNIT_EPS, 1 - UNIT_EPS)).sum(-1)

    def to_raw(self, u: torch.Tensor) -> torch.Tensor:
        return self.low + (u + 1.0) * 0.5 * (self.high - self.low)

    def to_unit(self, a: torch.Tensor) -> torch.Tensor:
        return (2.0 * (a - self.low) / (self.high - self.low) - 1.0).clamp(-1.0, 1.0)


class EnsembleLinear(nn.Module):
    """N independent linear layers applied in one batched matmul: (N, B, in) → (N, B, out)."""

    def __init__(self, n: int, in_dim: int, out_dim: int):
        super().__init__()
        bound = math.sqrt(6.0 / (in_dim + out_dim))  # Xavier-uniform per member, as RLPD initialises
        self.weight = nn.Parameter(torch.empty(n, in_dim, out_dim).uniform_(-bound, bound))
        self.bias = nn.Parameter(torch.zeros(n, 1, out_dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.baddbmm(self.bias, x, self.weight)


class EnsembleLayerNorm(nn.Module):
    """LayerNorm with a separate scale and shift per ensemble member (members stay independent)."""

    def __init__(self, n: int, dim: int):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(n, 1, dim))
        self.shift = nn.Parameter(torch.zeros(n, 1, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x, x.shape[-1:]) * self.scale + self.shift


class QEnsemble(nn.Module):
    """N Q-functions Q_i(o, u) sharing one observation encoder; returns (N, B).

    Sharing the encoder across members (as pixel-based RLPD does) keeps the ensemble cheap; the MLP heads,
    where the ensemble's disagreement lives, are independent.
    """

    def __init__(self, spec: ModelSpec, cfg: BaselineConfig, n: int, layer_norm: bool):
        super().__init__()
        self.n = n
        self.encoder = ObsEncoder(spec, cfg.encoder_config())
        layers: list[nn.Module] = []
        dims = (self.encoder.out_dim + spec.action_dim, *cfg.hidden)
        for a, b in zip(dims[:-1], dims[1:]):
            layers += [EnsembleLinear(n, a, b), *([EnsembleLayerNorm(n, b)] if layer_norm else []), nn.ReLU()]
        layers.append(EnsembleLinear(n, dims[-1], 1))
        self.heads = nn.Sequential(*layers)

    def forward(self, obs: Mapping[str, torch.Tensor], u: torch.Tensor) -> torch.Tensor:
        x = torch.cat((self.encoder(obs), u), dim=-1)
        return self.heads(x.unsqueeze(0).expand(self.n, -1, -1)).squeeze(-1)


class ValueNet(nn.Module):
    """V(o): encoder + MLP → scalar, (B,)."""

    def __init__(self, spec: ModelSpec, cfg: BaselineConfig):
        super().__init__()
        self.encoder = ObsEncoder(spec, cfg.encoder_config())
        self.head = mlp(self.encoder.out_dim, cfg.hidden, 1)

    def forward(self, obs: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return self.head(self.encoder(obs)).squeeze(-1)


@torch.no_grad()
def polyak(target: nn.Module, source: nn.Module, tau: float) -> None:
    for t, s in zip(target.parameters(), source.parameters()):
        t.lerp_(s, tau)


def encoders_of(*modules: nn.Module) -> list[ObsEncoder]:
    return [m for module in modules for m in module.modules() if isinstance(m, ObsEncoder)]


def set_normalizer_stats(modules: list[nn.Module], stats: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> None:
    """Give every encoder inside `modules` the simulation dataset's (mean, std) statistics."""
    for enc in encoders_of(*modules):
        enc.set_stats(stats)


# ------------------------------------------------------------------------------------------------ agent
def obs_to_tensors(obs: Mapping[str, np.ndarray], device: torch.device | str = "cpu") -> dict[str, torch.Tensor]:
    return {k: torch.as_tensor(np.asarray(v, np.float32), device=device).unsqueeze(0) for k, v in obs.items()}


class ActorAgent:
    """The `Agent` protocol over an `Actor`: tanh(mean) when not exploring, else a sample of the actor's own
    distribution: tanh-Normal (SAC) or Normal(tanh(mean), std) clipped to the box (IQL, `gaussian=True`)."""

    def __init__(self, actor: Actor, explore: bool = False, seed: int = 0, gaussian: bool = False):
        self.actor, self.explore, self.gaussian = actor, explore, gaussian
        self.generator = torch.Generator().manual_seed(seed)

    def reset(self) -> None:
        pass

    @torch.no_grad()
    def act(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        obs_t = obs_to_tensors(obs, next(self.actor.parameters()).device)
        if self.explore:
            mean, log_std = self.actor(obs_t)
            noise = torch.randn(mean.shape, generator=self.generator).to(mean.device)
            if self.gaussian:
                u = (torch.tanh(mean) + log_std.exp() * noise).clamp(-1.0, 1.0)
            else:
                u = torch.tanh(mean + log_std.exp() * noise)
        else:
            u = self.actor.mode(obs_t)
        return self.actor.to_raw(u)[0].cpu().numpy().astype(np.float32)


# ------------------------------------------------------------------------------------------ checkpoints
def save_checkpoint(
    directory: str | Path,
    method: str,
    cfg: BaselineConfig,
    spec: ModelSpec,
    modules: Mapping[str, nn.Module],
    extra: dict[str, Any] | None = None,
) -> Path:
    """`weights.safetensors` (every module's state, keys prefixed by its name) + `config.json`."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    state = {
        f"{name}.{k}": v.detach().contiguous().cpu()
        for name, module in modules.items()
        for k, v in module.state_dict().items()
    }
    tmp = directory / (WEIGHTS_FILE + ".tmp")
    save_file(state, str(tmp))
    tmp.replace(directory / WEIGHTS_FILE)
    meta = {
        "version": CHECKPOINT_VERSION,
        "method": method,
        "config": asdict(cfg),
        "spec": asdict(spec),
        **(extra or {}),
    }
    (directory / CONFIG_FILE).write_text(json.dumps(meta, indent=2))
    return directory


def read_checkpoint_config(directory: str | Path, method: str, cfg_cls: type[C]) -> tuple[C, ModelSpec, dict]:
    path = Path(directory) / CONFIG_FILE
    if not path.exists():
        raise FileNotFoundError(f"{directory} is not a baseline checkpoint (no {CONFIG_FILE})")
    meta = json.loads(path.read_text())
    if meta.get("method") != method:
        raise ValueError(f"{directory} holds a {meta.get('method')!r} checkpoint, not {method!r}")
    return from_dict(cfg_cls, meta["config"]), from_dict(ModelSpec, meta["spec"]), meta


def load_weights(directory: str | Path, modules: Mapping[str, nn.Module]) -> None:
    state = load_file(str(Path(directory) / WEIGHTS_FILE))
    for name, module in modules.items():
        prefix = f"{name}."
        sub = {k[len(prefix) :]: v for k, v in state.items() if k.startswith(prefix)}
        module.load_state_dict(sub)  # strict: a mismatch raises naming the missing/unexpected keys
