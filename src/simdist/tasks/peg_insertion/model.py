"""MJCF of the peg-insertion scene: the shared UR5e/2F-85 robot (:mod:`simdist.tasks.ur5e.robot`) plus a square
peg lying on the table and a fixture with a square hole."""

from __future__ import annotations

from dataclasses import dataclass

import mujoco

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
    walls = [
        f'<geom name="wall_px" type="box" size="{wall} {s.fixture_side / 2} {wall_half_z}" pos="{wall_centre} 0 {wall_z}" {common}/>',
        f'<geom name="wall_nx" type="box" size="{wall} {s.fixture_side / 2} {wall_half_z}" pos="{-wall_centre} 0 {wall_z}" {common}/>',
        f'<geom name="wall_py" type="box" size="{hole_half} {wall} {wall_half_z}" pos="0 {wall_centre} {wall_z}" {common}/>',
        f'<geom name="wall_ny" type="box" size="{hole_half} {wall} {wall_half_z}" pos="0 {-wall_centre} {wall_z}" {common}/>',
    ]
    return f"""
    <body name="{FIXTURE_BODY}" pos="{s.fixture_xy[0]} {s.fixture_xy[1]} 0">
      <geom name="fixture_base" type="box" size="{s.fixture_side / 2} {s.fixture_side / 2} {base_half}" pos="0 0 {base_half}" {common}/>
      {''.join(walls)}
      <site name="hole_top" pos="0 0 {s.fixture_height}" size="0.003"/>
    </body>"""


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
    return build_scene_xml("peg_insertion", physics.timestep_s, _fixture_xml(physics) + _peg_xml())


def build_model(physics: PegPhysics) -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_string(build_xml(physics))
