"""Named layouts of the flat observation and privileged vectors (one source of truth for env, expert, critic)."""

from __future__ import annotations

from simdist.tasks.peg_insertion.physics import SAMPLED_FIELDS
from simdist.tasks.ur5e.layout import ROBOT_PRIVILEGED_BLOCKS, ROBOT_PROPRIO_BLOCKS, VectorLayout

# What a real robot with a pose-estimating perception stack would report (no exact object state).
PROPRIO = VectorLayout(ROBOT_PROPRIO_BLOCKS + [
    ("peg_pos_est", 3),  # perception estimate (noisy, biased)
    ("peg_axis_est", 3),  # estimated peg long axis (tilt)
    ("peg_yaw_est", 2),  # (cos 4y, sin 4y): a square's yaw is defined modulo 90 deg
    ("hole_pos_est", 3),  # estimated centre of the hole mouth
    ("hole_yaw_est", 2),
])

# Exact simulator state plus the episode's physics draw; only simulation domains expose it.
PRIVILEGED = VectorLayout(ROBOT_PRIVILEGED_BLOCKS + [
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
