"""MJCF of the shared robot: UR5e-like arm and 2F-85-like gripper on a table, used by every UR5e task.

Arm figures are the published UR5e ones (Universal Robots DH parameters and link masses, UR5e datasheet joint
limits/torques); gripper figures are from the Robotiq 2F-85 datasheet (stroke, mass, length). Only contacts that
matter are enabled: arm links never collide (the experts keep them clear); pads and palm collide with the static
scene and the held part. A task adds its own bodies and equalities through :func:`build_scene_xml`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Stiffer-than-default contacts where small bodies squeeze (pads) or tight clearances matter (holes).
STIFF_SOLREF, STIFF_SOLIMP = "0.02 1", "0.99 0.999 0.001"
# contype / conaffinity bits: static scene (table, fixtures), the part the gripper handles, gripper (pads, palm).
STATIC_BIT, PART_BIT, GRIPPER_BIT = 1, 2, 4
TABLE_SIZE = (0.9, 0.9)  # half extents of the table plane, m


@dataclass(frozen=True)
class ArmGeometry:
    """UR5e: DH d1, a2, a3, d4, d5, d6 (m); link masses (kg); torque limits (N m); joint limits (rad)."""

    shoulder_height: float = 0.1625
    upper_arm_length: float = 0.425
    forearm_length: float = 0.3922
    shoulder_offset: float = 0.138  # lateral offsets chosen so that their sum equals DH d4 = 0.1333
    elbow_offset: float = 0.131
    wrist1_offset: float = 0.1263
    wrist2_length: float = 0.0997
    wrist3_length: float = 0.0996
    link_masses: tuple[float, ...] = (3.761, 8.058, 2.846, 1.37, 1.3, 0.365)
    torque_limits: tuple[float, ...] = (150.0, 150.0, 150.0, 28.0, 28.0, 28.0)
    joint_limit: float = 2 * np.pi  # datasheet: +-360 deg on every joint
    elbow_limit: float = np.pi  # common practice: the elbow is limited by self-collision
    max_joint_speed: float = np.pi  # 180 deg/s
    nominal_kp: tuple[float, ...] = (2500.0, 2500.0, 1800.0, 400.0, 400.0, 250.0)  # joint impedance, N m/rad
    armature: tuple[float, ...] = (0.1, 0.1, 0.1, 0.04, 0.04, 0.04)  # reflected rotor inertia (100:1 gears)


@dataclass(frozen=True)
class GripperGeometry:
    """Robotiq 2F-85-like: 85 mm stroke, 0.925 kg, flange-to-pad-centre length ~0.15 m."""

    mass: float = 0.925
    stroke: float = 0.085
    pad_centre_from_flange: float = 0.150
    pad_half_size: tuple[float, float, float] = (0.004, 0.011, 0.016)  # (grasp axis, width, height)
    finger_speed: float = 0.15  # m/s closing speed of the 2F-85
    # Closed pads hold a part while their opening lies in (width - below, width + above): squeezed, or just touching.
    hold_band_below_m: float = 0.004
    hold_band_above_m: float = 0.003

    def holds_width(self, opening: float, width: float) -> bool:
        return width - self.hold_band_below_m < opening < width + self.hold_band_above_m


ARM = ArmGeometry()
GRIPPER = GripperGeometry()
ARM_JOINTS = ("shoulder_pan", "shoulder_lift", "elbow", "wrist_1", "wrist_2", "wrist_3")
FINGER_JOINTS = ("finger_left", "finger_right")
PAD_JOINTS = ("pad_left", "pad_right")
PAD_GEOMS = ("pad_left", "pad_right")
TCP_SITE, TABLE_GEOM = "tcp", "table"
# The UR5e e-Series tool-flange force/torque sensor: MuJoCo force/torque sensors on a site at the flange origin read
# the wrench the wrist exerts on everything beyond it (gripper, held part), in the flange (tool) frame.
FT_SITE, FT_FORCE_SENSOR, FT_TORQUE_SENSOR = "ft_sensor", "flange_force", "flange_torque"


def _link_inertial(mass: float, length: float, axis: str) -> str:
    """Solid-cylinder inertia of radius 0.05 m centred on the link."""
    r = 0.05
    i_axial = 0.5 * mass * r**2
    i_trans = mass * (3 * r**2 + length**2) / 12
    pos = {"z": f"0 0 {length / 2}", "y": f"0 {length / 2} 0"}[axis]
    diag = {"z": (i_trans, i_trans, i_axial), "y": (i_trans, i_axial, i_trans)}[axis]
    return f'<inertial pos="{pos}" mass="{mass}" diaginertia="{diag[0]:.5f} {diag[1]:.5f} {diag[2]:.5f}"/>'


def _arm_joint(name: str, axis: str, limit: float, armature: float) -> str:
    return f'<joint name="{name}" axis="{axis}" range="{-limit} {limit}" armature="{armature}" damping="0.5"/>'


def _gripper_xml() -> str:
    g, half = GRIPPER, GRIPPER.pad_half_size
    pad_z = g.pad_centre_from_flange
    open_half = g.stroke / 2
    fingers = []
    for side, sign in (("left", 1.0), ("right", -1.0)):
        # Finger slides along the grasp axis (flange x); q = 0 is fully open, q = stroke/2 is closed.
        fingers.append(f"""
        <body name="finger_{side}" pos="{sign * (open_half + half[0])} 0 {pad_z - 0.03}" gravcomp="1">
          <joint name="finger_{side}" type="slide" axis="{-sign} 0 0" range="0 {open_half}" armature="0.5"
                 solreflimit="{STIFF_SOLREF}" solimplimit="{STIFF_SOLIMP}"/>
          <geom type="box" size="0.006 0.012 0.03" pos="{sign * 0.006} 0 0" mass="0.08" contype="0" conaffinity="0" rgba=".2 .2 .2 1"/>
          <body name="pad_{side}" pos="0 0 0.03" gravcomp="1">
            <joint name="pad_{side}" type="hinge" axis="1 0 0" armature="0.002" damping="0.05" range="-0.6 0.6"/>
            <geom name="pad_{side}" type="box" size="{half[0]} {half[1]} {half[2]}" mass="0.02" priority="1"
                  solref="{STIFF_SOLREF}" solimp="{STIFF_SOLIMP}"
                  contype="{GRIPPER_BIT}" conaffinity="{STATIC_BIT | PART_BIT}" rgba=".1 .1 .1 1"/>
          </body>
        </body>""")
    palm_mass = g.mass - 2 * 0.1
    return f"""
      <body name="gripper" pos="0 0 0" gravcomp="1">
        <geom type="cylinder" size="0.037 0.03" pos="0 0 0.03" mass="{palm_mass * 0.4}" contype="0" conaffinity="0" rgba=".3 .3 .3 1"/>
        <geom name="palm" type="box" size="0.045 0.02 0.025" pos="0 0 0.085" mass="{palm_mass * 0.6}"
              contype="{GRIPPER_BIT}" conaffinity="{STATIC_BIT | PART_BIT}" priority="1" rgba=".3 .3 .3 1"/>
        <site name="{TCP_SITE}" pos="0 0 {pad_z}" size="0.004" rgba="1 0 0 1"/>
        {"".join(fingers)}
      </body>"""


def build_scene_xml(
    model_name: str, timestep_s: float, objects_xml: str, equality_xml: str = "", noslip_iterations: int = 0
) -> str:
    """The whole MJCF: table, arm and gripper, plus the task's bodies (``objects_xml``, inside the worldbody)
    and equality constraints (``equality_xml``). ``noslip_iterations``: passes of MuJoCo's noslip post-solver, which
    removes the creep of a held part through the pads that soft friction allows (a task's physics option)."""
    a = ARM
    links = list(zip(ARM_JOINTS, a.link_masses, a.armature))
    lim = [a.joint_limit, a.joint_limit, a.elbow_limit, a.joint_limit, a.joint_limit, a.joint_limit]
    actuators = "\n".join(
        f'<position name="{j}" joint="{j}" kp="{kp}" ctrlrange="{-q} {q}" forcerange="{-t} {t}"/>'
        for j, kp, q, t in zip(ARM_JOINTS, a.nominal_kp, lim, a.torque_limits)
    )
    # Force-controlled fingers (ctrl +1 closes, -1 opens); the gear (grip force) and the joint damping (which sets
    # the closing speed) are written per episode from the physics draw.
    fingers = "\n".join(f'<motor name="{j}" joint="{j}" gear="40" ctrlrange="-1 1"/>' for j in FINGER_JOINTS)
    # Arm bodies all get gravcomp; the actual fraction is set per episode from the physics draw.
    return f"""
<mujoco model="{model_name}">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="{timestep_s}" integrator="implicit" cone="pyramidal" iterations="30" ls_iterations="10"
          noslip_iterations="{noslip_iterations}">
    <flag warmstart="enable"/>
  </option>
  <worldbody>
    <light pos="0.4 0 1.5" dir="0 0 -1"/>
    <geom name="{TABLE_GEOM}" type="plane" size="{TABLE_SIZE[0]} {TABLE_SIZE[1]} 0.01" pos="0.4 0 0"
          contype="{STATIC_BIT}" conaffinity="0" priority="1" rgba=".8 .75 .65 1"/>
    <body name="base" pos="0 0 0">
      <geom type="cylinder" size="0.075 0.045" pos="0 0 0.045" contype="0" conaffinity="0" rgba=".4 .5 .6 1"/>
      <body name="shoulder" pos="0 0 {a.shoulder_height}" gravcomp="1">
        {_arm_joint(links[0][0], "0 0 1", lim[0], links[0][2])}
        {_link_inertial(links[0][1], 0.1, "z")}
        <geom type="cylinder" size="0.06 0.06" contype="0" conaffinity="0" rgba=".4 .5 .6 1"/>
        <body name="upper_arm" pos="0 {a.shoulder_offset} 0" gravcomp="1">
          {_arm_joint(links[1][0], "0 1 0", lim[1], links[1][2])}
          {_link_inertial(links[1][1], a.upper_arm_length, "z")}
          <geom type="capsule" fromto="0 0 0 0 0 {a.upper_arm_length}" size="0.054" contype="0" conaffinity="0" rgba=".6 .7 .8 1"/>
          <body name="forearm" pos="0 {-a.elbow_offset} {a.upper_arm_length}" gravcomp="1">
            {_arm_joint(links[2][0], "0 1 0", lim[2], links[2][2])}
            {_link_inertial(links[2][1], a.forearm_length, "z")}
            <geom type="capsule" fromto="0 0 0 0 0 {a.forearm_length}" size="0.04" contype="0" conaffinity="0" rgba=".6 .7 .8 1"/>
            <body name="wrist_1" pos="0 0 {a.forearm_length}" gravcomp="1">
              {_arm_joint(links[3][0], "0 1 0", lim[3], links[3][2])}
              {_link_inertial(links[3][1], a.wrist1_offset, "y")}
              <geom type="cylinder" size="0.04 0.05" pos="0 {a.wrist1_offset / 2} 0" quat="0.7071 0.7071 0 0" contype="0" conaffinity="0" rgba=".4 .5 .6 1"/>
              <body name="wrist_2" pos="0 {a.wrist1_offset} 0" gravcomp="1">
                {_arm_joint(links[4][0], "0 0 1", lim[4], links[4][2])}
                {_link_inertial(links[4][1], a.wrist2_length, "z")}
                <geom type="cylinder" size="0.04 0.045" pos="0 0 {a.wrist2_length / 2}" contype="0" conaffinity="0" rgba=".4 .5 .6 1"/>
                <body name="wrist_3" pos="0 0 {a.wrist2_length}" gravcomp="1">
                  {_arm_joint(links[5][0], "0 1 0", lim[5], links[5][2])}
                  {_link_inertial(links[5][1], a.wrist3_length, "y")}
                  <body name="flange" pos="0 {a.wrist3_length} 0" quat="0.70710678 -0.70710678 0 0" gravcomp="1">
                    <site name="{FT_SITE}" size="0.005"/>
                    {_gripper_xml()}
                  </body>
                </body>
              </body>
            </body>
          </body>
        </body>
      </body>
    </body>
    {objects_xml}
  </worldbody>
  <equality>
    <!-- the 2F-85 linkage couples the fingers, so a grasped part stays centred between them -->
    <joint joint1="{FINGER_JOINTS[0]}" joint2="{FINGER_JOINTS[1]}" solref="{STIFF_SOLREF}" solimp="{STIFF_SOLIMP}"/>
    {equality_xml}
  </equality>
  <actuator>
    {actuators}
    {fingers}
  </actuator>
  <sensor>
    <force name="{FT_FORCE_SENSOR}" site="{FT_SITE}"/>
    <torque name="{FT_TORQUE_SENSOR}" site="{FT_SITE}"/>
  </sensor>
</mujoco>"""
