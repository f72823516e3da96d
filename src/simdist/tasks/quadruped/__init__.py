"""Go2-like quadruped tasks `slippery-slope` and `foam` (paper §7); see docs/tasks/quadruped.md.

Both share the robot (robot.py), the batched simulation (batch_env.py), the reward (rewards.py) and the
privileged PPO expert (experts.py, train_expert.py); they differ in course geometry (scenes.py) and in what
the `real` domain changes (physics.py). Evaluation grids are the trial speeds; a trial's metric is forward
progress capped at the course length, and success is reaching it.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from simdist.tasks.base import TaskSpec, check_domain, domain_physics
from simdist.tasks.quadruped import experts
from simdist.tasks.quadruped.batch_env import HEIGHT_NOISE_STD, PROPRIO_DIM, PROPRIO_NOISE_STD, SCAN_SHAPE
from simdist.tasks.quadruped.course_env import QuadrupedCourseEnv, time_limit_s
from simdist.tasks.quadruped.physics import GAP_GROUPS, REAL_FOAM, REAL_SLIPPERY_SLOPE, SIM, QuadrupedPhysics
from simdist.tasks.quadruped.robot import CONTROL_PERIOD_S
from simdist.tasks.quadruped.scenes import COURSES, course_for
from simdist.tasks.quadruped.terrain_env import TerrainWalkEnv
from simdist.tasks.registry import register

INITIAL_YAW_RAD = 0.05  # trials start with a small random heading error, ±this
EXPERT_ITERATIONS = 2000  # default PPO budget of train_expert(): the last of the authors' sub-optimal checkpoints


@dataclass(frozen=True)
class CourseTaskConfig:
    name: str
    speeds: tuple[float, ...]
    real_physics: QuadrupedPhysics


class QuadrupedCourseTask:
    physics_type = QuadrupedPhysics
    gap_groups = GAP_GROUPS
    generation_preset = "quadruped"

    def __init__(self, config: CourseTaskConfig):
        self.config = config
        self.course = COURSES[config.name]
        slowest = min(config.speeds)
        self.spec = TaskSpec(
            name=config.name,
            obs_shapes={"proprio": (PROPRIO_DIM,), "height": SCAN_SHAPE},
            action_dim=12,
            action_low=(-10.0,) * 12,
            action_high=(10.0,) * 12,
            control_period_s=CONTROL_PERIOD_S,
            episode_steps=int(round(time_limit_s(self.course, slowest) / CONTROL_PERIOD_S)),
            command_dim=3,
            sensor_noise_std={"proprio": tuple(PROPRIO_NOISE_STD.tolist()), "height": (HEIGHT_NOISE_STD,)},
        )

    default_grid = "all"  # adaptation and comparisons run the paper's trials at every speed

    @property
    def grids(self) -> tuple[str, ...]:
        return tuple(f"{v:g}" for v in self.config.speeds)

    def default_physics(self, domain: str) -> QuadrupedPhysics:
        return {"sim": SIM, "real": self.config.real_physics}[check_domain(domain)]

    def make_env(
        self, domain: str, physics: QuadrupedPhysics | dict | str | None = None, seed: int = 0
    ) -> QuadrupedCourseEnv | TerrainWalkEnv:
        phys = domain_physics(self, domain, physics)
        if phys.scene == "terrain":
            if domain != "sim":
                raise ValueError("scene='terrain' (randomised training terrain) exists only in the sim domain")
            return TerrainWalkEnv(phys, seed=seed)
        if phys.scene != "course":
            raise ValueError(f"unknown scene {phys.scene!r}; valid scenes: ['course', 'terrain']")
        return QuadrupedCourseEnv(
            domain, course_for(self.config.name, phys), phys, default_speed=max(self.config.speeds), seed=seed
        )

    def expert(self) -> experts.PPOPolicy:
        return experts.expert()

    def suboptimal_policies(self) -> list[experts.PPOPolicy]:
        return experts.suboptimal_policies()

    def critic(self) -> experts.PPOCritic:
        return experts.critic()

    def train_expert(self, out_dir: str | Path, budget: int | None = None) -> Path:
        """PPO (train_expert.py) in ``out_dir`` up to ``budget`` iterations in all (resuming; default
        EXPERT_ITERATIONS), then export into experts.CHECKPOINT_DIR. Needs the `rl` extra (rsl-rl-lib)."""

        if importlib.util.find_spec("rsl_rl") is None:
            raise ValueError('training the quadruped expert needs rsl-rl-lib: pip install -e ".[rl]"')
        from simdist.tasks.quadruped import train_expert as ppo_run

        run, done = Path(out_dir), ppo_run.checkpoints(Path(out_dir))
        remaining = (budget or EXPERT_ITERATIONS) - (max(done) + 1 if done else 0)
        common = ["--run", str(run), "--threads", str(torch.get_num_threads()), *ppo_run.CPU_RECIPE_ARGS]
        if remaining > 0:
            ppo_run.main(common + ["--iterations", str(remaining)])
        ppo_run.main(common + ["--export", "--out", str(experts.CHECKPOINT_DIR)])
        return experts.CHECKPOINT_DIR

    def initial_conditions(self, grid: str, n: int, seed: int = 0) -> list[dict[str, Any]]:
        if grid not in self.grids:
            raise KeyError(f"unknown grid {grid!r}; valid grids (trial speeds, m/s): {list(self.grids)}")
        rng = np.random.default_rng(seed)
        return [{"speed": float(grid), "yaw": float(rng.uniform(-INITIAL_YAW_RAD, INITIAL_YAW_RAD))} for _ in range(n)]

    def episode_metrics(self, infos: list[dict]) -> dict[str, float]:
        if not infos:
            return {"success": 0.0, "progress_m": 0.0, "fell": 0.0}
        return {
            "success": float(any(i["success"] for i in infos)),
            "progress_m": float(max(i["progress_m"] for i in infos)),
            "fell": float(infos[-1]["fell"]),
            "time_s": float(infos[-1]["time_s"]),
        }


SLIPPERY_SLOPE = CourseTaskConfig("slippery-slope", (0.1, 0.3, 0.5), REAL_SLIPPERY_SLOPE)
FOAM = CourseTaskConfig("foam", (0.2, 0.7, 1.2), REAL_FOAM)

register("slippery-slope", lambda: QuadrupedCourseTask(SLIPPERY_SLOPE))
register("foam", lambda: QuadrupedCourseTask(FOAM))
