"""RLPD (Ball et al. 2023): SAC with a LayerNorm critic ensemble, high UTD and symmetric sampling.

Faithful to `ikostrikov/rlpd` (see docs/baselines.md for sources):
  * 10 critics with LayerNorm; the TD target is the min over 2 randomly chosen target members (REDQ);
  * UTD ratio G: one update call takes G minibatches, makes G critic steps, then one actor and one
    temperature step on the last minibatch (RLPD slices one G·B batch; separate draws keep every minibatch
    exactly half offline, half online);
  * every batch is half offline (demonstrations / simulation data) and half online data;
  * entropy temperature auto-tuned to a target entropy of −A/2, entropy included in the backup;
  * the actor maximises the *mean* over all critics; done masks only true terminals.
The SAC learner here is also SGFT's learner (sgft.py), with a plain twin-critic configuration.
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
    load_weights,
    polyak,
    read_checkpoint_config,
    register_baseline_presets,
    save_checkpoint,
)
from simdist.baselines.replay import SymmetricSampler
from simdist.model.world_model import ModelSpec

log = logging.getLogger(__name__)
METHOD = "rlpd"


@dataclass(frozen=True)
class SACConfig(BaselineConfig):
    num_qs: int = 10  # critic ensemble size
    num_min_qs: int = 2  # target = min over this many random target members
    critic_layer_norm: bool = True
    utd_ratio: int = 20  # critic updates per environment step
    tau: float = 0.005  # target Polyak rate
    init_temperature: float = 1.0
    target_entropy_per_dim: float = -0.5  # target entropy = this × action_dim
    backup_entropy: bool = True
    offline_ratio: float = 0.5  # symmetric sampling
    # Update calls per collected real step; None = one (RLPD). The CPU preset caps total calls per round.
    max_updates_per_round: int | None = None
    # Update calls that fit only the critics before the actor and temperature first move: a critic fitted to the
    # start policy's own data first keeps a pretrained actor from following an untrained critic (WSRL, Zhou et al.
    # 2024). 0 = RLPD, whose actor starts from scratch.
    critic_warmup_updates: int = 0
    # The actor's learning rate where it differs from `lr`: Adam's normalised steps move a pretrained actor by about
    # lr per weight per step whatever the critic's gradient scale, so a start policy may want a smaller one.
    actor_lr: float | None = None
    # Weight of a pull toward the start policy in the actor loss (0 = RLPD): anchor_weight × mean|Q| × the mean
    # squared difference of the actor's and the start policy's deterministic actions (unit box). TD3+BC's scale-free
    # form (Fujimoto & Gu 2021; their α = 2.5 is anchor_weight 0.4) with the actor as it was at its first update,
    # not the data's actions, as the reference.
    anchor_weight: float = 0.0


PRESETS: dict[str, dict[str, Any]] = {  # overrides of the defaults, per scale
    "cpu": dict(encoder_preset="cpu", hidden=(128, 128), batch_size=64, utd_ratio=4, max_updates_per_round=100),
    "paper": dict(encoder_preset="paper", hidden=(256, 256), batch_size=256, utd_ratio=20),
}
register_baseline_presets(METHOD, SACConfig, PRESETS)


class SACLearner:
    method = METHOD
    config_cls: type[SACConfig] = SACConfig

    def __init__(self, spec: ModelSpec, cfg: SACConfig, device: torch.device | str = "cpu"):
        if cfg.num_min_qs > cfg.num_qs:
            raise ValueError(f"num_min_qs {cfg.num_min_qs} exceeds the ensemble size num_qs {cfg.num_qs}")
        self.spec, self.cfg, self.device = spec, cfg, torch.device(device)
        torch.manual_seed(cfg.seed)
        self.actor = Actor(spec, cfg).to(self.device)
        self.critic = QEnsemble(spec, cfg, cfg.num_qs, cfg.critic_layer_norm).to(self.device)
        self.target_critic = copy.deepcopy(self.critic).requires_grad_(False)
        self.log_alpha = torch.nn.Parameter(torch.tensor(float(np.log(cfg.init_temperature)), device=self.device))
        self.target_entropy = cfg.target_entropy_per_dim * spec.action_dim
        actor_lr = cfg.lr if cfg.actor_lr is None else cfg.actor_lr
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=actor_lr)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=cfg.lr)
        self.alpha_opt = torch.optim.Adam([self.log_alpha], lr=cfg.lr)
        self.generator = torch.Generator(device="cpu").manual_seed(cfg.seed)
        self.updates = 0  # update calls so far (critic warm-up)
        self.anchor: Actor | None = None  # the start policy, frozen at the first actor update (anchor_weight > 0)

    @property
    def alpha(self) -> torch.Tensor:
        return self.log_alpha.exp().detach()

    def critic_loss(self, batch: dict) -> tuple[torch.Tensor, dict[str, float]]:
        cfg = self.cfg
        with torch.no_grad():
            next_u, next_logp = self.actor.sample(batch["next_obs"])
            members = torch.randperm(cfg.num_qs, generator=self.generator)[: cfg.num_min_qs].to(self.device)
            next_q = self.target_critic(batch["next_obs"], next_u)[members].min(0).values
            if cfg.backup_entropy:
                next_q = next_q - self.alpha * next_logp
            target = batch["reward"] + cfg.gamma * (1.0 - batch["done"]) * next_q
        q = self.critic(batch["obs"], self.actor.to_unit(batch["action"]))
        loss = (q - target).pow(2).mean(1).sum()  # each member fits the same target
        return loss, {"critic_loss": float(loss.detach()) / cfg.num_qs, "q_mean": float(q.mean().detach())}

    def actor_loss(self, batch: dict) -> tuple[torch.Tensor, torch.Tensor, dict[str, float]]:
        u, logp = self.actor.sample(batch["obs"])
        q = self.critic(batch["obs"], u).mean(0)
        loss = (self.alpha * logp - q).mean()
        info = {"actor_loss": float(loss.detach()), "entropy": float(-logp.mean().detach())}
        if self.cfg.anchor_weight > 0:
            if self.anchor is None:
                self.anchor = copy.deepcopy(self.actor).requires_grad_(False)
            with torch.no_grad():
                reference = self.anchor.mode(batch["obs"])
            shift = (self.actor.mode(batch["obs"]) - reference).pow(2).mean()
            loss = loss + self.cfg.anchor_weight * q.abs().mean().detach() * shift
            info["anchor_shift"] = float(shift.detach())
        return loss, logp.detach(), info

    def update(self, batches: list[dict]) -> dict[str, float]:
        """One RLPD update: a critic step on each of the utd_ratio minibatches, then actor and α on the last
        (critics only during the first `critic_warmup_updates` calls)."""
        cfg = self.cfg
        info: dict[str, float] = {}
        for mini in batches:
            loss, info = self.critic_loss(mini)
            self.critic_opt.zero_grad(set_to_none=True)
            loss.backward()
            self.critic_opt.step()
            polyak(self.target_critic, self.critic, cfg.tau)
        self.updates += 1
        if self.updates <= cfg.critic_warmup_updates:
            return {**info, "alpha": float(self.alpha)}
        self.critic.requires_grad_(False)  # the actor step must not move the critics
        a_loss, logp, a_info = self.actor_loss(mini)
        self.actor_opt.zero_grad(set_to_none=True)
        a_loss.backward()
        self.actor_opt.step()
        self.critic.requires_grad_(True)
        alpha_loss = -(self.log_alpha * (logp + self.target_entropy)).mean()
        self.alpha_opt.zero_grad(set_to_none=True)
        alpha_loss.backward()
        self.alpha_opt.step()
        return {**info, **a_info, "alpha": float(self.alpha)}

    def train_round(self, sampler: SymmetricSampler, new_steps: int, rng: np.random.Generator) -> dict[str, float]:
        """Updates after a round of collection: one per new real step (capped by max_updates_per_round)."""
        n = new_steps if self.cfg.max_updates_per_round is None else min(new_steps, self.cfg.max_updates_per_round)
        info: dict[str, float] = {}
        for _ in range(n):
            minibatches = [sampler.sample(self.cfg.batch_size, rng, self.device) for _ in range(self.cfg.utd_ratio)]
            info = self.update(minibatches)
        return info

    def agent(self, explore: bool = True) -> ActorAgent:
        return ActorAgent(self.actor, explore=explore, seed=self.cfg.seed)

    def modules(self) -> dict[str, torch.nn.Module]:
        return {"actor": self.actor, "critic": self.critic, "target_critic": self.target_critic}

    def save(self, directory: str | Path) -> Path:
        return save_checkpoint(
            directory, self.method, self.cfg, self.spec, self.modules(), {"log_alpha": float(self.log_alpha.detach())}
        )

    @classmethod
    def load(cls, directory: str | Path, device: torch.device | str = "cpu"):
        cfg, spec, meta = read_checkpoint_config(directory, cls.method, cls.config_cls)
        learner = cls(spec, cfg, device)
        load_weights(directory, learner.modules())
        learner.log_alpha.data.fill_(meta["log_alpha"])
        return learner


RLPDLearner = SACLearner
