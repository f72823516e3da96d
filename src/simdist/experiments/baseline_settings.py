"""The methods `simdist compare` runs, and the budget, protocol and settings every method and seed of one comparison
share (one run: simdist.experiments.baseline_run)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ONLINE_METHODS = ("iql", "rlpd", "sgft")
DIFFUSION_METHODS = ("dp", "dp_cotrain")  # Diffusion Policy, without and with sim co-training
OFFLINE_METHODS = ("bc", *DIFFUSION_METHODS)
WORLD_MODEL_METHODS = ("simdist", "simdist_bc")  # Alg. 1 from a pretrained SimDist checkpoint
METHODS = (*WORLD_MODEL_METHODS, *OFFLINE_METHODS, *ONLINE_METHODS)
DEMO_METHODS = ("iql", "rlpd", "simdist_bc")  # paper §8: the 20 teleoperated demonstrations
DEMO_USERS = (*DEMO_METHODS, *DIFFUSION_METHODS)  # Diffusion Policy learns from demonstrations alone
START_POLICY_METHODS = ("bc", "iql", "rlpd")  # single-step BC, and the RL methods that start from it
MANIPULATION_DEMOS, DIFFUSION_DEMOS = 20, 100  # paper §8


@dataclass(frozen=True)
class BaselineRunConfig:
    """One baseline run's budget, protocol and settings, the same for every method and seed of a comparison."""

    real_episode_budget: int = 40
    episodes_per_update: int = 1
    episodes_per_round: int = 20
    grid: str = "default"
    preset: str = "cpu"
    demos: int | None = None  # None: the method's default (paper §8)
    checkpoint: str | Path | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    prior_weight: float | None = None
    mppi: str | None = None
    mppi_set: tuple[str, ...] = ()
    finetune_steps: int | None = None
    physics: str | Path | dict | None = None
    start_policy: str | Path | None = None
