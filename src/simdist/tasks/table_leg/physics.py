"""All physics parameters of the table-leg task, for both domains, in one dataclass.

Every ``*_range`` field is a ``(low, high)`` pair sampled uniformly at each reset (domain randomisation); a
degenerate pair ``(x, x)`` fixes the value. The ``real`` defaults are fixed points outside, or at the edge of, the
``sim`` ranges for the effects the simulator is meant not to model (thread friction and engagement, arm sag and
latency, grasp compliance). See docs/tasks/table-leg.md for the table of values and what each stands for.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simdist.tasks.base import check_domain
from simdist.tasks.ur5e.physics import (
    ARM_GAP_FIELDS,
    PERCEPTION_POSITION_GAP_FIELDS,
    Range,
    SampledPhysics,
    sample_ranges,
    sampled_fields,
)


@dataclass(frozen=True)
class TableLegPhysics:
    # --- simulator --------------------------------------------------------------------------------------------
    timestep_s: float = 0.004  # MuJoCo step; 50 physics steps per 0.2 s control step (as peg insertion)
    hole_clearance_m: float = 0.001  # total clearance of the stud in the tabletop's lead-in hole
    # --- thread (helical coupling; see thread.py) ---------------------------------------------------------------
    thread_pitch_m: float = 0.003  # advance per turn (coarse M8-like thread of a 3D-printed furniture part)
    seated_turns: float = 1.5  # turns from engagement to seated (the stud's thread length / pitch)
    thread_friction_torque_range_nm: Range = (0.02, 0.08)  # Coulomb friction torque of the engaged thread
    engage_max_tilt_range_rad: Range = (0.06, 0.08)  # the thread catches only if the leg is this upright
    cross_thread_tilt_range_rad: Range = (0.08, 0.08)  # engaging tilted beyond this cross-threads (jams)
    thread_start_turns_range: Range = (0.0, 0.0)  # turning needed in the lead-in before the thread catches
    # --- contact friction (sliding; the tabletop/rack/pads/table geoms carry `priority`, so theirs wins) --------
    finger_friction_range: Range = (1.0, 1.5)
    tabletop_friction_range: Range = (0.3, 0.6)
    # --- masses -----------------------------------------------------------------------------------------------
    leg_mass_range_kg: Range = (0.05, 0.09)
    arm_mass_scale_range: Range = (0.95, 1.05)  # scales all arm link masses (gravity compensation is model-based)
    # --- joint impedance controller ---------------------------------------------------------------------------
    joint_stiffness_scale_range: Range = (0.8, 1.2)
    joint_damping_ratio_range: Range = (0.8, 1.2)
    gravity_compensation_range: Range = (1.0, 1.0)  # fraction of the *nominal* arm+gripper weight compensated
    actuation_latency_range_s: Range = (0.0, 0.0)
    gripper_force_range_n: Range = (25.0, 45.0)  # per finger
    # --- grasp compliance: a rotational spring at each finger pad about the grasp axis -------------------------
    pad_rotational_stiffness_range: Range = (40.0, 80.0)  # N m / rad
    # --- perception stand-in (leg and hole pose estimates in the observation) ----------------------------------
    perception_position_noise_range_m: Range = (0.0005, 0.002)
    perception_position_bias_range_m: Range = (0.0, 0.001)
    perception_angle_noise_range_rad: Range = (0.005, 0.03)
    joint_position_noise_rad: float = 0.0005
    joint_velocity_noise_rad_s: float = 0.01


# Every (low, high) field is sampled per episode; the draws enter the privileged state in this order.
SAMPLED_FIELDS: tuple[str, ...] = sampled_fields(TableLegPhysics)

# The sim-to-real gap in groups of effects (simdist.tasks.gaps): which part of it costs a policy.
GAP_GROUPS: dict[str, tuple[str, ...]] = {
    "perception": (*PERCEPTION_POSITION_GAP_FIELDS, "perception_angle_noise_range_rad"),
    "arm": ARM_GAP_FIELDS,
    "grasp": (
        "finger_friction_range",
        "gripper_force_range_n",
        "pad_rotational_stiffness_range",
        "leg_mass_range_kg",
        "tabletop_friction_range",
    ),
    "thread": (
        "thread_friction_torque_range_nm",
        "engage_max_tilt_range_rad",
        "cross_thread_tilt_range_rad",
        "thread_start_turns_range",
    ),
}


def default_physics(domain: str) -> TableLegPhysics:
    """Documented defaults: ``sim`` = randomisation ranges, ``real`` = one fixed, harder world."""
    check_domain(domain)
    if domain == "sim":
        return TableLegPhysics()
    return TableLegPhysics(
        thread_friction_torque_range_nm=(0.12, 0.12),  # dry printed thread binds; sim tops out at 0.08
        engage_max_tilt_range_rad=(0.06, 0.06),
        cross_thread_tilt_range_rad=(0.03, 0.03),  # a real thread cross-threads when started tilted
        thread_start_turns_range=(0.0, 1.0),  # where the thread starts is random on the real part
        finger_friction_range=(0.8, 0.8),  # worn pads
        tabletop_friction_range=(0.6, 0.6),
        leg_mass_range_kg=(0.08, 0.08),
        arm_mass_scale_range=(1.06, 1.06),  # heavier than the controller's model: sag
        joint_stiffness_scale_range=(0.6, 0.6),  # softer servo
        joint_damping_ratio_range=(0.8, 0.8),
        gravity_compensation_range=(0.95, 0.95),
        actuation_latency_range_s=(0.03, 0.03),  # unmodelled in sim
        gripper_force_range_n=(20.0, 20.0),
        pad_rotational_stiffness_range=(3.0, 3.0),  # compliant pads: the leg tilts in the fingers
        perception_position_noise_range_m=(0.002, 0.002),
        perception_position_bias_range_m=(0.0015, 0.0015),
        perception_angle_noise_range_rad=(0.03, 0.03),
    )


def sample_physics(physics: TableLegPhysics, rng: np.random.Generator) -> SampledPhysics:
    return sample_ranges(physics, SAMPLED_FIELDS, rng)
