"""`inverted-pendulum`: Gymnasium's InvertedPendulum-v5 as a simdist task through simdist.tasks.gymnasium.

A pole on a cart, started up to 0.25 rad off upright and off centre, must be balanced near the middle of the
track for the last 2 s of a 4 s episode. `real` has a pole 1.8× as heavy (a payload at
its tip), a motor at 0.6 of nominal strength (a worn belt) and one control step (40 ms) of latency, all outside the
simulator's randomisation; the LQR expert, which reads the true masses and gear, still balances.

    SIMDIST_TASK_MODULES=examples/inverted_pendulum/task.py simdist run inverted-pendulum --preset cpu --out runs/ip
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simdist.experts.fitted_critic import CriticFitConfig
from simdist.tasks.gymnasium import GymTaskSpec, PhysicsParam, Read, register_gym_task
from simdist.tasks.gymnasium.linear import Linearizer

SPEC = GymTaskSpec(
    name="inverted-pendulum",
    env_id="InvertedPendulum-v5",
    episode_steps=100,  # 4 s at Gymnasium's 25 Hz
    env_kwargs={"reset_noise_scale": 0.25},  # Gymnasium's own ±0.01 start is too easy to tell policies apart
    observation={"proprio": slice(0, 4)},  # [cart x, pole angle, cart speed, pole rate]
    state={
        "cart_x": Read("qpos", 0),
        "pole_angle": Read("qpos", 1),
        "cart_speed": Read("qvel", 0),
        "pole_rate": Read("qvel", 1),
    },
    physics=(
        PhysicsParam("pole_mass", "body_mass", "pole", unit="kg"),
        PhysicsParam("cart_mass", "body_mass", "cart", unit="kg"),
        PhysicsParam("gear", "actuator_gear", 0),
    ),
    randomize={"pole_mass": (0.8, 1.2), "cart_mass": (0.9, 1.1), "gear": (0.9, 1.1)},
    real={"pole_mass_scale": 1.8, "gear_scale": 0.6, "action_delay_steps": 1},
    success=lambda s: abs(s["pole_angle"]) < 0.05 and abs(s["cart_x"]) < 0.3,  # balanced near the middle
    dense_reward=lambda s, a: (
        np.cos(s["pole_angle"]) - 0.1 * s["cart_x"] ** 2 - 0.01 * s["pole_rate"] ** 2 - 0.001 * float(a @ a)
    ),
    success_hold_s=2.0,  # the episode succeeds if its last 2 s are balanced
    gamma=0.95,
)


@dataclass
class LQRPolicy:
    """LQR on the true state, designed for the true physics (or, `nominal_design`, for the model's own)."""

    task: Any
    name: str = "expert"
    q: tuple[float, float, float, float] = (1.0, 10.0, 0.1, 0.1)  # x, angle, speed, rate
    r: float = 0.1
    nominal_design: bool = False
    random_prob: float = 0.0
    lin: Linearizer = field(init=False)

    def __post_init__(self) -> None:
        self.lin, self._rng = Linearizer(self.task), np.random.default_rng(0)
        self._nominal = {
            p.name: float(v[0].reshape(-1)[p.column]) for p, v in zip(SPEC.physics, self.lin.nominal.values.values())
        }

    def reset(self, rng: np.random.Generator) -> None:
        self._rng = rng

    def act(self, privileged: np.ndarray) -> np.ndarray:
        s = self.task.layout.unpack(privileged)
        if self.random_prob and self._rng.random() < self.random_prob:
            return self._rng.uniform(-3.0, 3.0, 1).astype(np.float32)
        gain = self.lin.lqr_gain(
            {**s, **self._nominal} if self.nominal_design else s, np.diag(self.q), np.array([[self.r]])
        )
        x = np.array([s["cart_x"], s["pole_angle"], s["cart_speed"], s["pole_rate"]])
        return np.clip(-gain @ x, -3.0, 3.0).astype(np.float32)


def suboptimal(task) -> list[LQRPolicy]:
    return [
        LQRPolicy(task, "timid", r=5.0),
        LQRPolicy(task, "cart-blind", q=(0.0, 10.0, 0.0, 0.1)),
        LQRPolicy(task, "nominal-model", nominal_design=True, r=0.5),
        LQRPolicy(task, "jittery", random_prob=0.3),
    ]


register_gym_task(
    SPEC,
    expert=LQRPolicy,
    suboptimal=suboptimal,
    critic_dir=Path(__file__).with_name("critic"),
    critic_fit=CriticFitConfig(episodes=400, epochs=300),
)  # 100 / 150 sloped the wrong way near upright
