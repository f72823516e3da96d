"""MJCF of the peg-insertion scene: the shared UR5e/2F-85 robot (:mod:`simdist.tasks.ur5e.robot`) plus a square
peg lying on the table and a fixture with a square hole."""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from simdist.tasks.peg_insertion.physics import PegPhysics
from simdist.tasks.ur5e.robot import PART_BIT, STATIC_BIT, STIFF_SOLIMP, STIFF_SOLREF, build_scene_xml


@dataclass(frozen=True)
class SceneGeometry:
    peg_side: float = 0.016
    peg_length: float = 0.070
    hole_depth: float = 0.030
    fixture_side: float = 0.090
    fixture_height: float = 0.040
    fixture_xy: tuple[float, float] = (0.45, -0.30)  # nominal hole centre on the table (robot base at origin)


SCENE = SceneGeometry()
FIXTURE_BODY, PEG_BODY = "fixture", "peg"


def _fixture_xml(physics: PegPhysics) -> str:
    s = SCENE
    hole_half = (s.peg_side + physics.hole_clearance_m) / 2
    wall = (s.fixture_side / 2 - hole_half) / 2  # half-thickness of each wall
    wall_centre = hole_half + wall
    base_half = (s.fixture_height - s.hole_depth) / 2
    wall_half_z = s.hole_depth / 2
    wall_z = 2 * base_half + wall_half_z
    common = f'contype="{STATIC_BIT}" conaffinity="0" priority="2" solref="{STIFF_SOLREF}" solimp="{STIFF_SOLIMP}" rgba=".6 .6 .7 1"'
    walls = (
        _chamfered_walls(hole_half, physics.hole_chamfer_m, common)
        if physics.hole_chamfer_m > 0
        else [
            f'<geom name="wall_px" type="box" size="{wall} {s.fixture_side / 2} {wall_half_z}" pos="{wall_centre} 0 {wall_z}" {common}/>',
            f'<geom name="wall_nx" type="box" size="{wall} {s.fixture_side / 2} {wall_half_z}" pos="{-wall_centre} 0 {wall_z}" {common}/>',
            f'<geom name="wall_py" type="box" size="{hole_half} {wall} {wall_half_z}" pos="0 {wall_centre} {wall_z}" {common}/>',
            f'<geom name="wall_ny" type="box" size="{hole_half} {wall} {wall_half_z}" pos="0 {-wall_centre} {wall_z}" {common}/>',
        ]
    )
    return f"""
    <body name="{FIXTURE_BODY}" pos="{s.fixture_xy[0]} {s.fixture_xy[1]} 0">
      <geom name="fixture_base" type="box" size="{s.fixture_side / 2} {s.fixture_side / 2} {base_half}" pos="0 0 {base_half}" {common}/>
      {"".join(walls)}
      <site name="hole_top" pos="0 0 {s.fixture_height}" size="0.003"/>
    </body>"""


def _chamfered_walls(hole_half: float, c: float, common: str) -> list[str]:
    """The four walls with a 45° bevel of depth ``c`` at the hole's mouth: each wall stops ``c`` below the top, a
    band on its outer side rises to the top, and a box turned 45° about the edge fills the wall up to the bevel
    plane; fillers keep the fixture's top flat beyond the mouth's corners."""
    s = SCENE
    outer, top, bottom = s.fixture_side / 2, s.fixture_height, s.fixture_height - s.hole_depth
    low_half_z, band_half_z, r = (s.hole_depth - c) / 2, c / 2, c / np.sqrt(2)
    out = []
    for sign in (1, -1):
        for axis in ("x", "y"):
            along = outer if axis == "x" else hole_half  # half-length along the wall
            wall_mid, band_mid = (hole_half + outer) / 2, (hole_half + c + outer) / 2
            band_half, mouth = (outer - hole_half - c) / 2, hole_half + c if axis == "x" else hole_half

            def box(name, half_across, half_along, half_z, across, z, extra="", along_pos=0.0, axis=axis, sign=sign):
                size = f"{half_across} {half_along} {half_z}" if axis == "x" else f"{half_along} {half_across} {half_z}"
                pos = f"{sign * across} {along_pos} {z}" if axis == "x" else f"{along_pos} {sign * across} {z}"
                return f'<geom name="{name}" type="box" size="{size}" pos="{pos}" {extra}{common}/>'

            tag = f"{'p' if sign > 0 else 'n'}{axis}"
            out.append(box(f"wall_{tag}", (outer - hole_half) / 2, along, low_half_z, wall_mid, bottom + low_half_z))
            out.append(box(f"wall_{tag}_band", band_half, along, band_half_z, band_mid, top - band_half_z))
            quarter = np.pi / 4  # the scene's compiler reads angles in radians
            turn = f'euler="0 {quarter * sign} 0" ' if axis == "x" else f'euler="{-quarter * sign} 0 0" '
            out.append(box(f"wall_{tag}_bevel", r, mouth, r, hole_half + c, top - c, turn))
            if axis == "x":  # flat top beside the mouth, where the bevel stops
                for end in (1, -1):
                    half_y = (outer - mouth) / 2
                    out.append(
                        box(
                            f"wall_{tag}_fill{'p' if end > 0 else 'n'}",
                            c / 2,
                            half_y,
                            band_half_z,
                            hole_half + c / 2,
                            top - band_half_z,
                            along_pos=end * (mouth + half_y),
                        )
                    )
    return out


def _peg_xml() -> str:
    s = SCENE
    half_peg = s.peg_side / 2
    return f"""
    <body name="{PEG_BODY}" pos="{s.fixture_xy[0]} 0.1 {s.peg_length / 2}">
      <freejoint name="peg"/>
      <geom name="peg" type="box" size="{half_peg} {half_peg} {s.peg_length / 2}" mass="0.05"
            contype="{PART_BIT}" conaffinity="{STATIC_BIT}" friction="0.3 0.005 0.0001" rgba=".85 .55 .2 1"/>
    </body>"""


def build_xml(physics: PegPhysics) -> str:
    return build_scene_xml(
        "peg_insertion",
        physics.timestep_s,
        _fixture_xml(physics) + _peg_xml(),
        noslip_iterations=physics.noslip_iterations,
    )


def build_model(physics: PegPhysics) -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_string(build_xml(physics))
