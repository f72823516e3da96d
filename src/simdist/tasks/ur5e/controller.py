"""Cartesian set-point -> joint impedance control.

Python runs only at the 5 Hz control rate: a damped-least-squares IK maps the end-effector set-point to joint
targets (a few iterations on a scratch MjData), and MuJoCo position actuators (kp, kv) plus body gravity
compensation track a linear ramp to those targets at the physics rate. Latency delays the start of the ramp.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from simdist.tasks.ur5e.robot import ARM, ARM_JOINTS, TCP_SITE
from simdist.tasks.ur5e.rotations import rotation_error


@dataclass(frozen=True)
class ControllerConfig:
    ik_iterations: int = 4
    ik_damping: float = 1e-4  # DLS lambda^2
    ramp_fraction: float = 0.5  # joint targets reach the new set-point within this fraction of the period
    substep_chunk: int = 5  # physics steps between joint-target updates along the ramp
    rotation_weight: float = 0.3  # metres per radian in the IK error (keeps position accuracy first)


class DifferentialIK:
    """Damped least-squares IK on the six arm joints, evaluated on a private MjData (never the live one)."""

    def __init__(self, model: mujoco.MjModel, config: ControllerConfig):
        self.model = model
        self.config = config
        self.scratch = mujoco.MjData(model)
        self.site_id = model.site(TCP_SITE).id
        self.qpos_ids = np.array([model.joint(j).qposadr[0] for j in ARM_JOINTS])
        self.dof_ids = np.array([model.joint(j).dofadr[0] for j in ARM_JOINTS])
        self.low = model.jnt_range[[model.joint(j).id for j in ARM_JOINTS], 0]
        self.high = model.jnt_range[[model.joint(j).id for j in ARM_JOINTS], 1]
        self._jacp = np.zeros((3, model.nv))
        self._jacr = np.zeros((3, model.nv))

    def forward(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """TCP position and rotation matrix at arm configuration ``q``."""
        self.scratch.qpos[self.qpos_ids] = q
        mujoco.mj_kinematics(self.model, self.scratch)
        return self.scratch.site_xpos[self.site_id].copy(), self.scratch.site_xmat[self.site_id].reshape(3, 3).copy()

    def solve(
        self, q_start: np.ndarray, target_pos: np.ndarray, target_rot: np.ndarray, iterations: int | None = None
    ) -> np.ndarray:
        q = q_start.copy()
        w = self.config.rotation_weight
        for _ in range(iterations or self.config.ik_iterations):
            pos, rot = self.forward(q)
            error = np.concatenate([target_pos - pos, w * rotation_error(target_rot, rot)])
            if np.max(np.abs(error)) < 1e-5:
                break
            mujoco.mj_comPos(self.model, self.scratch)
            mujoco.mj_jacSite(self.model, self.scratch, self._jacp, self._jacr, self.site_id)
            jac = np.vstack([self._jacp[:, self.dof_ids], w * self._jacr[:, self.dof_ids]])
            dq = jac.T @ np.linalg.solve(jac @ jac.T + self.config.ik_damping * np.eye(6), error)
            q = np.clip(q + dq, self.low, self.high)
        return q


def joint_inertia_diagonal(model: mujoco.MjModel, q: np.ndarray) -> np.ndarray:
    """Diagonal of the joint-space inertia (armature included) at ``q``, used to set critical damping."""
    data = mujoco.MjData(model)
    ids = [model.joint(j).qposadr[0] for j in ARM_JOINTS]
    data.qpos[ids] = q
    mujoco.mj_forward(model, data)
    full = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, full)
    dofs = [model.joint(j).dofadr[0] for j in ARM_JOINTS]
    return np.diag(full)[dofs]


def set_joint_gains(model: mujoco.MjModel, actuator_ids: np.ndarray, kp: np.ndarray, kv: np.ndarray) -> None:
    """Position actuator: force = kp * (ctrl - q) - kv * qdot."""
    model.actuator_gainprm[actuator_ids, 0] = kp
    model.actuator_biasprm[actuator_ids, 1] = -kp
    model.actuator_biasprm[actuator_ids, 2] = -kv


def max_joint_step(control_period_s: float) -> float:
    return ARM.max_joint_speed * control_period_s


def step_with_ramp(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    arm_actuators: np.ndarray,
    q_from: np.ndarray,
    q_to: np.ndarray,
    n_substeps: int,
    latency_steps: int,
    config: ControllerConfig,
) -> None:
    """Advance ``n_substeps`` physics steps while the joint targets ramp from ``q_from`` to ``q_to``."""
    ramp_steps = max(1, int(round(config.ramp_fraction * n_substeps)))
    done = 0
    while done < n_substeps:
        chunk = min(config.substep_chunk, n_substeps - done)
        # Target at the end of this chunk (a first-order hold avoids jerks at the chunk boundary).
        progress = min(max((done + chunk - latency_steps) / ramp_steps, 0.0), 1.0)  # np.clip costs µs on a scalar
        data.ctrl[arm_actuators] = q_from + progress * (q_to - q_from)
        mujoco.mj_step(model, data, nstep=chunk)
        done += chunk
