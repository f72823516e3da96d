"""The privileged PPO expert, its sub-optimal checkpoints and its critic, loaded from exported TorchScript files.

Training (``python -m simdist.tasks.quadruped.train_expert``) writes rsl-rl checkpoints; ``--export`` turns them
into ``checkpoints/policy_<iteration>.pt`` (actor, deterministic mean action, with its observation normaliser)
and ``checkpoints/critic.pt`` (the final critic), both acting on the 433-D privileged state. The highest
iteration is the expert; the others are the sub-optimal policies of Alg. 2. Until a trained run has been
exported, every accessor raises a FileNotFoundError naming the command — there is no stand-in expert.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

CHECKPOINT_DIR = Path(__file__).parent / "checkpoints"
TRAIN_COMMAND = ("python -m simdist.tasks.quadruped.train_expert --run runs/quadruped_ppo "
                 "(repeat to resume), then the same command with --export")


def _missing(what: str) -> FileNotFoundError:
    return FileNotFoundError(
        f"no trained quadruped {what} in {CHECKPOINT_DIR}: train and export the privileged PPO expert with "
        f"`{TRAIN_COMMAND}` (see docs/tasks/quadruped.md)")


def exported_iterations(directory: Path = CHECKPOINT_DIR) -> list[int]:
    found = [re.fullmatch(r"policy_(\d+)\.pt", p.name) for p in directory.glob("policy_*.pt")]
    return sorted(int(m.group(1)) for m in found if m)


@dataclass
class PPOPolicy:
    """A deterministic exported actor on the privileged state."""

    name: str
    path: Path
    _module: torch.jit.ScriptModule | None = field(default=None, repr=False)

    def reset(self, rng: np.random.Generator) -> None:
        pass

    @torch.no_grad()
    def act(self, privileged: np.ndarray) -> np.ndarray:
        if self._module is None:
            self._module = torch.jit.load(str(self.path)).eval()
        x = torch.as_tensor(np.asarray(privileged, np.float32))
        return self._module(x.reshape(-1, x.shape[-1])).numpy().reshape(*x.shape[:-1], -1)


class PPOCritic:
    def __init__(self, path: Path):
        self.module = torch.jit.load(str(path)).eval()

    @torch.no_grad()
    def value(self, privileged: np.ndarray) -> float:
        return float(self.module(torch.as_tensor(np.asarray(privileged, np.float32))[None])[0, 0])

    @torch.no_grad()
    def values(self, privileged: np.ndarray) -> np.ndarray:
        """(N,) values of a batch of privileged states."""
        return self.module(torch.as_tensor(np.asarray(privileged, np.float32)))[:, 0].numpy()


def expert() -> PPOPolicy:
    its = exported_iterations()
    if not its:
        raise _missing("expert")
    return PPOPolicy("expert", CHECKPOINT_DIR / f"policy_{its[-1]}.pt")


def suboptimal_policies() -> list[PPOPolicy]:
    its = exported_iterations()
    if len(its) < 2:
        raise _missing("sub-optimal checkpoints")
    return [PPOPolicy(f"iter_{it}", CHECKPOINT_DIR / f"policy_{it}.pt") for it in its[:-1]]


def critic() -> PPOCritic:
    path = CHECKPOINT_DIR / "critic.pt"
    if not path.exists():
        raise _missing("critic")
    return PPOCritic(path)
