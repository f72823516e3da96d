"""The wrist camera's pose estimates of the peg and the hole (docs/tasks/peg-insertion-calibration.md, "Perception").

The camera sits at the tool flange, looking along the tool axis, as the paper's wrist camera does. Two errors:

- per reading, Gaussian noise whose standard deviation grows with the camera-to-object distance: AprilTag pose
  precision of the Roboception rc_visard, 0.4 mm laterally at 0.3 m and 0.7 mm at 1.0 m (manual, Table 7.3.4),
  linear between them (a camera with another near figure scales with it); closer than 0.3 m the 0.3 m figure is kept
  (nothing published nearer);
- per episode, a hand-eye calibration error: a translation and a small rotation of the camera frame, fixed in the
  flange frame. The rotation moves an estimate by (rotation x range), so it grows with the distance too. Its size
  is the physics' (real: 0.28 mm and 0.25 deg, the errors a UR e-Series hand-eye calibration converges below,
  arXiv 2407.16041, taken as the RMS of the 3-D error).

The controller reads the camera distance from its tool pose, as a cell program would.
"""

from __future__ import annotations

import numpy as np

from simdist.tasks.ur5e.robot import GRIPPER
from simdist.tasks.ur5e.rotations import cross3

NEAR_RANGE_M, FAR_RANGE_M = 0.3, 1.0  # the rc_visard figures' distances
NEAR_NOISE_M, FAR_NOISE_M = 0.0004, 0.0007  # lateral precision at those distances
NOISE_GROWTH_PER_M = (FAR_NOISE_M - NEAR_NOISE_M) / (FAR_RANGE_M - NEAR_RANGE_M)  # 0.43 mm per metre


def camera_pose(tcp_pos: np.ndarray, tcp_rot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The wrist camera's position and frame: the flange, the tool's axis back from the tool centre point."""
    return tcp_pos - tcp_rot[:, 2] * GRIPPER.pad_centre_from_flange, tcp_rot


def noise_std(near_std: float, distance_m: float) -> float:
    """Per-reading std at ``distance_m`` for a camera whose std is ``near_std`` at 0.3 m and closer: the published
    figures' growth, scaled to that camera."""
    return near_std * (1.0 + NOISE_GROWTH_PER_M / NEAR_NOISE_M * max(distance_m - NEAR_RANGE_M, 0.0))


def handeye_offset(
    translation: np.ndarray,
    rotation: np.ndarray,
    camera_pos: np.ndarray,
    camera_rot: np.ndarray,
    object_pos: np.ndarray,
) -> np.ndarray:
    """World-frame error of an estimate from a camera whose calibration is off by ``translation`` (m) and the small
    ``rotation`` (rotation vector, rad), both in the camera (flange) frame."""
    return camera_rot @ translation + cross3(camera_rot @ rotation, object_pos - camera_pos)
