"""Alg. 2's data regime: who acts, when the action noise is on and how strong, and where episodes start.

The paper gives two regimes (manipulation at 5 Hz, the quadruped at 50 Hz); `control` restates them in seconds and
action-range units for small control tasks. docs/data.md lists every field.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from simdist.presets import Registry


@dataclass(frozen=True)
class GenerationConfig:
    expert_prob: float = 0.5
    noise_on_steps: tuple[int, int] = (1, 5)  # inclusive range of a noise-on window
    noise_off_steps: tuple[int, int] = (5, 10)  # inclusive range of a noise-off window
    noise_std_range: tuple[float, float] = (0.05, 0.5)  # per instance and action dimension, action units
    never_noise_prob: float = 0.0  # share of instances that are never noised
    start_noised_prob: float = 0.5
    episodes_per_file: int = 50
    # The regime in physical units, where set: window lengths in seconds (replacing the step ranges, converted with
    # the task's control period) and the std in fractions of each action's half-range (replacing action units).
    noise_on_s: tuple[float, float] | None = None
    noise_off_s: tuple[float, float] | None = None
    noise_std_of_range: bool = False
    # Diverse resets (data/resets.py): this share of episodes starts at a state from the second half of a noised
    # expert run, so a long task's late phases (alignment, insertion) get a share of the data that their few steps
    # per episode would not give them.
    mid_task_prob: float = 0.0
    mid_task_s: float | None = None  # recorded length of such an episode, seconds (None: up to the task's limit)
    mid_task_starts_per_run: int = 4  # starts taken from one expert run (data/resets.py)
    # Who fills the expert's slot: "expert" (the task's privileged expert, the paper's) or one of the task's
    # `teachers()` (Peg Insertion: "perceiving", aiming at the perceived hole; tasks/peg_insertion/teacher.py).
    teacher: str = "expert"
    # Who plays the runs that mid-task starts are taken from: None (the teacher) or one of the task's `teachers()` or
    # `starters()` (Peg Insertion: "misaligned", an expert a few millimetres off in where it believes the hole is, so
    # the starts hover, press and stall beside the mouth; tasks/peg_insertion/starters.py).
    mid_task_starter: str | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.mid_task_prob <= 1.0:
            raise ValueError(f"data.mid_task_prob is a share within [0, 1], got {self.mid_task_prob}")
        if self.mid_task_s is not None and self.mid_task_s <= 0:
            raise ValueError(f"data.mid_task_s is a positive number of seconds or none, got {self.mid_task_s}")
        if self.mid_task_starts_per_run < 1:
            raise ValueError(f"data.mid_task_starts_per_run must be at least 1, got {self.mid_task_starts_per_run}")

    def window_steps(self, control_period_s: float) -> tuple[tuple[int, int], tuple[int, int]]:
        """The (on, off) window ranges in control steps at `control_period_s` (at least one step each)."""
        steps = lambda s: tuple(max(1, round(x / control_period_s)) for x in s)
        return (
            steps(self.noise_on_s) if self.noise_on_s else tuple(self.noise_on_steps),
            steps(self.noise_off_s) if self.noise_off_s else tuple(self.noise_off_steps),
        )


GENERATION_PRESETS = {
    # Paper, manipulation: on U[1,5], off U[5,10] (the std range is not published; ours is in bounded units).
    "manipulation": GenerationConfig(),
    # Paper/authors, quadruped: on U[1,50), off U[25,500), σ ~ U[0.05, 2.5] per joint, 2.5 % never noised.
    "quadruped": GenerationConfig(
        noise_on_steps=(1, 49), noise_off_steps=(25, 499), noise_std_range=(0.05, 2.5), never_noise_prob=0.025
    ),
    # Small control tasks (10-50 Hz), in physical units: noise for 0.1-0.5 s between clean stretches of 1-3 s, σ a
    # twentieth to a quarter of each action's half-range, so that the expert recovers in between at any control rate
    # (half the range dropped InvertedPendulum's expert to 0.56; docs/findings.md, "Data, training and checkpoints").
    "control": GenerationConfig(
        noise_on_s=(0.1, 0.5), noise_off_s=(1.0, 3.0), noise_std_range=(0.05, 0.25), noise_std_of_range=True
    ),
}
DATA_REGISTRY: Registry[GenerationConfig] = Registry("data", GENERATION_PRESETS)


def teachers(task) -> dict:
    """The policies that may fill Alg. 2's expert slot on `task`: name -> factory."""
    return {"expert": task.expert, **(task.teachers() if hasattr(task, "teachers") else {})}


def teacher(task, name: str):
    """A fresh instance of the teacher `name`; an unknown name is one error line listing the task's teachers."""
    return _instance(task, teachers(task), "teacher", "teacher", name)


def starter(task, name: str):
    """A fresh instance of the mid-task starter `name`: any teacher, or one of the task's `starters()`; an unknown
    name is one error line listing them."""
    options = {**teachers(task), **(task.starters() if hasattr(task, "starters") else {})}
    return _instance(task, options, "mid_task_starter", "starter", name)


def _instance(task, options: dict, field: str, kind: str, name: str):
    if name not in options:
        valid = ", ".join(options)
        raise ValueError(f"data.{field}: {task.spec.name} has no {kind} {name!r}; valid: {valid}")
    return options[name]()


def act(policy, obs: dict, privileged: np.ndarray) -> np.ndarray:
    """A policy's action on the privileged state; a policy that also perceives (`observe`) is shown `obs` first."""
    if hasattr(policy, "observe"):
        policy.observe(obs)
    return policy.act(privileged)


def expert_only(cfg: GenerationConfig) -> GenerationConfig:
    """Table I's "expert data only": the same generator with the clean expert alone (no sub-optimal policies,
    no noise windows), so every action is an uncorrupted expert action."""
    return replace(cfg, expert_prob=1.0, never_noise_prob=1.0)


def generation_preset(name: str) -> GenerationConfig:
    return DATA_REGISTRY.get(name)


class NoiseWindows:
    """Alternating on/off noise windows for one environment instance of the task with TaskSpec `spec` (needed where
    the regime is in seconds or in fractions of the action range)."""

    def __init__(self, cfg: GenerationConfig, action_dim: int, rng: np.random.Generator, spec=None):
        if spec is None and (cfg.noise_on_s or cfg.noise_off_s or cfg.noise_std_of_range):
            raise ValueError("a noise regime in seconds or action-range units needs the task's spec")
        self.cfg, self.rng = cfg, rng
        self.windows = (
            cfg.window_steps(spec.control_period_s)
            if spec is not None
            else (tuple(cfg.noise_on_steps), tuple(cfg.noise_off_steps))
        )
        self.std = rng.uniform(*cfg.noise_std_range, size=action_dim)
        if cfg.noise_std_of_range:
            self.std = self.std * (np.asarray(spec.action_high) - np.asarray(spec.action_low)) / 2
        self.never = rng.random() < cfg.never_noise_prob
        self.on = (not self.never) and rng.random() < cfg.start_noised_prob
        self.left = self._duration()

    def _duration(self) -> int:
        lo, hi = self.windows[0] if self.on else self.windows[1]
        return int(self.rng.integers(lo, hi + 1))

    def step(self) -> bool:
        """Whether this step is noised; advances the window timer."""
        noised = self.on
        self.left -= 1
        if self.left <= 0 and not self.never:
            self.on = not self.on
            self.left = self._duration()
        return noised


def noised_action(action, noise: NoiseWindows, low, high, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """`action` with the window's Gaussian noise where it is on, clipped to the bounds; and whether it was noised."""
    noised = noise.step()
    if noised:
        action = action + rng.normal(0.0, noise.std)
    return np.clip(action, low, high), noised
