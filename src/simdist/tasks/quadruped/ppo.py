"""rsl-rl-lib (5.5.1) glue for the privileged quadruped expert: a VecEnv adapter and the PPO configuration.

Actor and critic both read one observation group, ``"policy"`` = the 433-D privileged state (the authors share
one group between them). PPO settings are the authors' (paper §4 / official-code-notes §2.1): 24 steps per env
and iteration, clip 0.2, entropy 0.01, 5 epochs × 4 minibatches, lr 1e-3 adaptive (KL 0.01), γ 0.99, λ 0.95,
clipped value loss with coefficient 1, gradient norm 1, initial action std 1.0, ELU.
CPU deviations (documented in docs/tasks/quadruped.md): hidden layers [256, 256, 128] instead of
[512, 512, 512] and far fewer envs than 4096. :class:`PPOSettings` holds the knobs the CPU runs vary (envs,
learning-rate schedule, epochs, observation normalisation, command preset, terrain kinds); its defaults are the
authors' settings.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
from rsl_rl.env import VecEnv
from tensordict import TensorDict

from simdist.tasks.quadruped import terrain
from simdist.tasks.quadruped.batch_env import QuadrupedBatchEnv
from simdist.tasks.quadruped.commands import COMMAND_PRESETS
from simdist.tasks.quadruped.physics import SIM
from simdist.tasks.quadruped.scenes import TrainingScene

NUM_STEPS_PER_ENV = 24


@dataclass(frozen=True)
class PPOSettings:
    """Everything that shapes a training run; saved as ``settings.json`` in the run folder so that resumed
    chunks, ``--export`` and ``--probe`` rebuild the same networks and environment."""

    num_envs: int = 128
    hidden_dims: tuple[int, ...] = (256, 256, 128)
    obs_normalization: bool = False
    learning_rate: float = 1e-3
    schedule: str = "adaptive"  # or "fixed"
    desired_kl: float = 0.01
    num_learning_epochs: int = 5
    num_mini_batches: int = 4
    entropy_coef: float = 0.01
    init_std: float = 1.0
    commands: str = "paper"  # a key of commands.COMMAND_PRESETS
    terrains: tuple[str, ...] = terrain.TERRAIN_KINDS
    reward_overrides: dict[str, float] = field(default_factory=dict)  # Table V weights replaced in training

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def from_json(cls, text: str) -> "PPOSettings":
        raw = json.loads(text)
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()})


def ppo_config(settings: PPOSettings = PPOSettings(), save_interval: int = 50) -> dict:
    mlp = {
        "class_name": "MLPModel",
        "hidden_dims": list(settings.hidden_dims),
        "activation": "elu",
        "obs_normalization": settings.obs_normalization,
    }
    return {
        "num_steps_per_env": NUM_STEPS_PER_ENV,
        "save_interval": save_interval,
        "obs_groups": {"actor": ["policy"], "critic": ["policy"]},
        "algorithm": {
            "class_name": "PPO",
            "value_loss_coef": 1.0,
            "use_clipped_value_loss": True,
            "clip_param": 0.2,
            "entropy_coef": settings.entropy_coef,
            "num_learning_epochs": settings.num_learning_epochs,
            "num_mini_batches": settings.num_mini_batches,
            "learning_rate": settings.learning_rate,
            "schedule": settings.schedule,
            "gamma": 0.99,
            "lam": 0.95,
            "desired_kl": settings.desired_kl,
            "max_grad_norm": 1.0,
        },
        "actor": {
            **mlp,
            "distribution_cfg": {
                "class_name": "GaussianDistribution",
                "init_std": settings.init_std,
                "std_type": "scalar",
            },
        },
        "critic": dict(mlp),
        "logger": "tensorboard",
        "check_for_nan": True,
    }


class QuadrupedVecEnv(VecEnv):
    """Exposes a :class:`QuadrupedBatchEnv` on randomised training terrain to rsl-rl, and logs progress.

    ``progress_path`` receives one JSON line per PPO iteration (every 24 env steps): env steps, wall time,
    env-steps/s of the simulation alone, mean return and length of the episodes finished in that iteration,
    mean terrain level, and the mean of each weighted reward term.
    """

    def __init__(
        self,
        num_envs: int,
        seed: int = 0,
        progress_path: str | Path | None = None,
        start_iteration: int = 0,
        commands: str = "paper",
        terrains: tuple[str, ...] = terrain.TERRAIN_KINDS,
        reward_overrides: dict[str, float] | None = None,
    ):
        self.batch = QuadrupedBatchEnv(
            num_envs,
            TrainingScene(num_envs, kinds=tuple(terrains)),
            SIM,
            seed=seed,
            command_ranges=COMMAND_PRESETS[commands],
            reward_overrides=reward_overrides,
        )
        self.num_envs, self.num_actions = num_envs, 12
        self.max_episode_length = self.batch.max_steps
        self.device = "cpu"
        self.cfg = {"num_envs": num_envs, "physics": "SIM", "seed": seed}
        self.progress_path = Path(progress_path) if progress_path else None
        self.iteration = start_iteration
        self._returns = np.zeros(num_envs)
        self._finished: list[tuple[float, int]] = []
        self._term_sums: dict[str, float] = {}
        self._sim_seconds, self._steps_in_iter, self._start = 0.0, 0, time.time()

    @property
    def episode_length_buf(self) -> torch.Tensor:
        return torch.as_tensor(self.batch.step_count)

    @episode_length_buf.setter
    def episode_length_buf(self, value: torch.Tensor) -> None:
        # rsl-rl's init_at_random_ep_len staggers time-outs; keep the env's own counter authoritative
        self.batch.step_count[:] = value.cpu().numpy()

    def _obs(self, privileged: np.ndarray) -> TensorDict:
        return TensorDict({"policy": torch.from_numpy(privileged)}, batch_size=[self.num_envs])

    def get_observations(self) -> TensorDict:
        return self._obs(self.batch.privileged())

    def step(self, actions: torch.Tensor):
        t0 = time.perf_counter()
        lengths_before = self.batch.step_count.copy() + 1
        _, reward, terminated, truncated, info = self.batch.step(actions.cpu().numpy(), observe=False)
        self._sim_seconds += time.perf_counter() - t0
        done = terminated | truncated
        self._returns += reward
        for i in np.flatnonzero(done):
            self._finished.append((float(self._returns[i]), int(lengths_before[i])))
        self._returns[done] = 0.0
        for k, v in info["reward_terms"].items():
            self._term_sums[k] = self._term_sums.get(k, 0.0) + float(np.mean(v))
        self._steps_in_iter += 1
        if self._steps_in_iter == NUM_STEPS_PER_ENV:
            self._write_progress()
        extras = {
            "time_outs": torch.from_numpy(truncated),
            "log": {"/terrain_level": float(np.mean(self.batch.scene.curriculum.level))},
        }
        return (
            self._obs(info["privileged"]),
            torch.from_numpy(reward.astype(np.float32)),
            torch.from_numpy(done),
            extras,
        )

    def _write_progress(self) -> None:
        steps = self._steps_in_iter * self.num_envs
        record = {
            "iteration": self.iteration,
            "wall_s": round(time.time() - self._start, 2),
            "sim_env_steps_per_s": round(steps / max(self._sim_seconds, 1e-9), 1),
            "episodes": len(self._finished),
            "mean_return": float(np.mean([r for r, _ in self._finished])) if self._finished else None,
            "mean_length": float(np.mean([n for _, n in self._finished])) if self._finished else None,
            "terrain_level": float(np.mean(self.batch.scene.curriculum.level)),
            "reward_terms": {k: v / self._steps_in_iter for k, v in self._term_sums.items()},
        }
        if self.progress_path is not None:
            with self.progress_path.open("a") as f:
                f.write(json.dumps(record) + "\n")
        self.iteration += 1
        self._finished, self._term_sums, self._sim_seconds, self._steps_in_iter = [], {}, 0.0, 0
