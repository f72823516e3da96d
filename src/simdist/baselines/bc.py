"""Single-step behaviour cloning: an MLP head on SimDist's encoder regresses the expert's action.

Trained on the expert-flagged transitions of the simulation dataset (uncorrupted expert actions only, as
SimDist's BC term is masked). It is a baseline in itself and the starting policy of the quadruped RL
baselines. Loss: MSE between tanh(mean) and the expert action, in unit action space.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch

from simdist.baselines.common import (Actor, ActorAgent, BaselineConfig, load_weights, read_checkpoint_config,
                                      save_checkpoint)
from simdist.baselines.replay import TransitionBuffer
from simdist.model.augment import add_sensor_noise
from simdist.model.world_model import ModelSpec

log = logging.getLogger(__name__)
METHOD = "bc"


@dataclass(frozen=True)
class BCConfig(BaselineConfig):
    steps: int = 2000  # gradient steps on the simulation data
    weight_decay: float = 0.0
    # × the task's sensor noise added to the training observations (raw units), as SimDist's `sensor_noise_scale`
    sensor_noise_scale: float = 0.0

    PRESETS: ClassVar[dict[str, dict[str, Any]]] = {
        "cpu": dict(encoder_preset="cpu", hidden=(128, 128), lr=1e-3, batch_size=128, steps=1000),
        "paper": dict(encoder_preset="paper", hidden=(256, 256), lr=3e-4, batch_size=256, steps=100_000),
    }


class BCLearner:
    def __init__(self, spec: ModelSpec, cfg: BCConfig, device: torch.device | str = "cpu"):
        self.spec, self.cfg, self.device = spec, cfg, torch.device(device)
        torch.manual_seed(cfg.seed)
        self.actor = Actor(spec, cfg).to(self.device)
        self.optimizer = torch.optim.AdamW(self.actor.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)

    def update(self, batch: dict) -> dict[str, float]:
        target = self.actor.to_unit(batch["action"])
        obs = add_sensor_noise(batch["obs"], self.spec.sensor_noise_std, self.cfg.sensor_noise_scale)
        loss = (self.actor.mode(obs) - target).pow(2).mean()
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        return {"bc_loss": float(loss.detach())}

    def train(self, data: TransitionBuffer, steps: int | None = None) -> dict[str, float]:
        """`steps` updates on the expert-flagged transitions of `data`."""
        expert = data if data.expert.all() else data.subset(data.expert)
        if len(expert) == 0:
            raise ValueError("no expert-flagged transitions to clone")
        rng = np.random.default_rng(self.cfg.seed)
        info: dict[str, float] = {}
        for step in range(steps if steps is not None else self.cfg.steps):
            info = self.update(expert.sample(self.cfg.batch_size, rng, self.device))
            if step % 500 == 0:
                log.debug("bc step %d loss %.4f", step, info["bc_loss"])
        return info

    def agent(self, explore: bool = False) -> ActorAgent:
        return ActorAgent(self.actor.eval(), explore=False, seed=self.cfg.seed)

    def save(self, directory: str | Path) -> Path:
        return save_checkpoint(directory, METHOD, self.cfg, self.spec, {"actor": self.actor})

    @classmethod
    def load(cls, directory: str | Path, device: torch.device | str = "cpu") -> "BCLearner":
        cfg, spec, _ = read_checkpoint_config(directory, METHOD, BCConfig)
        learner = cls(spec, cfg, device)
        load_weights(directory, {"actor": learner.actor})
        return learner
