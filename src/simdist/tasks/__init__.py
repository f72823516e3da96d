"""Robot tasks: MuJoCo simulations with `sim` and `real` domains. See `base.py` for the protocol."""

from simdist.tasks.base import COMMAND_KEY, DOMAINS, PROPRIO_KEY, TaskSpec, apply_physics_overrides
from simdist.tasks.registry import get_task, register, task_names

__all__ = [
    "COMMAND_KEY",
    "DOMAINS",
    "PROPRIO_KEY",
    "TaskSpec",
    "apply_physics_overrides",
    "get_task",
    "register",
    "task_names",
]
