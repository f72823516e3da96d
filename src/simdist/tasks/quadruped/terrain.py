"""Ground for the quadruped: a per-environment heightfield for PPO / data generation, and its exact height lookup.

Each batched environment owns a square heightfield patch (``PATCH_SIZE_M`` wide, ``RESOLUTION_M`` grid)
that is regenerated at every reset with one of the sub-terrains below at a difficulty in [0, 1]. The same
height array drives MuJoCo's collision (``hfield_data``) and the height scan (bilinear lookup), so the scan is
analytic and costs no ray casts. MuJoCo triangulates each cell, so the lookup differs from the collision
surface by at most a fraction of a cell's height change (exact on planes and flat tops).

Sub-terrains (IsaacLab rough-generator equivalents, paper §4): flat; rough (uniform noise 1–6 cm on a
0.2 m lattice); pyramid slopes up and down (0–0.4 rise/run, a 1 m flat platform in the middle); pyramid
stairs up and down (steps 2–10 cm high, 0.3 m deep); random boxes (0.45 m cells, ±2–10 cm).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PATCH_SIZE_M = 12.0
RESOLUTION_M = 0.05
GRID_POINTS = int(round(PATCH_SIZE_M / RESOLUTION_M)) + 1
HFIELD_ELEVATION_M = 1.6  # heights live in [-0.8, 0.8] m
HFIELD_BASE_M = 0.2
TERRAIN_KINDS = ("flat", "rough", "slope_up", "slope_down", "stairs_up", "stairs_down", "boxes")
PLATFORM_HALF_M = 0.5  # flat spawn platform at the patch centre
USABLE_RADIUS_M = PATCH_SIZE_M / 2 - 1.2  # beyond this the episode is truncated (scan must stay on the patch)


def hfield_xml(name: str = "terrain") -> tuple[str, str]:
    """(asset, geom) MJCF snippets for one patch centred at the origin."""
    half = PATCH_SIZE_M / 2
    asset = (
        f'<hfield name="{name}" nrow="{GRID_POINTS}" ncol="{GRID_POINTS}" '
        f'size="{half} {half} {HFIELD_ELEVATION_M} {HFIELD_BASE_M}"/>'
    )
    geom = f'<geom name="ground" class="terrain" type="hfield" hfield="{name}" pos="0 0 {-HFIELD_ELEVATION_M / 2}"/>'
    return asset, geom


def to_hfield_data(heights: np.ndarray) -> np.ndarray:
    """Metric heights (rows along y, columns along x) → MuJoCo's normalised [0, 1] hfield_data."""
    return np.clip((heights + HFIELD_ELEVATION_M / 2) / HFIELD_ELEVATION_M, 0.0, 1.0).ravel()


def _coords() -> tuple[np.ndarray, np.ndarray]:
    axis = np.linspace(-PATCH_SIZE_M / 2, PATCH_SIZE_M / 2, GRID_POINTS)
    return np.meshgrid(axis, axis, indexing="ij")  # [row=y, col=x] → (y, x)


_Y, _X = _coords()
_RING = np.maximum(np.abs(_X), np.abs(_Y))  # square distance from the centre, for pyramids


def make_heights(kind: str, difficulty: float, rng: np.random.Generator) -> np.ndarray:
    """A (GRID_POINTS, GRID_POINTS) height array in metres, rows along y and columns along x."""
    d = float(np.clip(difficulty, 0.0, 1.0))
    outward = np.maximum(_RING - PLATFORM_HALF_M, 0.0)
    if kind == "flat":
        h = np.zeros_like(_X)
    elif kind == "rough":
        amplitude = 0.01 + 0.05 * d
        coarse = rng.uniform(-amplitude, amplitude, size=(int(PATCH_SIZE_M / 0.2) + 2,) * 2)
        idx = (np.arange(GRID_POINTS) * RESOLUTION_M / 0.2).astype(int)
        h = coarse[np.ix_(idx, idx)]
    elif kind in ("slope_up", "slope_down"):
        slope = 0.4 * d
        h = -slope * outward if kind == "slope_up" else slope * outward  # "up": walking off goes down
        h = np.clip(h, -0.75, 0.75)
    elif kind in ("stairs_up", "stairs_down"):
        step_height, step_depth = 0.02 + 0.08 * d, 0.3
        steps = np.floor(outward / step_depth + (outward > 0))
        h = (-1 if kind == "stairs_up" else 1) * step_height * steps
        h = np.clip(h, -0.75, 0.75)
    elif kind == "boxes":
        height = 0.02 + 0.08 * d
        cells = int(PATCH_SIZE_M / 0.45) + 2
        coarse = rng.uniform(-height, height, size=(cells, cells))
        idx = ((np.arange(GRID_POINTS) * RESOLUTION_M) / 0.45).astype(int)
        h = coarse[np.ix_(idx, idx)]
        h[_RING <= PLATFORM_HALF_M] = 0.0
    else:
        raise KeyError(f"unknown terrain kind {kind!r}; valid kinds: {list(TERRAIN_KINDS)}")
    return h.astype(np.float64)


def lookup_heights(heights: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Bilinear ground height for a batch of patches.

    heights: (N, G, G) arrays from :func:`make_heights`; xy: (N, ..., 2) world points of each env (the patch is
    centred at the origin). Points off the patch read the nearest edge.
    """
    n = heights.shape[0]
    flat = xy.reshape(n, -1, 2)
    u = (flat[..., 0] + PATCH_SIZE_M / 2) / RESOLUTION_M  # column coordinate (x)
    v = (flat[..., 1] + PATCH_SIZE_M / 2) / RESOLUTION_M  # row coordinate (y)
    u = np.clip(u, 0, GRID_POINTS - 1 - 1e-9)
    v = np.clip(v, 0, GRID_POINTS - 1 - 1e-9)
    c0, r0 = np.floor(u).astype(int), np.floor(v).astype(int)
    fu, fv = u - c0, v - r0
    env = np.arange(n)[:, None]
    h00, h01 = heights[env, r0, c0], heights[env, r0, c0 + 1]
    h10, h11 = heights[env, r0 + 1, c0], heights[env, r0 + 1, c0 + 1]
    out = (h00 * (1 - fu) + h01 * fu) * (1 - fv) + (h10 * (1 - fu) + h11 * fu) * fv
    return out.reshape(xy.shape[:-1])


@dataclass
class TerrainCurriculum:
    """Per-env difficulty levels moved by velocity tracking (authors: cosine similarity > 0.75 up, < 0.25 down)."""

    num_envs: int
    levels: int = 10
    up_threshold: float = 0.75
    down_threshold: float = 0.25

    def __post_init__(self) -> None:
        self.level = np.zeros(self.num_envs, dtype=int)

    def update(self, env_ids: np.ndarray, mean_cosine: np.ndarray) -> None:
        self.level[env_ids] += (mean_cosine > self.up_threshold).astype(int)
        self.level[env_ids] -= (mean_cosine < self.down_threshold).astype(int)
        np.clip(self.level, 0, self.levels - 1, out=self.level)

    def difficulty(self, env_id: int) -> float:
        return self.level[env_id] / (self.levels - 1)
