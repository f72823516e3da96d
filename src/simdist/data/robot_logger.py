"""The physical-robot path: an episode logger a robot process calls, and the environment contract.

A robot is driven through the same interface as a task's `real` domain (see `simdist.tasks.base`):

    obs, info = env.reset(options={"initial_condition": ic})     # obs: {"proprio": …, ["height": …], ["command": …]}
    obs, reward, terminated, truncated, info = env.step(action)  # info["success"]: bool

so `simdist adapt` and `simdist evaluate` cannot tell a robot from the simulator's `real` stand-in. A robot
stack that runs its own control loop (ROS, a vendor SDK) instead logs with :class:`EpisodeLogger` and finetunes
offline: `simdist finetune --checkpoint RUN --data LOG_DIR --out RUN2`. See docs/real-robot.md.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from simdist.data.episodes import DatasetError, DatasetInfo, Episode, create_dataset, write_episodes
from simdist.tasks.base import COMMAND_KEY


class EpisodeLogger:
    """Buffers one episode in memory and writes it atomically when it ends.

    A crash, power cut or kill -9 loses at most the episode in progress: every finished episode is already a
    complete file. Each step is validated as it is logged, so bad data is rejected at once with a clear
    error instead of corrupting the dataset later.
    """

    def __init__(
        self,
        root: str | Path,
        task: str,
        obs_shapes: dict[str, tuple[int, ...]],
        action_dim: int,
        control_period_s: float,
        command_dim: int = 0,
        action_low: tuple[float, ...] = (),
        action_high: tuple[float, ...] = (),
        notes: str = "",
    ):
        self.info = DatasetInfo(
            task=task,
            domain="real",
            control_period_s=control_period_s,
            obs_shapes=obs_shapes,
            action_dim=action_dim,
            command_dim=command_dim,
            action_low=action_low,
            action_high=action_high,
            notes=notes,
        )
        self.root = create_dataset(root, self.info)
        self._steps: list[tuple[dict[str, np.ndarray], np.ndarray, bool]] = []
        self._open = False

    def start(self) -> None:
        if self._open:
            raise RuntimeError("an episode is already open; call end() or discard() first")
        self._steps, self._open = [], True

    def log(self, obs: dict[str, np.ndarray], action: np.ndarray, corrected: bool = False) -> None:
        """Record o_t (the observation the action was chosen from) and a_t (the action sent to the robot).
        `corrected=True` marks a step an operator drove (a takeover): finetuning with the policy head trainable
        clones those steps (simdist.adaptation.corrections); every step trains the dynamics."""
        if not self._open:
            raise RuntimeError("call start() before log()")
        groups = dict(self.info.obs_shapes)
        if self.info.command_dim:
            groups[COMMAND_KEY] = (self.info.command_dim,)
        clean = {}
        for name, shape in groups.items():
            if name not in obs:
                raise DatasetError(
                    f"step {len(self._steps)}: observation is missing {name!r}; expected {sorted(groups)}"
                )
            arr = np.asarray(obs[name], np.float32)
            if arr.shape != tuple(shape) or not np.isfinite(arr).all():
                raise DatasetError(
                    f"step {len(self._steps)}: {name!r} must be finite with shape {tuple(shape)}, got {arr.shape}"
                )
            clean[name] = arr
        action = np.asarray(action, np.float32).reshape(-1)
        if action.shape != (self.info.action_dim,) or not np.isfinite(action).all():
            raise DatasetError(f"step {len(self._steps)}: action must be {self.info.action_dim} finite values")
        self._steps.append((clean, action, bool(corrected)))

    def end(self, success: bool, metrics: dict[str, float] | None = None, name: str | None = None) -> Path | None:
        """Write the episode (atomically); returns its file, or None for an empty episode."""
        if not self._open:
            raise RuntimeError("no episode is open")
        self._open = False
        if not self._steps:
            return None
        obs = {g: np.stack([s[0][g] for s in self._steps]) for g in self.info.obs_shapes}
        command = np.stack([s[0][COMMAND_KEY] for s in self._steps]) if self.info.command_dim else None
        flags = np.array([s[2] for s in self._steps])
        episode = Episode(
            obs=obs,
            action=np.stack([s[1] for s in self._steps]),
            command=command,
            expert=flags if flags.any() else None,  # operator flags, only when there were takeovers
            success=bool(success),
            source_policy="robot+operator" if flags.any() else "robot",
            metrics=dict(metrics or {}),
        )
        ns = time.time_ns()  # readable and in logging order, also for episodes ended within one second
        name = name or time.strftime("%Y%m%d-%H%M%S", time.gmtime(ns // 1_000_000_000)) + f"-{ns % 1_000_000_000:09d}"
        self._steps = []
        return write_episodes(self.root, [episode], name=name)

    def discard(self) -> None:
        """Drop the episode in progress (e.g. an operator abort)."""
        self._steps, self._open = [], False
