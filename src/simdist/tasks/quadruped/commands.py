"""Velocity commands g = (vx, vy, ωz) in the body frame.

* :class:`RandomCommands` — training/data-generation commands in the paper's ranges vx ∈ [−0.5, 1.5],
  vy ∈ [−0.5, 0.5], ωz ∈ [−1, 1], resampled every 10 s. The authors mix six command types
  (weights 0.3/0.3/0.01/0.1/0.1/0.2); we keep their three families: constant twist (0.3), constant twist with
  heading control (0.3, ωz = 0.5·heading error, heading stiffness 0.5), stand (0.01), and a smoothly
  drifting twist standing in for their constant-acceleration / random-acceleration / random-jerk types (0.39).
  The ranges are a :class:`CommandRanges`; ``COMMAND_PRESETS["forward"]`` narrows them to mostly-forward
  walking in the evaluation tasks' range (vx 0–1.3 m/s, |vy| ≤ 0.3, |ωz| ≤ 0.6), used to train the expert fast.
* :class:`StraightLineCommand` — the evaluation command of paper §5: a P-controller on base position walks a
  straight line from the start pose, x_des advancing at the target speed; vx = kx·(x_des − x),
  vy = −ky·y, ωz = −kyaw·ψ with the authors' simulation gains kx = ky = kyaw = 1 (errors rotated into the
  body frame).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

COMMAND_LOW = np.array([-0.5, -0.5, -1.0])
COMMAND_HIGH = np.array([1.5, 0.5, 1.0])


@dataclass(frozen=True)
class CommandRanges:
    """Uniform sampling box for (vx, vy, ωz) and the command-type mixture."""

    low: tuple[float, float, float] = (-0.5, -0.5, -1.0)
    high: tuple[float, float, float] = (1.5, 0.5, 1.0)
    stand_prob: float = 0.01


COMMAND_PRESETS = {
    "paper": CommandRanges(),
    "forward": CommandRanges(low=(0.0, -0.3, -0.6), high=(1.3, 0.3, 0.6), stand_prob=0.05),
}
RESAMPLE_S = 10.0
TYPE_WEIGHTS = {"constant": 0.3, "heading": 0.3, "stand": 0.01, "drift": 0.39}
HEADING_STIFFNESS = 0.5
DRIFT_ACCEL_STD = np.array([0.5, 0.25, 0.5])  # per-second random acceleration of the drifting twist


def wrap(angle: np.ndarray) -> np.ndarray:
    return (angle + np.pi) % (2 * np.pi) - np.pi


class RandomCommands:
    def __init__(
        self, num_envs: int, control_period_s: float, rng: np.random.Generator, ranges: CommandRanges = CommandRanges()
    ):
        self.dt, self.rng = control_period_s, rng
        self.low, self.high = np.array(ranges.low, float), np.array(ranges.high, float)
        self.command = np.zeros((num_envs, 3))
        self.kind = np.zeros(num_envs, dtype=int)
        self.heading = np.zeros(num_envs)
        self.drift_rate = np.zeros((num_envs, 3))
        self.steps_left = np.zeros(num_envs, dtype=int)
        self._kinds = list(TYPE_WEIGHTS)
        weights = dict(TYPE_WEIGHTS, stand=ranges.stand_prob)
        self._probs = np.array([weights[k] for k in self._kinds]) / sum(weights.values())

    def resample(self, env_ids: np.ndarray) -> None:
        n = len(env_ids)
        if n == 0:
            return
        self.kind[env_ids] = self.rng.choice(len(self._kinds), size=n, p=self._probs)
        self.command[env_ids] = self.rng.uniform(self.low, self.high, size=(n, 3))
        self.heading[env_ids] = self.rng.uniform(-np.pi, np.pi, size=n)
        self.drift_rate[env_ids] = self.rng.normal(0.0, DRIFT_ACCEL_STD, size=(n, 3))
        stand = env_ids[self.kind[env_ids] == self._kinds.index("stand")]
        self.command[stand] = 0.0
        self.steps_left[env_ids] = int(round(RESAMPLE_S / self.dt))

    def update(self, yaw: np.ndarray) -> np.ndarray:
        """Advance one control step given each base's yaw; returns the (N, 3) command."""
        self.steps_left -= 1
        self.resample(np.flatnonzero(self.steps_left <= 0))
        heading = self.kind == self._kinds.index("heading")
        self.command[heading, 2] = np.clip(
            HEADING_STIFFNESS * wrap(self.heading[heading] - yaw[heading]), self.low[2], self.high[2]
        )
        drift = self.kind == self._kinds.index("drift")
        if drift.any():
            self.drift_rate[drift] += self.rng.normal(0.0, DRIFT_ACCEL_STD * np.sqrt(self.dt), (drift.sum(), 3))
            self.command[drift] += self.drift_rate[drift] * self.dt
            bounced = (self.command[drift] < self.low) | (self.command[drift] > self.high)
            self.drift_rate[drift] = np.where(bounced, -self.drift_rate[drift], self.drift_rate[drift])
            self.command[drift] = np.clip(self.command[drift], self.low, self.high)
        return self.command.copy()


@dataclass
class StraightLineCommand:
    speed: float
    kx: float = 1.0
    ky: float = 1.0
    kyaw: float = 1.0
    start_xy: tuple[float, float] = (0.0, 0.0)
    start_yaw: float = 0.0

    def __call__(self, t: float, xy: np.ndarray, yaw: float) -> np.ndarray:
        c, s = np.cos(self.start_yaw), np.sin(self.start_yaw)
        dx, dy = xy[0] - self.start_xy[0], xy[1] - self.start_xy[1]
        along, across = c * dx + s * dy, -s * dx + c * dy  # position in the start frame
        heading_error = wrap(np.array(yaw - self.start_yaw))
        err_along, err_across = self.speed * t - along, -across
        cos_e, sin_e = np.cos(heading_error), np.sin(heading_error)
        vx = self.kx * (cos_e * err_along + sin_e * err_across)
        vy = self.ky * (-sin_e * err_along + cos_e * err_across)
        wz = -self.kyaw * heading_error
        return np.clip(np.array([vx, vy, float(wz)]), COMMAND_LOW, COMMAND_HIGH)
