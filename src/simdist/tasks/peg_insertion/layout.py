"""Named layouts of the flat observation and privileged vectors (one source of truth for env, expert, critic)."""

from __future__ import annotations

import numpy as np

from simdist.tasks.peg_insertion.physics import SAMPLED_FIELDS


class VectorLayout:
    """Ordered named blocks of a flat vector; ``layout.slice("name")`` gives a block's position."""

    def __init__(self, blocks: list[tuple[str, int]]):
        self.blocks = tuple(blocks)
        self._slices: dict[str, slice] = {}
        start = 0
        for name, size in blocks:
            self._slices[name] = slice(start, start + size)
            start += size
        self.size = start

    def slice(self, name: str) -> slice:
        return self._slices[name]

    def get(self, vector: np.ndarray, name: str) -> np.ndarray:
        return vector[..., self._slices[name]]

    def pack(self, parts: dict[str, np.ndarray | float]) -> np.ndarray:
        missing = [name for name, _ in self.blocks if name not in parts]
        if missing:
            raise KeyError(f"missing blocks {missing}")
        return np.concatenate([np.atleast_1d(np.asarray(parts[name], dtype=np.float64)) for name, _ in self.blocks])

    def names(self) -> list[str]:
        return [name for name, _ in self.blocks]


# What a real robot with a pose-estimating perception stack would report (no exact object state).
PROPRIO = VectorLayout([
    ("joint_pos", 6),
    ("joint_vel", 6),
    ("tcp_pos", 3),
    ("tcp_rot6", 6),  # first two columns of the tool rotation matrix
    ("gripper_opening", 1),  # distance between the finger pads, m
    ("peg_pos_est", 3),  # perception estimate (noisy, biased)
    ("peg_axis_est", 3),  # estimated peg long axis (tilt)
    ("peg_yaw_est", 2),  # (cos 4y, sin 4y): a square's yaw is defined modulo 90 deg
    ("hole_pos_est", 3),  # estimated centre of the hole mouth
    ("hole_yaw_est", 2),
])

# Exact simulator state plus the episode's physics draw; only simulation domains expose it.
PRIVILEGED = VectorLayout([
    ("joint_pos", 6),
    ("joint_vel", 6),
    ("tcp_pos", 3),
    ("tcp_rot6", 6),
    ("setpoint_pos", 3),  # the integrated Cartesian set-point the controller tracks
    ("setpoint_rot6", 6),
    ("gripper_opening", 1),
    ("gripper_closing", 1),  # 1 if the last command was "close"
    ("peg_pos", 3),
    ("peg_rot6", 6),
    ("peg_linvel", 3),
    ("peg_angvel", 3),
    ("hole_pos", 3),
    ("hole_yaw", 2),  # (cos, sin) of the fixture yaw
    ("peg_fixture_force", 1),  # total normal force, N
    ("peg_pad_force", 1),
    ("physics", len(SAMPLED_FIELDS)),
])
