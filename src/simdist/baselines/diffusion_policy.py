"""A small Diffusion Policy (Chi et al. 2023): DDPM over action chunks, conditioned on SimDist's encoder.

`ChunkDDPM` is the diffusion part alone, conditioned on any feature vector: the Diffusion Policy baseline
conditions it on its own encoder, benchmarks/peg_diffusion_head.py at commit 28cbc45 on a frozen world model's latent
and history. The denoiser is an MLP ε(x_k, k, c) over a flattened chunk of `chunk` unit-space actions (the paper's
baseline uses a U-Net; an MLP keeps the CPU preset small), with Chi et al.'s squared-cosine noise schedule, whose last
step is pure noise at any number of steps. Trained on real demonstrations, optionally co-trained on the expert-flagged
simulation data with a fixed share of each batch. Not adapted online. At run time a chunk is sampled by the full reverse
DDPM chain and its first `action_steps` actions are executed before replanning (receding horizon).
"""

from __future__ import annotations

import logging
import math
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from simdist.baselines.common import (
    BaselineConfig,
    ObsEncoder,
    load_weights,
    mlp,
    obs_to_tensors,
    read_checkpoint_config,
    register_baseline_presets,
    save_checkpoint,
)
from simdist.data.episodes import Episode
from simdist.model.world_model import ModelSpec
from simdist.tasks.base import COMMAND_KEY

log = logging.getLogger(__name__)
METHOD = "diffusion_policy"
COSINE_OFFSET, MAX_BETA = 0.008, 0.999  # the squared-cosine schedule (Nichol & Dhariwal 2021)
TIME_EMBED_DIM = 32


@dataclass(frozen=True)
class DiffusionConfig(BaselineConfig):
    chunk: int = 16  # predicted actions per sample
    action_steps: int = 8  # executed before sampling again
    diffusion_steps: int = 100
    steps: int = 100_000  # training steps
    cotrain_sim: bool = False  # mix expert-flagged simulation chunks into each batch
    sim_fraction: float = 0.5  # their share of the batch when co-training


PRESETS: dict[str, dict[str, Any]] = {  # overrides of the defaults, per scale
    "cpu": dict(
        encoder_preset="cpu",
        hidden=(256, 256),
        lr=1e-3,
        batch_size=64,
        chunk=8,
        action_steps=4,
        diffusion_steps=20,
        steps=1500,
    ),
    "paper": dict(
        encoder_preset="paper",
        hidden=(512, 512, 512),
        lr=1e-4,
        batch_size=256,
        chunk=16,
        action_steps=8,
        diffusion_steps=100,
        steps=100_000,
    ),
}
register_baseline_presets(METHOD, DiffusionConfig, PRESETS)


class ChunkDataset:
    """(observation, next `chunk` actions) pairs; chunks running past the episode end repeat its last action."""

    def __init__(self, episodes: list[Episode], chunk: int, expert_only: bool = False):
        obs, chunks = {}, []
        for e in episodes:
            L = len(e)
            starts = np.arange(L)
            if expert_only and e.expert is not None:
                starts = starts[e.expert]
            if len(starts) == 0:
                continue
            idx = np.minimum(starts[:, None] + np.arange(chunk), L - 1)
            chunks.append(e.action[idx])
            groups = dict(e.obs, **({COMMAND_KEY: e.command} if e.command is not None else {}))
            for g, v in groups.items():
                obs.setdefault(g, []).append(v[starts])
        if not chunks:
            raise ValueError("no usable steps to build action chunks from")
        self.obs = {g: np.concatenate(v).astype(np.float32) for g, v in obs.items()}
        self.actions = np.concatenate(chunks).astype(np.float32)

    def __len__(self) -> int:
        return len(self.actions)

    def sample(self, n: int, rng: np.random.Generator) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        idx = rng.integers(0, len(self), n)
        return {g: torch.as_tensor(v[idx]) for g, v in self.obs.items()}, torch.as_tensor(self.actions[idx])


def time_embedding(k: torch.Tensor, dim: int = TIME_EMBED_DIM) -> torch.Tensor:
    freqs = torch.exp(-math.log(10_000.0) * torch.arange(dim // 2, device=k.device) / (dim // 2))
    angles = k.float()[:, None] * freqs
    return torch.cat((angles.sin(), angles.cos()), dim=-1)


def cosine_betas(steps: int) -> torch.Tensor:
    """β_k with ᾱ_k = cos²(((k+1)/K + s)/(1 + s) · π/2) / ᾱ(0): ᾱ falls to 0 at the last step for any K (a
    linear schedule to 0.02 over 100 steps leaves ᾱ ≈ 0.37 there, so pure-noise sampling starts off-distribution)."""
    t = torch.arange(steps + 1, dtype=torch.float64) / steps
    alpha_bar = torch.cos((t + COSINE_OFFSET) / (1 + COSINE_OFFSET) * math.pi / 2) ** 2
    return (1 - alpha_bar[1:] / alpha_bar[:-1]).clamp(max=MAX_BETA).float()


class ChunkDDPM(nn.Module):
    """DDPM over (chunk, A) action chunks in the bounds' unit space, conditioned on a `cond_dim` feature vector."""

    def __init__(self, cond_dim: int, chunk: int, spec: ModelSpec, hidden: tuple[int, ...], diffusion_steps: int):
        super().__init__()
        self.chunk, self.diffusion_steps = chunk, diffusion_steps
        self.flat = chunk * spec.action_dim
        self.denoiser = mlp(cond_dim + TIME_EMBED_DIM + self.flat, hidden, self.flat)
        betas = cosine_betas(diffusion_steps)
        self.register_buffer("betas", betas)
        self.register_buffer("alpha_bars", torch.cumprod(1.0 - betas, 0))
        self.register_buffer("low", torch.tensor(spec.action_low, dtype=torch.float32))
        self.register_buffer("high", torch.tensor(spec.action_high, dtype=torch.float32))

    def to_unit(self, a: torch.Tensor) -> torch.Tensor:
        return (2.0 * (a - self.low) / (self.high - self.low) - 1.0).clamp(-1.0, 1.0)

    def to_raw(self, u: torch.Tensor) -> torch.Tensor:
        return self.low + (u + 1.0) * 0.5 * (self.high - self.low)

    def predict_noise(self, cond: torch.Tensor, x: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return self.denoiser(torch.cat((cond, time_embedding(k), x), dim=-1))

    def chunk_loss(self, cond: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """ε-prediction MSE at a random diffusion step; `actions` (B, chunk, A) in raw units."""
        x0 = self.to_unit(actions).flatten(1)
        k = torch.randint(0, self.diffusion_steps, (x0.shape[0],), device=x0.device)
        noise = torch.randn_like(x0)
        ab = self.alpha_bars[k][:, None]
        xk = ab.sqrt() * x0 + (1.0 - ab).sqrt() * noise
        return (self.predict_noise(cond, xk, k) - noise).pow(2).mean()

    @torch.no_grad()
    def sample_chunk(self, cond: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        """Reverse DDPM chain → (B, chunk, A) raw actions."""
        draw = lambda: torch.randn(cond.shape[0], self.flat, generator=generator).to(cond.device)  # noqa: E731
        x = draw()
        for k in reversed(range(self.diffusion_steps)):
            kk = torch.full((cond.shape[0],), k, device=cond.device)
            beta, ab = self.betas[k], self.alpha_bars[k]
            eps = self.predict_noise(cond, x, kk)
            x = (x - beta / (1.0 - ab).sqrt() * eps) / (1.0 - beta).sqrt()
            if k > 0:  # σ_k² = β_k (DDPM's simple choice)
                x = x + beta.sqrt() * draw()
            x = x.clamp(-1.0, 1.0)
        return self.to_raw(x.reshape(cond.shape[0], self.chunk, -1))


class DiffusionPolicy(ChunkDDPM):
    """The baseline: `ChunkDDPM` conditioned on its own observation encoder, trained end to end."""

    def __init__(self, spec: ModelSpec, cfg: DiffusionConfig):
        encoder = ObsEncoder(spec, cfg.encoder_config())
        super().__init__(encoder.out_dim, cfg.chunk, spec, cfg.hidden, cfg.diffusion_steps)
        self.spec, self.cfg, self.encoder = spec, cfg, encoder

    def loss(self, obs: dict[str, torch.Tensor], actions: torch.Tensor) -> torch.Tensor:
        return self.chunk_loss(self.encoder(obs), actions)

    @torch.no_grad()
    def sample(self, obs: dict[str, torch.Tensor], generator: torch.Generator | None = None) -> torch.Tensor:
        return self.sample_chunk(self.encoder(obs), generator)


class DiffusionAgent:
    """Receding horizon: sample a chunk, execute its first `action_steps` actions, sample again."""

    def __init__(self, policy: DiffusionPolicy, seed: int = 0):
        self.policy = policy.eval()
        self.generator = torch.Generator().manual_seed(seed)
        self.queue: deque = deque()

    def reset(self) -> None:
        self.queue.clear()

    def act(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        if not self.queue:
            chunk = self.policy.sample(obs_to_tensors(obs, self.policy.betas.device), self.generator)[0]
            self.queue.extend(chunk[: self.policy.cfg.action_steps].cpu().numpy().astype(np.float32))
        return self.queue.popleft()


class DiffusionLearner:
    def __init__(self, spec: ModelSpec, cfg: DiffusionConfig, device: torch.device | str = "cpu"):
        if not 1 <= cfg.action_steps <= cfg.chunk:
            raise ValueError(f"action_steps must be in [1, chunk={cfg.chunk}], got {cfg.action_steps}")
        self.spec, self.cfg, self.device = spec, cfg, torch.device(device)
        torch.manual_seed(cfg.seed)
        self.policy = DiffusionPolicy(spec, cfg).to(self.device)
        self.optimizer = torch.optim.AdamW(self.policy.parameters(), lr=cfg.lr)

    def update(self, obs: dict[str, torch.Tensor], actions: torch.Tensor) -> dict[str, float]:
        loss = self.policy.loss({g: v.to(self.device) for g, v in obs.items()}, actions.to(self.device))
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        return {"diffusion_loss": float(loss.detach())}

    def train(self, demos: ChunkDataset, sim: ChunkDataset | None = None, steps: int | None = None) -> dict[str, float]:
        """Demonstrations only, or with `cfg.sim_fraction` of every batch from `sim` when co-training."""
        cfg, rng = self.cfg, np.random.default_rng(self.cfg.seed)
        n_sim = round(cfg.batch_size * cfg.sim_fraction) if (cfg.cotrain_sim and sim is not None) else 0
        info: dict[str, float] = {}
        for _ in range(cfg.steps if steps is None else steps):
            obs, actions = demos.sample(cfg.batch_size - n_sim, rng)
            if n_sim:
                sim_obs, sim_actions = sim.sample(n_sim, rng)
                obs = {g: torch.cat((v, sim_obs[g])) for g, v in obs.items()}
                actions = torch.cat((actions, sim_actions))
            info = self.update(obs, actions)
        return info

    def agent(self, explore: bool = False) -> DiffusionAgent:
        return DiffusionAgent(self.policy, self.cfg.seed)

    def save(self, directory: str | Path) -> Path:
        return save_checkpoint(directory, METHOD, self.cfg, self.spec, {"policy": self.policy})

    @classmethod
    def load(cls, directory: str | Path, device: torch.device | str = "cpu") -> "DiffusionLearner":
        cfg, spec, _ = read_checkpoint_config(directory, METHOD, DiffusionConfig)
        learner = cls(spec, cfg, device)
        load_weights(directory, {"policy": learner.policy})
        return learner
