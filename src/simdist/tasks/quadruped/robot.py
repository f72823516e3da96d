"""A Go2-like quadruped written by us from the Unitree Go2's published figures, collision primitives only.

Figures used (Unitree Go2 datasheet / URDF): trunk 0.376 × 0.094 × 0.114 m and 6.92 kg; hip offsets
(±0.1934, ±0.0465) m; hip→thigh lateral offset 0.0955 m; thigh and calf 0.213 m; foot sphere r 0.022 m;
link masses and centres of mass from the URDF (trunk 6.921 kg with its CoM 2 cm ahead of centre, hip 0.678,
thigh 1.152 with its CoM near the hip, calf 0.154, foot 0.04 kg; total ≈ 15.0 kg); joint ranges hip ±60°,
thigh −90…200° (front) / −30…260° (rear), calf −156…−48°; torque limits 23.7 N·m (hip, thigh) and
45.43 N·m (calf). Self-collisions are off (robot geoms have conaffinity 0) — legs rarely cross and it
keeps contacts to the feet and ground.

Actuation (paper / authors' config): q_des = 0.25·a + q_default at 50 Hz, tracked by position servos with
Kp 25 N·m/rad and Kd 0.5 N·m·s/rad, clipped at the torque limits. Physics: dt 0.005 s, 4 substeps per control
step, implicitfast integrator, pyramidal friction cones (machine-facts §2: 2× faster than elliptic, same
slide results).
"""

from __future__ import annotations

import numpy as np

LEG_NAMES = ("FR", "FL", "RR", "RL")  # Unitree order
JOINT_KINDS = ("hip", "thigh", "calf")
JOINT_NAMES = tuple(f"{leg}_{kind}" for leg in LEG_NAMES for kind in JOINT_KINDS)
DEFAULT_JOINT_POS = np.array([-0.1, 0.8, -1.5, 0.1, 0.8, -1.5, -0.1, 1.0, -1.5, 0.1, 1.0, -1.5])
HIP_INDICES = np.array([0, 3, 6, 9])
ACTION_SCALE = 0.25
KP_NOMINAL = 25.0
KD_NOMINAL = 0.5
TORQUE_LIMITS = np.array([23.7, 23.7, 45.43] * 4)
TIMESTEP_S = 0.005
SUBSTEPS = 4
CONTROL_PERIOD_S = TIMESTEP_S * SUBSTEPS  # 50 Hz
FOOT_RADIUS = 0.022
NOMINAL_TRUNK_MASS = 6.921
SPAWN_HEIGHT = 0.31  # base height at spawn: feet ≈1 cm above the ground at the default pose
STANDING_HEIGHT = 0.26  # where the base settles under the Kp 25 hold (measured)

_TRUNK_HALF = (0.1881, 0.04675, 0.057)
_HIP_OFFSET = (0.1934, 0.0465)
_THIGH_LATERAL = 0.0955
_LINK_LENGTH = 0.213
_THIGH_RANGE = {"F": (-1.5708, 3.4907), "R": (-0.5236, 4.5379)}


def _leg_xml(leg: str) -> str:
    front, right = leg[0] == "F", leg[1] == "R"
    sx, sy = (1 if front else -1), (-1 if right else 1)
    hx, hy = sx * _HIP_OFFSET[0], sy * _HIP_OFFSET[1]
    ty = sy * _THIGH_LATERAL
    lo, hi = _THIGH_RANGE[leg[0]]
    L = _LINK_LENGTH
    return f"""
    <body name="{leg}_hip" pos="{hx} {hy} 0">
      <joint name="{leg}_hip" axis="1 0 0" range="-1.0472 1.0472"/>
      <inertial pos="{-0.0054 * sx} {0.0019 * sy} 0" mass="0.678" diaginertia="0.00048 0.00088 0.0006"/>
      <geom class="robot" type="cylinder" size="0.046 0.02" quat="0.7071 0.7071 0 0"/>
      <body name="{leg}_thigh" pos="0 {ty} 0">
        <joint name="{leg}_thigh" axis="0 1 0" range="{lo} {hi}"/>
        <inertial pos="-0.0037 {-0.0223 * sy} -0.0327" mass="1.152" diaginertia="0.0058 0.0058 0.001"/>
        <geom name="{leg}_thigh" class="robot" type="capsule" fromto="0 0 0 0 0 -{L}" size="0.024"/>
        <body name="{leg}_calf" pos="0 0 -{L}">
          <joint name="{leg}_calf" axis="0 1 0" range="-2.7227 -0.83776"/>
          <inertial pos="0.0055 0 -0.115" mass="0.154" diaginertia="0.0011 0.0011 0.00003"/>
          <geom class="robot" type="capsule" fromto="0 0 0 0 0 -{L - 0.03}" size="0.013"/>
          <body name="{leg}_foot" pos="0 0 -{L}">
            <geom name="{leg}_foot" class="foot" type="sphere" size="{FOOT_RADIUS}" mass="0.04"/>
          </body>
        </body>
      </body>
    </body>"""


def robot_xml() -> str:
    """The robot's <worldbody> content (a free trunk named "trunk" with four legs)."""
    legs = "".join(_leg_xml(leg) for leg in LEG_NAMES)
    tx, ty, tz = _TRUNK_HALF
    return f"""
  <body name="trunk" pos="0 0 {SPAWN_HEIGHT}">
    <freejoint name="root"/>
    <site name="imu" pos="0 0 0"/>
    <inertial pos="0.0211 0 -0.0054" mass="{NOMINAL_TRUNK_MASS}" diaginertia="0.0245 0.0981 0.107"/>
    <geom name="trunk" class="robot" type="box" size="{tx} {ty} {tz}"/>
    <geom name="head" class="robot" type="box" pos="{tx + 0.03} 0 0.02" size="0.03 0.045 0.04"/>
    {legs}
  </body>"""


def actuators_xml() -> str:
    rows = []
    for name, limit in zip(JOINT_NAMES, TORQUE_LIMITS):
        rows.append(
            f'<position name="{name}" joint="{name}" kp="{KP_NOMINAL}" kv="{KD_NOMINAL}" '
            f'forcerange="{-limit} {limit}" ctrlrange="-6.3 6.3"/>'
        )
    return "\n    ".join(rows)


def model_xml(assets: str = "", ground: str = "") -> str:
    """A complete MJCF: the robot plus caller-supplied terrain assets and world geoms."""
    return f"""
<mujoco model="go2_like">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="{TIMESTEP_S}" integrator="implicitfast" cone="pyramidal"/>
  <size memory="20M"/>
  <default>
    <joint damping="0" armature="0.01" frictionloss="0"/>
    <default class="robot"><geom contype="1" conaffinity="0" condim="3" friction="0.8 0.02 0.01"/></default>
    <default class="foot"><geom contype="1" conaffinity="0" condim="3" priority="1" friction="0.8 0.02 0.01"/></default>
    <default class="terrain"><geom contype="0" conaffinity="1" condim="3" friction="1.0 0.02 0.01"/></default>
  </default>
  <asset>{assets}</asset>
  <worldbody>
    <light pos="0 0 5" dir="0 0 -1" directional="true"/>
    {ground}
    {robot_xml()}
  </worldbody>
  <actuator>
    {actuators_xml()}
  </actuator>
</mujoco>"""
