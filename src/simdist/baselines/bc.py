"""Single-step behaviour cloning: an MLP head on SimDist's encoder regresses the expert's action.

Trained on the expert-flagged transitions of the simulation dataset (uncorrupted expert actions only, as
SimDist's BC term is masked). It is a baseline in itself and the starting policy of the quadruped RL
baselines. Loss: MSE between tanh(mean) and the expert action, in unit action space.
"""

from __future__ import annotations

import dataclasses
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
    load_weights,
    read_checkpoint_config,
    register_baseline_presets,
    save_checkpoint,
)
from simdist.baselines.replay import SymmetricSampler, TransitionBuffer, sparse_success
from simdist.data.episodes import Episode, episode_files, read_episode_file, read_info
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


PRESETS: dict[str, dict[str, Any]] = {  # overrides of the defaults, per scale
    "cpu": dict(encoder_preset="cpu", hidden=(128, 128), lr=1e-3, batch_size=128, steps=1000),
    "paper": dict(encoder_preset="paper", hidden=(256, 256), lr=3e-4, batch_size=256, steps=100_000),
}
register_baseline_presets(METHOD, BCConfig, PRESETS)


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

    def save(self, directory: str | Path, extra: dict[str, Any] | None = None) -> Path:
        return save_checkpoint(directory, METHOD, self.cfg, self.spec, {"actor": self.actor}, extra)

    @classmethod
    def load(cls, directory: str | Path, device: torch.device | str = "cpu") -> "BCLearner":
        cfg, spec, _ = read_checkpoint_config(directory, METHOD, BCConfig)
        learner = cls(spec, cfg, device)
        load_weights(directory, {"actor": learner.actor})
        return learner


# ------------------------------------------------------------------------------------------ DAgger (simdist dagger)
def dagger_labels(episodes: list[Episode]) -> TransitionBuffer:
    """The expert's labels on the states the policy reached (`Episode.expert_action`) as the actions to clone: a
    single-step policy sees no history, so the executed actions play no part."""
    labelled = [dataclasses.replace(e, action=e.expert_action) for e in episodes if e.expert_action is not None]
    if not labelled:
        raise ValueError("no DAgger labels (Episode.expert_action) in these episodes")
    return TransitionBuffer.from_episodes(labelled, sparse_success, expert_only=True)


def retrain_on_labels(
    start: str | Path,
    labels: TransitionBuffer,
    sim: TransitionBuffer,
    out: str | Path,
    *,
    steps: int,
    lr: float,
    lr_end: float,
    batch_size: int,
    replay_fraction: float,
    seed: int,
    sensor_noise_scale: float | None = None,
) -> BCLearner:
    """DAgger's update of a single-step BC policy: continue from checkpoint `start` on `labels`, with
    `replay_fraction` of every batch from the simulation expert data `sim` (so that it keeps what it had) and the
    learning rate falling linearly from `lr` to `lr_end`; saved to `out`. `sensor_noise_scale` (when given) adds that
    × the task's sensor noise to the inputs, as SimDist's head gets in `simdist dagger`'s last stage."""
    previous = BCLearner.load(start)
    noise = {} if sensor_noise_scale is None else {"sensor_noise_scale": sensor_noise_scale}
    cfg = dataclasses.replace(previous.cfg, lr=lr, batch_size=batch_size, seed=seed, **noise)
    learner = BCLearner(previous.spec, cfg, previous.device)
    learner.actor.load_state_dict(previous.actor.state_dict())
    schedule = torch.optim.lr_scheduler.LinearLR(learner.optimizer, 1.0, lr_end / lr, total_iters=steps)
    sampler, rng = SymmetricSampler(sim, labels, replay_fraction), np.random.default_rng(seed)
    info: dict[str, float] = {}
    for _ in range(steps):
        info = learner.update(sampler.sample(batch_size, rng, learner.device))
        schedule.step()
    log.info(
        "BC retrained %d steps on %d labels (+ %d sim transitions): loss %.4f",
        steps,
        len(labels),
        len(sim),
        info.get("bc_loss", float("nan")),
    )
    learner.save(out)
    return learner


def sim_expert_transitions(sim_data: str | Path) -> TransitionBuffer:
    """The simulation dataset's uncorrupted expert transitions, what single-step BC is trained on, read file by file
    so that the other transitions never sit in memory (the quadruped dataset: 10 GB whole)."""
    info, parts = read_info(sim_data), []
    for path in episode_files(sim_data):
        episodes = [e for e in read_episode_file(path, info) if len(e) > 1]
        if episodes:
            parts.append(TransitionBuffer.from_episodes(episodes, sparse_success, expert_only=True))
    if not parts:
        raise ValueError(f"{sim_data} holds no episode of two or more steps")
    return parts[0].extend(*parts[1:]) if len(parts) > 1 else parts[0]
