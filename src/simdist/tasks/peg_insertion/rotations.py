"""Yaw helpers for square profiles (peg and hole); generic rotation maths lives in
:mod:`simdist.tasks.ur5e.rotations`."""

from __future__ import annotations

import numpy as np

from simdist.tasks.ur5e.rotations import wrap_angle

# The peg and hole are square: their yaw is only defined modulo a quarter turn.
SQUARE_SYMMETRY = 4


def square_yaw_error(target_yaw: float, current_yaw: float) -> float:
    """Smallest yaw change aligning two square profiles (result in [-pi/4, pi/4))."""
    return wrap_angle(target_yaw - current_yaw, 2 * np.pi / SQUARE_SYMMETRY)


def yaw_features(yaw: float) -> np.ndarray:
    """Continuous encoding of a square's yaw: (cos 4y, sin 4y)."""
    return np.array([np.cos(SQUARE_SYMMETRY * yaw), np.sin(SQUARE_SYMMETRY * yaw)])
