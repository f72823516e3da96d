"""Named layouts of the flat observation and privileged vectors (one source of truth for env, expert, critic)."""

from __future__ import annotations

from simdist.tasks.table_leg.physics import SAMPLED_FIELDS
from simdist.tasks.ur5e.layout import ROBOT_PRIVILEGED_BLOCKS, ROBOT_PROPRIO_BLOCKS, VectorLayout

# What a real robot with a pose-estimating perception stack (e.g. FurnitureBench's AprilTags) would report.
PROPRIO = VectorLayout(
    ROBOT_PROPRIO_BLOCKS
    + [
        ("leg_pos_est", 3),  # perceived shoulder of the leg (where the stud starts): noisy, biased
        ("leg_axis_est", 3),  # perceived leg axis (tilt)
        ("leg_yaw_est", 2),  # (cos, sin) of the perceived leg yaw (a marker on the leg shows its turning)
        ("hole_pos_est", 3),  # perceived centre of the hole mouth
        ("tabletop_yaw_est", 2),
    ]
)

# Exact simulator state plus the episode's physics draw; only simulation domains expose it.
PRIVILEGED = VectorLayout(
    ROBOT_PRIVILEGED_BLOCKS
    + [
        ("leg_pos", 3),  # shoulder of the leg
        ("leg_rot6", 6),
        ("leg_linvel", 3),
        ("leg_angvel", 3),
        ("hole_pos", 3),
        ("hole_yaw", 2),  # (cos, sin) of the tabletop yaw
        ("thread_engaged", 1),
        ("thread_cross_threaded", 1),
        ("thread_turns", 1),  # turns since the thread caught (seated at physics.seated_turns)
        ("thread_start_turns_left", 1),  # turning still needed in the lead-in before the thread catches
        ("leg_tabletop_force", 1),  # total normal force, N
        ("leg_pad_force", 1),
        ("physics", len(SAMPLED_FIELDS)),
    ]
)
