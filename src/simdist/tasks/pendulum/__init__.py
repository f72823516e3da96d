"""`pendulum`: the tiny built-in inverted-pendulum task (see env.py and physics.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from simdist.experts.fitted_critic import CriticFitConfig, MLPCritic
from simdist.tasks.base import TaskSpec, check_domain, domain_physics
from simdist.tasks.pendulum import experts
from simdist.tasks.pendulum.env import PendulumEnv, sample_initial_condition
from simdist.tasks.pendulum.physics import REAL, SIM, PendulumPhysics
from simdist.tasks.registry import register

CRITIC_DIR = Path(__file__).parent
SUCCESS_WINDOW_S = 1.0  # the episode succeeds when the last second is all upright
CRITIC_FIT = CriticFitConfig(episodes=150, epochs=200)


class PendulumTask:
    spec = TaskSpec(
        name="pendulum",
        obs_shapes={"proprio": (3,)},
        action_dim=1,
        action_low=(-1.0,),
        action_high=(1.0,),
        control_period_s=SIM.control_period_s,
        episode_steps=40,
        gamma=0.95,
    )
    physics_type = PendulumPhysics
    generation_preset = "manipulation"
    grids = ("default",)

    def default_physics(self, domain: str) -> PendulumPhysics:
        return {"sim": SIM, "real": REAL}[check_domain(domain)]

    def make_env(self, domain: str, physics: PendulumPhysics | dict | str | None = None, seed: int = 0) -> PendulumEnv:
        phys = domain_physics(self, domain, physics)
        return PendulumEnv(domain, phys, self.spec.episode_steps, seed)

    def expert(self) -> experts.EnergyPDPolicy:
        return experts.expert()

    def suboptimal_policies(self) -> list[experts.EnergyPDPolicy]:
        return experts.suboptimal_policies()

    def critic(self) -> MLPCritic:
        if not (CRITIC_DIR / "critic.safetensors").exists():
            raise FileNotFoundError(
                f"no fitted critic in {CRITIC_DIR}; run `python -m simdist.tasks.pendulum.fit_critic`"
            )
        return MLPCritic.load(CRITIC_DIR)

    def initial_conditions(self, grid: str, n: int, seed: int = 0) -> list[Any]:
        if grid not in self.grids:
            raise KeyError(f"unknown grid {grid!r}; valid grids: {list(self.grids)}")
        rng = np.random.default_rng(seed)
        return [sample_initial_condition(rng) for _ in range(n)]

    def episode_metrics(self, infos: list[dict]) -> dict[str, float]:
        window = max(1, round(SUCCESS_WINDOW_S / self.spec.control_period_s))
        upright = [bool(i["success"]) for i in infos]
        return {
            "success": float(len(upright) >= window and all(upright[-window:])),
            "upright_fraction": float(np.mean(upright)) if upright else 0.0,
        }


register("pendulum", PendulumTask)
