"""Named layouts of flat vectors, and the robot blocks every UR5e task's observation and privileged state start with."""

from __future__ import annotations

import numpy as np


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


# The robot's own state, first in every task's observation (encoders and forward kinematics).
ROBOT_PROPRIO_BLOCKS: list[tuple[str, int]] = [
    ("joint_pos", 6),
    ("joint_vel", 6),
    ("tcp_pos", 3),
    ("tcp_rot6", 6),  # first two columns of the tool rotation matrix
    ("gripper_opening", 1),  # distance between the finger pads, m
]

# The robot's exact state and the controller's internals, first in every task's privileged vector.
ROBOT_PRIVILEGED_BLOCKS: list[tuple[str, int]] = [
    ("joint_pos", 6),
    ("joint_vel", 6),
    ("tcp_pos", 3),
    ("tcp_rot6", 6),
    ("setpoint_pos", 3),  # the integrated Cartesian set-point the controller tracks
    ("setpoint_rot6", 6),
    ("gripper_opening", 1),
    ("gripper_closing", 1),  # 1 if the last command was "close"
]
