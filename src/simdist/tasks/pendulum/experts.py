"""Privileged pendulum policies: an energy-shaping swing-up with a PD balancer (the expert) and degraded
variants that span success rates from 0 to the expert's (the sub-optimal policies of Alg. 2).

They read the privileged state [θ, θ̇, mass, length, damping, max_torque], so they use the true physics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simdist.tasks.pendulum.env import GRAVITY


@dataclass
class EnergyPDPolicy:
    name: str = "expert"
    energy_gain: float = 2.0  # swing-up gain on the energy error
    kp: float = 3.0  # balance gains, multiples of m·g·l (so they scale with the true bob)
    kd: float = 0.6
    balance_angle: float = 0.5  # rad: switch from swing-up to PD inside this cone
    bias: float = 0.0  # constant action offset (a miscalibrated motor)
    random_prob: float = 0.0  # chance per step of a uniformly random action
    _rng: np.random.Generator | None = None

    def reset(self, rng: np.random.Generator) -> None:
        self._rng = rng

    def act(self, privileged: np.ndarray) -> np.ndarray:
        theta, theta_dot, mass, length, damping, max_torque = (float(v) for v in privileged[:6])
        if self._rng is not None and self.random_prob and self._rng.random() < self.random_prob:
            return self._rng.uniform(-1.0, 1.0, 1).astype(np.float32)
        mgl = mass * GRAVITY * length
        if abs(theta) < self.balance_angle:
            torque = -self.kp * mgl * theta - self.kd * mgl * theta_dot + damping * theta_dot
        else:
            energy = 0.5 * mass * length**2 * theta_dot**2 + mgl * (np.cos(theta) - 1.0)  # 0 when upright at rest
            torque = self.energy_gain * (-energy) * np.sign(theta_dot if abs(theta_dot) > 1e-3 else 1.0)
            torque += damping * theta_dot
        action = np.clip(torque / max_torque + self.bias, -1.0, 1.0)
        return np.array([action], np.float32)


def expert() -> EnergyPDPolicy:
    return EnergyPDPolicy()


def suboptimal_policies() -> list[EnergyPDPolicy]:
    return [
        EnergyPDPolicy(name="no-balance", balance_angle=0.0),
        EnergyPDPolicy(name="sluggish", kp=1.0, kd=0.05),
        EnergyPDPolicy(name="biased", bias=0.5, kp=1.5),
        EnergyPDPolicy(name="jittery", random_prob=0.3),
        EnergyPDPolicy(name="overdamped", kp=1.2, kd=1.2),
    ]
