"""Quadruped physics for every domain: the one place these numbers live.

`sim` is the PPO / data-generation distribution (paper Table IV domain randomisation, re-drawn per reset):
trunk mass −1…+3 kg, foot friction 0.2–1.2 (one value for all feet), Kp and Kd each ×0.9–1.1, joint
friction 0–0.05 N·m, reset joint angles ×0.95–1.05. Feet carry contact ``priority`` 1, so *their* friction
governs foot contacts (MuJoCo otherwise takes the max of the two geoms' values, machine-facts §3). Course
surfaces get priority 0 in `sim`: the randomised feet decide, exactly as in training; the foam pads are rigid.

`real` stands in for the physical robot and is not randomised:
* Slippery Slope: PTFE panels with μ = 0.15, below the 0.2 sim floor, applied with priority 2 so they override
  the feet: a standing robot creeps down the 5.7° panel (0.14 m in 2 s, against 0.02 m in `sim`) and the
  privileged expert slips (success 0.13, 1.43 m of 1.82). μ must stay above tan 5.7° ≈ 0.10, or no gait can
  climb at all: with the earlier μ = 0.075 (the PTFE-on-thermoplastic handbook value) total friction cannot
  hold the robot's weight on that panel, and the expert itself stopped at its foot (docs/findings.md). The
  paper's robot crossed its panels after adaptation, so its effective friction was above that bound.
* Foam: the pads become compliant through solref (0.05 s, damping ratio 1) and solimp (0.9, 0.9, 0.05) with
  priority 2: a standing robot's feet sink ≈ 2.9 cm (front) / 2.3 cm (rear) into the 5 cm pads (measured,
  tests/test_quadruped.py). machine-facts §3's softer (0.1 s; 0.7) recipe lets this robot's feet go through
  to the floor. MuJoCo soft contacts are acceleration-based, so sink does not scale with load as foam's does.
Override any field from a JSON/YAML file with ``--physics FILE`` (see simdist.tasks.base.domain_physics).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from simdist.tasks.physics_schema import Limit

RIGID_SOLREF = (0.02, 1.0)  # MuJoCo defaults
RIGID_SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)


@dataclass(frozen=True)
class QuadrupedPhysics:
    # Domain randomisation, drawn per reset (a degenerate range fixes the value).
    trunk_mass_offset_range: tuple[float, float] = (-1.0, 3.0)  # kg added to the 6.92 kg trunk
    foot_friction_range: tuple[float, float] = (0.2, 1.2)  # sliding μ of all four feet
    kp_scale_range: tuple[float, float] = (0.9, 1.1)  # × 25 N·m/rad
    kd_scale_range: tuple[float, float] = (0.9, 1.1)  # × 0.5 N·m·s/rad
    joint_friction_range: tuple[float, float] = (0.0, 0.05)  # N·m, per joint (dof frictionloss)
    reset_joint_scale_range: tuple[float, float] = (0.95, 1.05)
    obs_noise_scale: float = 0.0  # × the authors' observation-noise stds (0: clean, as in data generation)
    # What the robot walks on: "course" (the task's course) or "terrain" (randomised training terrain with random
    # commands, sim only: the paper's data-generation setting, see terrain_env.py).
    scene: str = "course"
    # Course surfaces (ignored on the training heightfield).
    panel_friction: float = 1.0  # slippery-slope panels
    panel_priority: int = 0  # > 1 makes panel_friction override the feet's
    # Domain randomisation of the panels' μ, drawn per reset; None keeps panel_friction. Only matters with
    # panel_priority > 1 (otherwise the feet's friction decides).
    panel_friction_range: tuple[float, float] | None = None
    foam_solref: tuple[float, float] = RIGID_SOLREF
    foam_solimp: tuple[float, float, float, float, float] = RIGID_SOLIMP
    foam_priority: int = 0  # > 1 makes the foam's solref/solimp govern foot contacts
    # Course geometry (scenes.course_for). Slippery slope: one panel per angle, each slope_panel_length_m long along
    # the course, rising one after the other, then a plateau. Foam: one pad per length, each overlapping the one
    # before by foam_pad_overlap_m (the later pad lying on the earlier one there). Both courses end
    # COURSE_RUNOUT_M past their last panel or pad.
    slope_panel_angles_deg: tuple[float, ...] = (3.0, 5.7)
    slope_panel_length_m: float = 0.76
    slope_panel_thickness_m: float = 0.03
    foam_pad_lengths_m: tuple[float, ...] = (1.6, 1.5)
    foam_pad_overlap_m: float = 0.4
    foam_pad_thickness_m: float = 0.05

    LIMITS: ClassVar[dict[str, Limit]] = {
        "slope_panel_angles_deg": Limit(ge=0.0, le=30.0, unit="deg"),  # up-slopes a walking robot can face
        "foam_pad_overlap_m": Limit(ge=0.0, unit="m"),
        "panel_priority": Limit(ge=0),
        "foam_priority": Limit(ge=0),
    }

    def __post_init__(self) -> None:
        if not self.slope_panel_angles_deg or not self.foam_pad_lengths_m:
            raise ValueError("slope_panel_angles_deg and foam_pad_lengths_m need at least one value")
        if self.foam_pad_overlap_m >= min(self.foam_pad_lengths_m):
            raise ValueError(
                f"foam_pad_overlap_m = {self.foam_pad_overlap_m:g}: must be < the shortest pad "
                f"({min(self.foam_pad_lengths_m):g} m)"
            )


SIM = QuadrupedPhysics()
_REAL_ROBOT = dict(  # one fixed, in-range robot: no randomisation on hardware
    trunk_mass_offset_range=(0.5, 0.5),
    foot_friction_range=(0.8, 0.8),
    kp_scale_range=(1.0, 1.0),
    kd_scale_range=(1.0, 1.0),
    joint_friction_range=(0.02, 0.02),
    reset_joint_scale_range=(1.0, 1.0),
    obs_noise_scale=1.0,
)
REAL_SLIPPERY_SLOPE = QuadrupedPhysics(**_REAL_ROBOT, panel_friction=0.15, panel_priority=2)
REAL_FOAM = QuadrupedPhysics(
    **_REAL_ROBOT, foam_solref=(0.05, 1.0), foam_solimp=(0.9, 0.9, 0.05, 0.5, 2.0), foam_priority=2
)
# The sim-to-real gap in groups of effects (simdist.tasks.gaps); each task's gap is the fields that differ for it.
GAP_GROUPS: dict[str, tuple[str, ...]] = {
    "robot": (
        "trunk_mass_offset_range",
        "foot_friction_range",
        "kp_scale_range",
        "kd_scale_range",
        "joint_friction_range",
        "reset_joint_scale_range",
    ),
    "sensing": ("obs_noise_scale",),
    "ground": ("panel_friction", "panel_priority", "foam_solref", "foam_solimp", "foam_priority"),
}
