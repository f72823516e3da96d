"""Named layouts of the flat observation and privileged vectors (one source of truth for env, expert, critic)."""

from __future__ import annotations

import numpy as np

from simdist.tasks.peg_insertion.physics import SAMPLED_FIELDS
from simdist.tasks.ur5e.layout import ROBOT_PRIVILEGED_BLOCKS, ROBOT_PROPRIO_BLOCKS, VectorLayout

# Scale of the saturating relative-position feature: millimetre errors map to ~0.1, far ones saturate at +-1.
FINE_SCALE_M = 0.01

# Relative features derived from the estimates above them (no new information): a perception stack reports them
# directly, and without them a network must resolve millimetre differences of two ~0.2 m-wide inputs. Measured:
# without them the BC head carried the peg to within 13 mm of the hole and stalled there (docs/tasks/peg-insertion.md).
RELATIVE_BLOCKS: list[tuple[str, int]] = [
    ("tcp_to_peg_est", 3),  # tcp_pos - peg_pos_est
    ("peg_to_hole_est", 3),  # peg_pos_est - hole_pos_est
    ("peg_to_hole_fine", 3),  # tanh((peg_pos_est - hole_pos_est) / FINE_SCALE_M)
    ("yaw_error_est", 2),  # (cos, sin) of 4 (peg yaw - hole yaw)
]

# What a real robot with a pose-estimating perception stack would report (no exact object state).
PROPRIO = VectorLayout(
    ROBOT_PROPRIO_BLOCKS
    + [
        ("peg_pos_est", 3),  # perception estimate (noisy, biased)
        ("peg_axis_est", 3),  # estimated peg long axis (tilt)
        ("peg_yaw_est", 2),  # (cos 4y, sin 4y): a square's yaw is defined modulo 90 deg
        ("hole_pos_est", 3),  # estimated centre of the hole mouth
        ("hole_yaw_est", 2),
    ]
    + RELATIVE_BLOCKS
)


def relative_features(tcp_pos, peg_pos_est, peg_yaw_est, hole_pos_est, hole_yaw_est) -> dict[str, np.ndarray]:
    """The RELATIVE_BLOCKS from the absolute estimates; works on single vectors and on (..., k) batches."""
    peg_to_hole = np.asarray(peg_pos_est) - np.asarray(hole_pos_est)
    cp, sp = peg_yaw_est[..., 0], peg_yaw_est[..., 1]
    ch, sh = hole_yaw_est[..., 0], hole_yaw_est[..., 1]
    return {
        "tcp_to_peg_est": np.asarray(tcp_pos) - np.asarray(peg_pos_est),
        "peg_to_hole_est": peg_to_hole,
        "peg_to_hole_fine": np.tanh(peg_to_hole / FINE_SCALE_M),
        "yaw_error_est": np.stack([cp * ch + sp * sh, sp * ch - cp * sh], axis=-1),
    }


def aligned_tcp_xy(tcp_pos, peg_to_hole_est) -> np.ndarray:
    """Where the tool would put the peg over the hole (x, y), as perceived: the carry frame's origin."""
    return (np.asarray(tcp_pos) - np.asarray(peg_to_hole_est))[..., :2]


# Exact simulator state plus the episode's physics draw; only simulation domains expose it.
PRIVILEGED = VectorLayout(
    ROBOT_PRIVILEGED_BLOCKS
    + [
        ("peg_pos", 3),
        ("peg_rot6", 6),
        ("peg_linvel", 3),
        ("peg_angvel", 3),
        ("hole_pos", 3),
        ("hole_yaw", 2),  # (cos, sin) of the fixture yaw
        ("peg_fixture_force", 1),  # total normal force, N
        ("peg_pad_force", 1),
        ("physics", len(SAMPLED_FIELDS)),
    ]
)
