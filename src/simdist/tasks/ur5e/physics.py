"""Sampling of a task's physics dataclass: every ``*_range`` field is a ``(low, high)`` pair drawn per episode.

Each task keeps its own dataclass (its fields and defaults, in the order its privileged ``physics`` block and
shipped critic expect); only the sampling rules are shared.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

Range = tuple[float, float]

# Sim-to-real gap groups (simdist.tasks.gaps) that every UR5e task shares: the arm and the pose estimate's position.
ARM_GAP_FIELDS = (
    "joint_stiffness_scale_range",
    "joint_damping_ratio_range",
    "arm_mass_scale_range",
    "gravity_compensation_range",
    "actuation_latency_range_s",
)
PERCEPTION_POSITION_GAP_FIELDS = ("perception_position_noise_range_m", "perception_position_bias_range_m")


def sampled_fields(physics_type: type) -> tuple[str, ...]:
    """The (low, high) fields of ``physics_type``, in declaration order (the privileged vector's order)."""
    return tuple(f.name for f in dataclasses.fields(physics_type) if isinstance(f.default, tuple))


@dataclass(frozen=True)
class SampledPhysics:
    """One draw of every randomised parameter (what an episode actually runs with)."""

    values: dict[str, float]  # in sampled_fields order

    def __getitem__(self, name: str) -> float:
        return self.values[name]

    def as_vector(self) -> np.ndarray:
        return np.array(list(self.values.values()), dtype=np.float64)


def sample_ranges(physics, fields: tuple[str, ...], rng: np.random.Generator) -> SampledPhysics:
    """Uniform draw of each field; a degenerate pair ``(x, x)`` fixes the value without using the generator."""
    values = {}
    for name in fields:
        low, high = getattr(physics, name)
        if low > high:
            raise ValueError(f"physics range {name} has low > high: {(low, high)}")
        values[name] = float(rng.uniform(low, high)) if high > low else float(low)
    return SampledPhysics(values)
