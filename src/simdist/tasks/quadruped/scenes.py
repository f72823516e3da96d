"""Scenes: the ground a batch of quadrupeds walks on, with exact ground heights for the height scan.

* :class:`TrainingScene` — one regenerated heightfield patch per environment (PPO and data generation).
* :class:`CourseScene` — the evaluation courses of paper §7, built from boxes so that their surface
  properties (PTFE friction, foam compliance) come from the physics dataclass. Every course runs along +x,
  the robot starts at ``START_X`` and the course ends ``length_m`` further on; surfaces are 1.5 m wide.

  - ``slippery-slope``: two 0.76 m panels rising at 3.0° then 5.7°, then a plateau; 1.82 m in all.
  - ``foam``: two 5 cm pads overlapping by 0.4 m (pad A 0–1.6 m, pad B from 1.2 m, lying on A where they
    overlap, so the middle is 10 cm high), ending at 2.7 m; 3.00 m in all.
  The panel layout (up-up) and the overlap geometry are our reading of the paper's one-line description.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from simdist.tasks.quadruped import terrain
from simdist.tasks.quadruped.physics import QuadrupedPhysics

START_X = -0.3
COURSE_HALF_WIDTH = 0.75


@dataclass(frozen=True)
class Box:
    name: str
    x: tuple[float, float]  # extent along the course before tilting
    z_top: float  # top height at the box's start (x[0])
    slope_deg: float = 0.0
    thickness: float = 0.05
    surface: str = "panel"  # "panel" or "foam": which physics fields apply


@dataclass(frozen=True)
class Course:
    name: str
    length_m: float
    boxes: tuple[Box, ...]

    def profile(self, x: np.ndarray) -> np.ndarray:
        """Surface height along the course centre line (0 = the floor)."""
        h = np.zeros_like(x, dtype=np.float64)
        for box in self.boxes:
            inside = (x >= box.x[0]) & (x <= box.x[1])
            top = box.z_top + (x - box.x[0]) * np.tan(np.radians(box.slope_deg))
            h = np.where(inside, np.maximum(h, top), h)
        return h


COURSE_RUNOUT_M = 0.3  # the finish line lies this far past the last panel or pad


def slippery_slope(physics: QuadrupedPhysics) -> Course:
    boxes, x, z, n = [], 0.0, 0.0, len(physics.slope_panel_angles_deg)
    length, thickness = physics.slope_panel_length_m, physics.slope_panel_thickness_m
    for angle in physics.slope_panel_angles_deg:
        boxes.append(Box(f"panel_{angle:g}deg", (x, x + length), float(z), float(angle), thickness))
        x, z = x + length, z + length * np.tan(np.radians(angle))
    boxes.append(Box("plateau", (x, x + 1.98), float(z), 0.0, max(float(z), 0.01), surface="floor"))
    return Course("slippery-slope", round(n * length + COURSE_RUNOUT_M, 9), tuple(boxes))


def foam(physics: QuadrupedPhysics) -> Course:
    t, lengths = physics.foam_pad_thickness_m, physics.foam_pad_lengths_m
    names = ["pad_a", "pad_b"] + [f"pad_{i}" for i in range(3, len(lengths) + 1)]
    boxes, start, end = [], 0.0, 0.0
    for i, length in enumerate(lengths):
        if i:  # this pad lies on the one before where they overlap
            start = end - physics.foam_pad_overlap_m
            boxes.append(Box(f"{names[i]}_overlap", (start, end), 2 * t, thickness=t, surface="foam"))
        boxes.append(Box(names[i], (end, start + length), t, thickness=t, surface="foam"))
        end = start + length
    return Course("foam", round(end + COURSE_RUNOUT_M, 9), tuple(boxes))


def course_for(name: str, physics: QuadrupedPhysics) -> Course:
    """The course ``name`` with the geometry of ``physics``."""
    return {"slippery-slope": slippery_slope, "foam": foam}[name](physics)


COURSES = {name: course_for(name, QuadrupedPhysics()) for name in ("slippery-slope", "foam")}


def _box_xml(box: Box, physics: QuadrupedPhysics) -> str:
    theta = np.radians(box.slope_deg)
    half_len = (box.x[1] - box.x[0]) / 2 / np.cos(theta)
    mid_x = (box.x[0] + box.x[1]) / 2
    mid_top = box.z_top + (mid_x - box.x[0]) * np.tan(theta)
    # centre sits half a thickness below the top surface, along the tilted normal
    cx = mid_x + np.sin(theta) * box.thickness / 2
    cz = mid_top - np.cos(theta) * box.thickness / 2
    attrs = ""
    if box.surface == "panel":
        attrs = f'friction="{physics.panel_friction} 0.02 0.01" priority="{physics.panel_priority}"'
    elif box.surface == "foam":
        attrs = (
            f'solref="{" ".join(map(str, physics.foam_solref))}" '
            f'solimp="{" ".join(map(str, physics.foam_solimp))}" priority="{physics.foam_priority}"'
        )
    return (
        f'<geom name="{box.name}" class="terrain" type="box" pos="{cx:.5f} 0 {cz:.5f}" '
        f'euler="0 {-theta:.6f} 0" size="{half_len:.5f} {COURSE_HALF_WIDTH} {box.thickness / 2}" {attrs}/>'
    )


class CourseScene:
    """A fixed course shared by every env of the batch (each env is its own MjModel)."""

    def __init__(self, course: Course, physics: QuadrupedPhysics):
        self.course = course
        self.assets_xml = ""
        floor = '<geom name="floor" class="terrain" type="plane" size="30 30 0.1"/>'
        self.ground_xml = "\n    ".join([floor] + [_box_xml(b, physics) for b in course.boxes])

    def reset(self, env_id: int, model: mujoco.MjModel, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        """Spawn point (x, y, ground z) and yaw for ``env_id``."""
        return np.array([START_X, 0.0, float(self.course.profile(np.array([START_X]))[0])]), 0.0

    def heights(self, xy: np.ndarray) -> np.ndarray:
        on_course = np.abs(xy[..., 1]) <= COURSE_HALF_WIDTH
        return np.where(on_course, self.course.profile(xy[..., 0]), 0.0)

    def off_limits(self, xy: np.ndarray) -> np.ndarray:
        return np.zeros(xy.shape[0], dtype=bool)


class TrainingScene:
    """Per-env heightfield patches with random sub-terrains and a tracking-driven difficulty curriculum."""

    def __init__(self, num_envs: int, curriculum: bool = True, kinds: tuple[str, ...] = terrain.TERRAIN_KINDS):
        self.assets_xml, self.ground_xml = terrain.hfield_xml()
        self.kinds = kinds
        self.height_grids = np.zeros((num_envs, terrain.GRID_POINTS, terrain.GRID_POINTS))
        self.curriculum = terrain.TerrainCurriculum(num_envs) if curriculum else None
        self.kind_of_env = ["flat"] * num_envs

    def reset(self, env_id: int, model: mujoco.MjModel, rng: np.random.Generator) -> tuple[np.ndarray, float]:
        kind = self.kinds[rng.integers(len(self.kinds))]
        difficulty = self.curriculum.difficulty(env_id) if self.curriculum else float(rng.uniform())
        self.set_heights(env_id, model, terrain.make_heights(kind, difficulty, rng))
        self.kind_of_env[env_id] = kind
        return np.array(
            [0.0, 0.0, float(self.height_grids[env_id, terrain.GRID_POINTS // 2, terrain.GRID_POINTS // 2])]
        ), float(rng.uniform(-np.pi, np.pi))

    def set_heights(self, env_id: int, model: mujoco.MjModel, heights: np.ndarray) -> None:
        self.height_grids[env_id] = heights
        model.hfield_data[:] = terrain.to_hfield_data(heights)

    def heights(self, xy: np.ndarray) -> np.ndarray:
        return terrain.lookup_heights(self.height_grids, xy)

    def off_limits(self, xy: np.ndarray) -> np.ndarray:
        return np.max(np.abs(xy[:, :2]), axis=-1) > terrain.USABLE_RADIUS_M
