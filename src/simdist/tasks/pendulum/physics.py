"""Pendulum balance physics for both domains: the one place these numbers live.

`sim` randomises mass, damping and motor strength around nominal values at every reset. `real` has a
stronger motor (1.5× nominal, outside the randomised ±10 %) acting 60 ms late (the simulator has no latency):
a sim-trained planner overshoots and oscillates, but the task stays as feasible as in simulation, so the
expert's value function remains a valid guide once the dynamics are adapted.
Override any field from a JSON/YAML file with `--physics FILE` (see simdist.tasks.base.domain_physics).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PendulumPhysics:
    mass: float = 1.0  # bob mass, kg (point mass at the tip)
    length: float = 0.5  # pole length, m
    damping: float = 0.05  # joint viscous damping, N·m·s/rad
    max_torque: float = 4.0  # motor torque at |action| = 1, N·m (m·g·l ≈ 4.9 N·m: it cannot hold any angle)
    actuator_delay_s: float = 0.0  # command latency, applied in physics steps
    timestep_s: float = 0.01  # physics step
    control_period_s: float = 0.1  # 10 Hz control
    obs_noise_std: float = 0.01  # Gaussian noise on every observation entry
    # Domain randomisation, re-drawn at each reset as multipliers of the nominal values (sim only).
    mass_scale_range: tuple[float, float] = (0.8, 1.2)
    damping_scale_range: tuple[float, float] = (0.5, 1.5)
    torque_scale_range: tuple[float, float] = (0.9, 1.1)


SIM = PendulumPhysics()
REAL = PendulumPhysics(
    mass=1.1,
    damping=0.1,
    max_torque=6.0,
    actuator_delay_s=0.06,
    mass_scale_range=(1.0, 1.0),
    damping_scale_range=(1.0, 1.0),
    torque_scale_range=(1.0, 1.0),
)
