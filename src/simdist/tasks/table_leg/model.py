"""MJCF of the table-leg scene: the shared UR5e/2F-85 robot plus a leg, a leg rack and a tabletop.

The arm, gripper and table come from :mod:`simdist.tasks.ur5e.robot`, with its collision bits: the static scene
(tabletop, rack) is ``STATIC_BIT``, the leg ``PART_BIT`` (the pads collide with both).

The thread is a helical "nut" body inside the tabletop's hole: a hinge and a slide about the hole axis, coupled
by a joint equality (advance = pitch / 2 pi * angle). When the leg's stud sits aligned in the hole's lead-in, the
env activates a weld between the leg and the nut (thread.py), so turning the leg advances it by the pitch.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from simdist.tasks.table_leg.physics import TableLegPhysics
from simdist.tasks.ur5e.robot import PART_BIT, STATIC_BIT, STIFF_SOLIMP, STIFF_SOLREF, build_scene_xml

_STIFF = f'solref="{STIFF_SOLREF}" solimp="{STIFF_SOLIMP}"'
# MuJoCo's default impedance lets the thread give several mm under the leg's own weight; these keep it < 0.1 mm.
_RIGID_EQUALITY = 'solimp="0.999 0.9999 0.001"'
_RIGID_LIMIT = 'solreflimit="0.008 1" solimplimit="0.999 0.9999 0.001"'


@dataclass(frozen=True)
class LegGeometry:
    """A round furniture leg with a threaded stud at its lower end (FurnitureBench-like proportions)."""

    radius: float = 0.011
    length: float = 0.10  # shoulder (where the stud starts) to top
    stud_radius: float = 0.004  # M8-like stud
    stud_length: float = 0.0085  # = lead-in depth + seated advance, so the shoulder lands on the tabletop


@dataclass(frozen=True)
class TabletopGeometry:
    side: float = 0.16
    thickness: float = 0.025
    hole_local_xy: tuple[float, float] = (0.05, 0.05)  # the corner hole the leg goes into
    lead_in_depth: float = 0.004  # unthreaded counterbore: the stud rests on its floor until the thread catches
    centre_xy: tuple[float, float] = (0.40, -0.30)  # nominal tabletop centre (robot base at the origin)


@dataclass(frozen=True)
class RackGeometry:
    """A block the leg stands in, shoulder on its top face, stud in a loose hole."""

    side: float = 0.05
    height: float = 0.03
    hole_side: float = 0.013
    hole_depth: float = 0.012


LEG, TABLETOP, RACK = LegGeometry(), TabletopGeometry(), RackGeometry()
LEG_BODY, TABLETOP_BODY, RACK_BODY, NUT_BODY = "leg", "tabletop", "rack", "nut"
THREAD_TURN_JOINT, THREAD_ADVANCE_JOINT, THREAD_WELD = "thread_turn", "thread_advance", "thread_weld"
HOLE_SITE = "hole_top"


def _holed_block(
    prefix: str,
    half_side: float,
    height: float,
    hole_xy: tuple[float, float],
    hole_half: float,
    hole_depth: float,
    common: str,
) -> str:
    """A square block (footprint [-half_side, half_side]^2, z in [0, height]) with a square blind hole."""
    hx, hy = hole_xy
    floor = height - hole_depth
    z_top, half_top = floor + hole_depth / 2, hole_depth / 2
    geoms = [
        f'<geom name="{prefix}_base" type="box" size="{half_side} {half_side} {floor / 2}" pos="0 0 {floor / 2}" {common}/>'
    ]
    # Left and right strips span the whole depth of the block in y; front and back strips fill the hole's column.
    left_w, right_w = (hx - hole_half + half_side) / 2, (half_side - hx - hole_half) / 2
    front_w, back_w = (hy - hole_half + half_side) / 2, (half_side - hy - hole_half) / 2
    strips = [
        ("left", left_w, half_side, -half_side + left_w, 0.0),
        ("right", right_w, half_side, half_side - right_w, 0.0),
        ("front", hole_half, front_w, hx, -half_side + front_w),
        ("back", hole_half, back_w, hx, half_side - back_w),
    ]
    for name, sx, sy, px, py in strips:
        geoms.append(
            f'<geom name="{prefix}_{name}" type="box" size="{sx} {sy} {half_top}" pos="{px} {py} {z_top}" {common}/>'
        )
    return "\n      ".join(geoms)


def _scene_objects_xml(physics: TableLegPhysics) -> str:
    t, r, leg = TABLETOP, RACK, LEG
    common = f'contype="{STATIC_BIT}" conaffinity="0" priority="2" {_STIFF}'
    hole_half = leg.stud_radius + physics.hole_clearance_m / 2
    seated_advance = physics.thread_pitch_m * physics.seated_turns
    tabletop = _holed_block(
        "tabletop",
        t.side / 2,
        t.thickness,
        t.hole_local_xy,
        hole_half,
        t.lead_in_depth,
        common + ' rgba=".75 .6 .45 1"',
    )
    rack = _holed_block(
        "rack", r.side / 2, r.height, (0.0, 0.0), r.hole_side / 2, r.hole_depth, common + ' rgba=".5 .5 .55 1"'
    )
    hx, hy = t.hole_local_xy
    return f"""
    <body name="{TABLETOP_BODY}" pos="{t.centre_xy[0]} {t.centre_xy[1]} 0">
      {tabletop}
      <site name="{HOLE_SITE}" pos="{hx} {hy} {t.thickness}" size="0.003"/>
      <body name="{NUT_BODY}" pos="{hx} {hy} {t.thickness - t.lead_in_depth + leg.stud_length}">
        <joint name="{THREAD_TURN_JOINT}" type="hinge" axis="0 0 -1" range="0 {2 * np.pi * physics.seated_turns}"
               damping="0.002" armature="0.0005" {_RIGID_LIMIT}/>
        <joint name="{THREAD_ADVANCE_JOINT}" type="slide" axis="0 0 -1" range="0 {seated_advance}" armature="0.01" {_RIGID_LIMIT}/>
        <geom type="sphere" size="0.002" mass="0.005" contype="0" conaffinity="0" rgba="1 1 0 .3"/>
      </body>
    </body>
    <body name="{RACK_BODY}" pos="0.45 0.12 0">
      {rack}
    </body>
    <body name="{LEG_BODY}" pos="0.45 0.12 {r.height}">
      <freejoint name="{LEG_BODY}"/>
      <geom name="leg" type="cylinder" size="{leg.radius} {leg.length / 2}" pos="0 0 {leg.length / 2}" mass="0.06"
            contype="{PART_BIT}" conaffinity="{STATIC_BIT}" friction="0.8 0.005 0.0001" rgba=".85 .7 .45 1"/>
      <geom name="stud" type="cylinder" size="{leg.stud_radius} {leg.stud_length / 2}" pos="0 0 {-leg.stud_length / 2}"
            mass="0.005" contype="{PART_BIT}" conaffinity="{STATIC_BIT}" rgba=".6 .6 .6 1"/>
    </body>"""


def build_xml(physics: TableLegPhysics) -> str:
    pitch_per_rad = physics.thread_pitch_m / (2 * np.pi)
    thread = f"""
    <joint name="thread_coupling" joint1="{THREAD_ADVANCE_JOINT}" joint2="{THREAD_TURN_JOINT}"
           polycoef="0 {pitch_per_rad} 0 0 0" solref="0.008 1" {_RIGID_EQUALITY}/>
    <weld name="{THREAD_WELD}" body1="{NUT_BODY}" body2="{LEG_BODY}" active="false" solref="0.008 1" {_RIGID_EQUALITY}/>"""
    return build_scene_xml("table_leg", physics.timestep_s, _scene_objects_xml(physics), thread)


def build_model(physics: TableLegPhysics) -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_string(build_xml(physics))
