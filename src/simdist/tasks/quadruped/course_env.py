"""One Go2-like robot on an evaluation course, as a Gymnasium env (paper §7 Slippery Slope and Foam).

The command comes from the straight-line P-controller (commands.StraightLineCommand) at the trial's target
speed. ``progress_m`` is the forward distance from the start along the course axis, capped at the course
length; the trial succeeds once the robot has stood past the finish line (a foot on the ground) for
``FINISH_HOLD_S`` without falling: a body thrown across the line is not a walk (a replayed RLPD episode with
saturated actions flew 1.5 m across it and landed on one foot). It ends on success, on a fall (body contact or
tilt > 60°), or at the time limit 1.5 × length / speed + 3 s (+ the hold).

``sim`` puts ``info["privileged"]`` and ``info["dense_reward"]`` (the Table V reward, also the step reward) in
``info``; ``real`` does not, and its reward is 1.0 on the step the course is first completed.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from simdist.tasks.base import check_domain
from simdist.tasks.quadruped.batch_env import PROPRIO_DIM, SCAN_SHAPE, QuadrupedBatchEnv
from simdist.tasks.quadruped.commands import StraightLineCommand
from simdist.tasks.quadruped.physics import QuadrupedPhysics
from simdist.tasks.quadruped.scenes import Course, CourseScene

TIME_MARGIN_FACTOR = 1.5
TIME_MARGIN_S = 3.0
FINISH_HOLD_S = 0.5  # upright past the finish line this long, from the first step with a foot on the ground there


def time_limit_s(course: Course, speed: float) -> float:
    return TIME_MARGIN_FACTOR * course.length_m / speed + TIME_MARGIN_S + FINISH_HOLD_S


class QuadrupedCourseEnv(gym.Env):
    metadata = {"render_modes": []}

    def __init__(self, domain: str, course: Course, physics: QuadrupedPhysics, default_speed: float, seed: int = 0):
        self.domain, self.course, self.physics = check_domain(domain), course, physics
        self.default_speed = default_speed
        self.batch = QuadrupedBatchEnv(
            1, CourseScene(course, physics), physics, seed=seed, random_commands=False, auto_reset=False, episode_s=1e6
        )
        self.observation_space = gym.spaces.Dict(
            {
                "proprio": gym.spaces.Box(-np.inf, np.inf, (PROPRIO_DIM,), np.float32),
                "height": gym.spaces.Box(-np.inf, np.inf, SCAN_SHAPE, np.float32),
                "command": gym.spaces.Box(-np.inf, np.inf, (3,), np.float32),
            }
        )
        self.action_space = gym.spaces.Box(-10.0, 10.0, (12,), np.float32)
        self.controller = StraightLineCommand(default_speed)

    # ------------------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.batch.rng = np.random.default_rng(seed)
        ic = (options or {}).get("initial_condition") or {}
        speed = float(ic.get("speed", self.default_speed))
        self.batch.reset(np.array([0]), initial_yaw=float(ic.get("yaw", 0.0)))
        self.controller = StraightLineCommand(
            speed, start_xy=tuple(self.batch.qpos[0, :2]), start_yaw=float(self.batch.yaw[0])
        )
        self.start_x = float(self.batch.qpos[0, 0])
        self.max_steps = int(round(time_limit_s(self.course, speed) / self.batch.dt))
        self.steps, self.solved, self.best_progress = 0, False, 0.0
        self.finish_step: int | None = None  # first step past the line with a foot on the ground
        self._update_command()
        return self._single(self.batch.observations()), self._info(fell=False)

    def _update_command(self) -> None:
        t = self.steps * self.batch.dt
        self.batch.set_command(self.controller(t, self.batch.qpos[0, :2], float(self.batch.yaw[0]))[None])

    def progress_m(self) -> float:
        return float(np.clip(self.batch.qpos[0, 0] - self.start_x, 0.0, self.course.length_m))

    def oracle_privileged_state(self) -> np.ndarray:
        return self.batch.privileged()[0]

    def _single(self, obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {k: v[0] for k, v in obs.items()}

    def _info(self, fell: bool) -> dict:
        progress = self.progress_m()
        self.best_progress = max(self.best_progress, progress)
        held = self.finish_step is not None and (self.steps - self.finish_step) * self.batch.dt >= FINISH_HOLD_S - 1e-9
        info = {
            "success": bool(held and not fell),
            "progress_m": self.best_progress,
            "fell": bool(fell),
            "time_s": self.steps * self.batch.dt,
        }
        if self.domain == "sim":
            info["privileged"] = self.oracle_privileged_state()
        return info

    def step(self, action):
        a = np.asarray(action, np.float64).reshape(-1)
        if a.shape != (12,) or not np.all(np.isfinite(a)):
            raise ValueError(f"action must be 12 finite values, got shape {a.shape}")
        _, reward, terminated, _, _ = self.batch.step(a[None], observe=False, with_privileged=False)
        self.steps += 1
        past_line = self.progress_m() >= self.course.length_m - 1e-9
        if self.finish_step is None and past_line and self.batch.foot_contact()[0].any():
            self.finish_step = self.steps
        self._update_command()
        obs = self._single(self.batch.observations())
        info = self._info(fell=bool(terminated[0]))
        first_success = info["success"] and not self.solved
        self.solved = self.solved or info["success"]
        if self.domain == "sim":
            info["dense_reward"] = float(reward[0])
            step_reward = float(reward[0])
        else:
            step_reward = 1.0 if first_success else 0.0
        truncated = (self.steps >= self.max_steps) or info["success"]
        return obs, step_reward, bool(terminated[0]), bool(truncated and not terminated[0]), info
