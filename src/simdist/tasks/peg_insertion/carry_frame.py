"""Scripted policies in the carry frame (task `peg-insertion`): the experts plan set-point steps; while the
pads hold the peg, their x/y step becomes the equivalent offset from the perceived alignment point, computed from
the same observation the env will use (ur5e/actions.py). Noise windows then perturb that offset, not the step."""

from __future__ import annotations

import numpy as np

from simdist.tasks.base import PROPRIO_KEY
from simdist.tasks.peg_insertion.layout import PRIVILEGED, PROPRIO, aligned_tcp_xy
from simdist.tasks.ur5e.actions import ControlConfig, carry_action, holds_part


class CarryFramePolicy:
    """Wraps a privileged policy (``act(privileged)``, maybe ``observe(obs)``) whose actions are set-point steps."""

    def __init__(self, policy, control: ControlConfig):
        self.policy, self.control = policy, control
        self.name = policy.name
        self._proprio: np.ndarray | None = None

    def __getattr__(self, name: str):  # tuning, search_offset, ...: the wrapped policy's
        return getattr(self.policy, name)

    def reset(self, rng: np.random.Generator) -> None:
        self._proprio = None
        self.policy.reset(rng)

    def observe(self, obs: dict) -> None:
        self._proprio = np.asarray(obs[PROPRIO_KEY], dtype=np.float64)
        if hasattr(self.policy, "observe"):
            self.policy.observe(obs)

    def act(self, privileged: np.ndarray) -> np.ndarray:
        if self._proprio is None:
            raise RuntimeError("a carry-frame policy converts with the current observation: call observe(obs) first")
        action = np.asarray(self.policy.act(privileged), dtype=np.float64)
        get = lambda name: PROPRIO.get(self._proprio, name)  # noqa: E731
        if not holds_part(action, float(get("gripper_opening")[0]), self.control):
            return action
        aligned = aligned_tcp_xy(get("tcp_pos"), get("peg_to_hole_est"))
        return carry_action(action, PRIVILEGED.get(privileged, "setpoint_pos"), aligned, self.control)
