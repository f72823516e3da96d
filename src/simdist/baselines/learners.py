"""Building each baseline's learner from the simulation data (and demonstrations) before its real episodes.

`simdist.experiments.baseline_run` owns the protocol (rounds, budget, evaluation); this module owns what each method
starts from: single-step BC and Diffusion Policy trained offline, IQL's value pretrained in sim, RLPD's prior data,
SGFT's V_sim, and the rewards the online methods learn from (sparse success in manipulation, SimDist's learned reward on
the quadruped).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from simdist.baselines.bc import BCConfig, BCLearner
from simdist.baselines.common import set_normalizer_stats
from simdist.baselines.diffusion_policy import ChunkDataset, DiffusionConfig, DiffusionLearner
from simdist.baselines.iql import IQLConfig, IQLLearner
from simdist.baselines.replay import (
    SymmetricSampler,
    TransitionBuffer,
    cached_transitions,
    concat_batches,
    sparse_success,
    world_model_reward,
)
from simdist.baselines.rlpd import SACConfig, SACLearner
from simdist.baselines.sgft import SGFTConfig, SGFTLearner, SimValue
from simdist.data.episodes import Episode
from simdist.tasks.base import COMMAND_KEY
from simdist.training.checkpoint import load_model

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LearnerSetup:
    """One method's presets: `overrides` replaces config fields by name (in the method's config and in its BC
    initialisation); `setting` is "manipulation" or "quadruped" (paper §8)."""

    spec: Any
    preset: str
    gamma: float
    seed: int
    overrides: dict[str, Any]
    setting: str

    def config(self, cls, **extra):
        fields = {k: v for k, v in {**self.overrides, **extra}.items() if k in cls.__dataclass_fields__}
        return cls.preset(self.preset, gamma=self.gamma, seed=self.seed, **fields)

    def train_bc(self, sim_eps: list[Episode], sim_stats: dict) -> BCLearner:
        """Single-step BC on the expert's uncorrupted actions in the simulation data."""
        bc = BCLearner(self.spec, self.config(BCConfig))
        set_normalizer_stats([bc.actor], sim_stats)
        bc.train(TransitionBuffer.from_episodes(sim_eps, sparse_success, expert_only=True))
        return bc

    def train_diffusion(
        self, sim_eps: list[Episode], sim_stats: dict, demo_eps: list[Episode], cotrain: bool
    ) -> DiffusionLearner:
        """Diffusion Policy on the demonstrations, with the simulation expert data alongside when `cotrain`."""
        if not demo_eps:
            raise ValueError("Diffusion Policy needs demonstrations (demos > 0)")
        cfg = self.config(DiffusionConfig, cotrain_sim=cotrain)
        learner = DiffusionLearner(self.spec, cfg)
        set_normalizer_stats([learner.policy], sim_stats)
        sim = ChunkDataset(sim_eps, cfg.chunk, expert_only=True) if cotrain else None
        learner.train(ChunkDataset(demo_eps, cfg.chunk), sim)
        return learner

    def start_from_bc(self, learner, sim_eps, sim_stats, start_policy: Path | None = None) -> None:
        """The RL actor becomes the single-step BC policy (trained here on the simulation data, or `start_policy`),
        exploring around it with `bc_start_std`."""
        bc = self.train_bc(sim_eps, sim_stats) if start_policy is None else BCLearner.load(start_policy)
        try:
            learner.actor.load_state_dict(bc.actor.state_dict())
        except RuntimeError as e:  # another encoder preset or head width than this learner's
            raise ValueError(
                f"the start policy's actor does not fit the {type(learner).__name__} actor (train it "
                f"with the same preset and hidden widths): {e}"
            ) from None
        learner.actor.set_constant_std(learner.cfg.bc_start_std)

    def online(self, method: str, sim_eps, sim_stats, demo_eps, reward_fn, start_policy=None, label_key=None):
        """IQL, RLPD or SGFT ready for real episodes: the learner, its sampler, and the per-transition reward
        transform (identity except SGFT's shaping)."""
        rng = np.random.default_rng(self.seed)
        sim = cached_transitions(sim_eps, reward_fn, label_key)
        demo = TransitionBuffer.from_episodes(demo_eps, reward_fn, expert_default=True) if demo_eps else None
        identity: Callable = lambda transitions: transitions  # noqa: E731
        from_bc = self.setting == "quadruped" or start_policy  # the paper's quadruped baselines start from BC
        if method == "iql":  # value (and policy) pretrained offline in sim, plus the demonstrations
            learner = IQLLearner(self.spec, self.config(IQLConfig))
            set_normalizer_stats(list(learner.modules().values()), sim_stats)
            if from_bc:
                self.start_from_bc(learner, sim_eps, sim_stats, start_policy)
            offline = sim if demo is None else sim.extend(demo)
            learner.pretrain(offline, rng)
            return learner, UniformSampler(offline), identity
        if method == "rlpd":  # prior data: the demonstrations, or the simulation data where there are none
            learner = SACLearner(self.spec, self.config(SACConfig))
            set_normalizer_stats(list(learner.modules().values()), sim_stats)
            if from_bc:
                self.start_from_bc(learner, sim_eps, sim_stats, start_policy)
            offline = demo if demo is not None else sim
            return learner, SymmetricSampler(offline, empty_buffer(self.spec), learner.cfg.offline_ratio), identity
        if method != "sgft":
            raise KeyError(f"unknown online method {method!r}; valid: ['iql', 'rlpd', 'sgft']")
        # SGFT: a fresh SAC learner on shaped online rewards; V_sim fitted to the simulation critic labels
        cfg = self.config(SGFTConfig)
        learner, value = SGFTLearner(self.spec, cfg), SimValue(self.spec, cfg)
        set_normalizer_stats([*learner.modules().values(), value.net], sim_stats)
        loss = value.fit(sim, cfg.value_fit_steps, rng)
        log.info("SGFT: V_sim fitted to the simulation value labels, final MSE %.4f", loss)
        return (
            learner,
            SymmetricSampler(None, empty_buffer(self.spec), 0.0),
            lambda transitions: learner.shape(transitions, value),
        )


class UniformSampler:
    """IQL's single buffer: offline data followed by the online data, sampled uniformly over the union (CORL). The
    online part grows on its own, so the offline data (7.6 GB of quadruped transitions) is never copied."""

    def __init__(self, buffer: TransitionBuffer):
        self.offline, self.online = buffer, None

    def add_online(self, transitions: TransitionBuffer) -> None:
        self.online = transitions if self.online is None else self.online.extend(transitions)

    def sample(self, batch_size: int, rng: np.random.Generator, device="cpu") -> dict:
        n_online = (
            0
            if self.online is None
            else int(rng.binomial(batch_size, len(self.online) / (len(self.offline) + len(self.online))))
        )
        parts = [
            buffer.sample(n, rng, device)
            for buffer, n in ((self.offline, batch_size - n_online), (self.online, n_online))
            if n
        ]
        return parts[0] if len(parts) == 1 else concat_batches(*parts)


def empty_buffer(spec) -> TransitionBuffer:
    groups = dict(spec.obs_shapes, **({COMMAND_KEY: (spec.command_dim,)} if spec.command_dim else {}))
    return TransitionBuffer.empty(groups, spec.action_dim)


def reward_function(setting: str, checkpoint: str | Path | None):
    """Sparse success in manipulation; SimDist's learned reward model in the quadruped setting."""
    if setting == "manipulation":
        return sparse_success
    if checkpoint is None:
        raise ValueError("quadruped baselines use SimDist's learned reward: pass checkpoint=...")
    return world_model_reward(load_model(checkpoint))


def label_key(sim_data_dir, checkpoint) -> tuple:
    """What the learned-reward labels of the simulation data depend on (the files as they are now)."""
    stamp = lambda path: (str(path.resolve()), path.stat().st_mtime_ns, path.stat().st_size)  # noqa: E731
    return stamp(Path(sim_data_dir) / "dataset.json"), stamp(Path(checkpoint) / "model.safetensors")
