"""IQL (Kostrikov et al. 2022), offline-to-online, following CORL's single-file finetuning version.

Per update, in CORL's order:
  1. V:  expectile regression of V(o) towards min_i Q̄_i(o, a)          (expectile τ)
  2. Q:  twin Qs regress to r + γ(1 − done)·V(o′), V(o′) taken before step 1 moved V
  3. Q̄: Polyak average of the Qs
  4. π:  advantage-weighted regression, weight exp(β·(Q̄ − V)) clamped at 100, on −log π(a|o)
Offline phase on the simulation data (the value is "pretrained in sim"), then online updates on one buffer
holding the offline data followed by the real transitions (CORL), uniformly sampled.
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from simdist.baselines.common import (
    Actor,
    ActorAgent,
    BaselineConfig,
    QEnsemble,
    ValueNet,
    load_weights,
    polyak,
    read_checkpoint_config,
    register_baseline_presets,
    save_checkpoint,
)
from simdist.baselines.replay import TransitionBuffer
from simdist.model.world_model import ModelSpec

log = logging.getLogger(__name__)
METHOD = "iql"
NUM_QS = 2  # IQL's twin critics


@dataclass(frozen=True)
class IQLConfig(BaselineConfig):
    expectile: float = 0.7  # iql_tau: 0.7 locomotion, 0.8 adroit finetune, 0.9 antmaze
    beta: float = 3.0  # AWR inverse temperature: 3 locomotion/adroit, 10 antmaze
    max_exp_advantage: float = 100.0
    tau: float = 0.005
    offline_steps: int = 1_000_000
    max_updates_per_round: int | None = None  # online: one update per new real step (CORL); None = no cap


PRESETS: dict[str, dict[str, Any]] = {  # overrides of the defaults, per scale
    "cpu": dict(encoder_preset="cpu", hidden=(128, 128), batch_size=64, offline_steps=1000, max_updates_per_round=200),
    # Sparse-success manipulation resembles adroit/antmaze more than locomotion: τ 0.8, β 3 (adroit finetune).
    "paper": dict(
        encoder_preset="paper", hidden=(256, 256), batch_size=256, expectile=0.8, beta=3.0, offline_steps=1_000_000
    ),
}
register_baseline_presets(METHOD, IQLConfig, PRESETS)


def expectile_loss(diff: torch.Tensor, expectile: float) -> torch.Tensor:
    """|τ − 1(diff < 0)|·diff², diff = target − prediction."""
    weight = torch.where(diff < 0, 1.0 - expectile, expectile)
    return (weight * diff.pow(2)).mean()


class IQLLearner:
    def __init__(self, spec: ModelSpec, cfg: IQLConfig, device: torch.device | str = "cpu"):
        self.spec, self.cfg, self.device = spec, cfg, torch.device(device)
        torch.manual_seed(cfg.seed)
        self.actor = Actor(spec, cfg).to(self.device)
        self.critic = QEnsemble(spec, cfg, NUM_QS, layer_norm=False).to(self.device)
        self.target_critic = copy.deepcopy(self.critic).requires_grad_(False)
        self.value = ValueNet(spec, cfg).to(self.device)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=cfg.lr)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=cfg.lr)
        self.value_opt = torch.optim.Adam(self.value.parameters(), lr=cfg.lr)

    def update(self, batch: dict) -> dict[str, float]:
        cfg = self.cfg
        u = self.actor.to_unit(batch["action"])
        with torch.no_grad():
            target_q = self.target_critic(batch["obs"], u).min(0).values
            next_v = self.value(batch["next_obs"])
        # 1. value: expectile of the target Q
        v = self.value(batch["obs"])
        adv = target_q - v
        v_loss = expectile_loss(adv, cfg.expectile)
        self.value_opt.zero_grad(set_to_none=True)
        v_loss.backward()
        self.value_opt.step()
        # 2-3. Q towards r + γ V(o′), then Polyak
        q_target = batch["reward"] + cfg.gamma * (1.0 - batch["done"]) * next_v
        q = self.critic(batch["obs"], u)
        q_loss = (q - q_target).pow(2).mean(1).sum() / NUM_QS
        self.critic_opt.zero_grad(set_to_none=True)
        q_loss.backward()
        self.critic_opt.step()
        polyak(self.target_critic, self.critic, cfg.tau)
        # 4. AWR actor on the advantage computed before the V step
        weight = torch.exp(cfg.beta * adv.detach()).clamp(max=cfg.max_exp_advantage)
        pi_loss = -(weight * self.actor.gaussian_log_prob(batch["obs"], u)).mean()
        self.actor_opt.zero_grad(set_to_none=True)
        pi_loss.backward()
        self.actor_opt.step()
        return {
            "value_loss": float(v_loss.detach()),
            "q_loss": float(q_loss.detach()),
            "actor_loss": float(pi_loss.detach()),
            "v_mean": float(v.mean().detach()),
        }

    def pretrain(
        self, offline: TransitionBuffer, rng: np.random.Generator, steps: int | None = None
    ) -> dict[str, float]:
        info: dict[str, float] = {}
        for step in range(self.cfg.offline_steps if steps is None else steps):
            info = self.update(offline.sample(self.cfg.batch_size, rng, self.device))
            if step % 1000 == 0:
                log.debug("iql offline step %d %s", step, info)
        return info

    def train_round(self, buffer, new_steps: int, rng: np.random.Generator) -> dict[str, float]:
        """`buffer` is anything with `.sample(batch, rng, device)`: a TransitionBuffer or a SymmetricSampler."""
        n = new_steps if self.cfg.max_updates_per_round is None else min(new_steps, self.cfg.max_updates_per_round)
        info: dict[str, float] = {}
        for _ in range(n):
            info = self.update(buffer.sample(self.cfg.batch_size, rng, self.device))
        return info

    def agent(self, explore: bool = True) -> ActorAgent:
        return ActorAgent(self.actor, explore=explore, seed=self.cfg.seed, gaussian=True)

    def modules(self) -> dict[str, torch.nn.Module]:
        return {"actor": self.actor, "critic": self.critic, "target_critic": self.target_critic, "value": self.value}

    def save(self, directory: str | Path) -> Path:
        return save_checkpoint(directory, METHOD, self.cfg, self.spec, self.modules())

    @classmethod
    def load(cls, directory: str | Path, device: torch.device | str = "cpu") -> "IQLLearner":
        cfg, spec, _ = read_checkpoint_config(directory, METHOD, IQLConfig)
        learner = cls(spec, cfg, device)
        load_weights(directory, learner.modules())
        return learner
