"""The DAgger recipe (`simdist dagger --set FIELD=VALUE`)."""

from __future__ import annotations

from dataclasses import dataclass

from simdist.config import FinetuneConfig, LossConfig


@dataclass(frozen=True)
class DaggerConfig:
    """Defaults: the recipe of `checkpoints/quadruped-lowfric-dagger` (docs/tasks/slippery-slope.md)."""

    rounds: int = 1
    episodes_per_grid: int = 40  # per round, on each of `grids`
    grids: tuple[str, ...] = ()  # the task's grids (the quadruped's speeds) when empty
    steps: int = 5000  # head-only training steps per round, on all DAgger labels so far
    sensor_noise_steps: int = 5000  # then with the task's sensor noise on the head's inputs; 0 = no such stage
    batch_size: int = 128
    lr: float = 1e-4
    lr_end: float = 5e-5
    warmup_steps: int = 100
    sim_replay_fraction: float = 0.5  # share of each batch from the simulation dataset
    # Episodes per grid on which the output head alone is evaluated in `sim` (same physics as the collection),
    # beside the input head's success that round 1's collection measures; 0 = no evaluation.
    eval_episodes_per_grid: int = 20
    seed: int = 100  # episodes: initial conditions, domain randomisation, expert noise
    train_seed: int = 0  # head training: batches and validation split
    # Heads trained in the last round (and its sensor-noise stage), with training seeds train_seed, train_seed + 1, …;
    # the one with the best `sim` evaluation becomes the output. The recipe's `real` score varies with its seed
    # (0.62-0.98 on the slope) and `sim` with the robot's sensor noise ranks the seeds
    # (docs/tasks/slippery-slope.md).
    candidates: int = 1
    # Width of a single-step BC head that round 1 adds beside a SimDist model's chunk head (ModelConfig.
    # policy_step_width; 0 = none): its action is the one deployed. On Foam an MLP on the frozen latent transfers
    # where the chunk head does not (docs/tasks/foam.md).
    step_head_width: int = 0
    # Also train the head on windows that start in each DAgger episode's last T steps (TrainConfig.tail_windows):
    # the states before a fall. On Foam they lifted the step head alone from 0.18 to 0.62 (docs/tasks/foam.md).
    # Off by default: the shipped slope head was trained without them.
    tail_windows: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "grids", tuple(self.grids))
        if (
            min(self.rounds, self.episodes_per_grid, self.steps, self.candidates) < 1
            or min(self.sensor_noise_steps, self.eval_episodes_per_grid) < 0
        ):
            raise ValueError(
                "DAgger needs rounds, episodes_per_grid, steps and candidates >= 1 and "
                f"sensor_noise_steps, eval_episodes_per_grid >= 0: {self}"
            )
        if self.step_head_width < 0:
            raise ValueError(f"step_head_width must be >= 0 (0: no single-step head), got {self.step_head_width}")
        if self.candidates > 1 and not self.eval_episodes_per_grid:
            raise ValueError("choosing among candidate heads needs their sim evaluation: eval_episodes_per_grid > 0")

    def head_finetune(self, steps: int) -> FinetuneConfig:
        """The policy head alone, on the BC term alone (the DAgger data has no reward or value)."""
        return FinetuneConfig(
            steps=steps,
            batch_size=self.batch_size,
            lr=self.lr,
            lr_end=self.lr_end,
            warmup_steps=self.warmup_steps,
            trainable=("policy",),
            loss=LossConfig(latent=0.0, reward=0.0, value=0.0, bc=1.0, ensemble=0.0),
            sim_replay_fraction=self.sim_replay_fraction,
            tail_windows=self.tail_windows,
        )
