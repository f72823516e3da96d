"""One robot on the randomised training terrain with random commands: the paper's data-generation setting.

Selected with the physics field ``scene="terrain"`` (e.g. ``simdist generate foam --physics terrain.yaml`` with
``scene: terrain``). Each reset draws a new sub-terrain at a uniformly random difficulty (no curriculum during
data generation, as in the authors' setup), DR and a command; episodes last 20 s. An episode "succeeds" when
it reaches the time limit without falling; ``progress_m`` is the straight-line distance walked.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from simdist.tasks.quadruped.batch_env import EPISODE_S, PROPRIO_DIM, SCAN_SHAPE, QuadrupedBatchEnv
from simdist.tasks.quadruped.physics import QuadrupedPhysics
from simdist.tasks.quadruped.scenes import TrainingScene


class TerrainWalkEnv(gym.Env):
    metadata = {"render_modes": []}

    def __init__(self, physics: QuadrupedPhysics, seed: int = 0):
        self.domain, self.physics = "sim", physics
        self.batch = QuadrupedBatchEnv(
            1,
            TrainingScene(1, curriculum=False),
            physics,
            seed=seed,
            random_commands=True,
            auto_reset=False,
            episode_s=EPISODE_S,
        )
        self.observation_space = gym.spaces.Dict(
            {
                "proprio": gym.spaces.Box(-np.inf, np.inf, (PROPRIO_DIM,), np.float32),
                "height": gym.spaces.Box(-np.inf, np.inf, SCAN_SHAPE, np.float32),
                "command": gym.spaces.Box(-np.inf, np.inf, (3,), np.float32),
            }
        )
        self.action_space = gym.spaces.Box(-10.0, 10.0, (12,), np.float32)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.batch.rng = np.random.default_rng(seed)
            self.batch.commands.rng = self.batch.rng
        self.batch.reset(np.array([0]))
        self.start_xy = self.batch.qpos[0, :2].copy()
        obs = {k: v[0] for k, v in self.batch.observations().items()}
        return obs, self._info(False, False)

    def _info(self, fell: bool, timed_out: bool) -> dict:
        return {
            "success": bool(timed_out and not fell),
            "fell": bool(fell),
            "progress_m": float(np.linalg.norm(self.batch.qpos[0, :2] - self.start_xy)),
            "time_s": float(self.batch.step_count[0] * self.batch.dt),
            "privileged": self.batch.privileged()[0],
        }

    def oracle_privileged_state(self) -> np.ndarray:
        return self.batch.privileged()[0]

    def step(self, action):
        a = np.asarray(action, np.float64).reshape(1, 12)
        _, reward, terminated, truncated, _ = self.batch.step(a, observe=False, with_privileged=False)
        obs = self.batch.observations()
        info = self._info(bool(terminated[0]), bool(truncated[0]))
        info["dense_reward"] = float(reward[0])
        return {k: v[0] for k, v in obs.items()}, float(reward[0]), bool(terminated[0]), bool(truncated[0]), info
