"""The planner a command runs: an MPPI preset, then the task's own settings, then the user's `--mppi-set`."""

from __future__ import annotations

from collections.abc import Sequence

from simdist.config import MPPIConfig, mppi_preset, parse_overrides, replace


def task_planner(task, preset: str | MPPIConfig, overrides: Sequence[str] = (),
                 prior_weight: float | None = None) -> MPPIConfig:
    """``task.spec.planner_overrides`` holds what a task's author knows about its planner (e.g. the point mass
    holds its puck with a tenth of the default sampling spread); the user's ``overrides`` and ``prior_weight``
    (`--mppi-set FIELD=VALUE`, `--prior-weight`) come last and win."""
    cfg = mppi_preset(preset) if isinstance(preset, str) else preset
    own = tuple(task.spec.planner_overrides)
    try:
        cfg = replace(cfg, **parse_overrides(MPPIConfig, list(own)))
    except ValueError as e:
        raise ValueError(f"task {task.spec.name!r}: TaskSpec.planner_overrides: {e}") from None
    cfg = replace(cfg, **parse_overrides(MPPIConfig, list(overrides)))
    if prior_weight is not None:
        if prior_weight < 0:
            raise ValueError(f"--prior-weight must be >= 0, got {prior_weight}")
        cfg = replace(cfg, prior_weight=prior_weight)
    return cfg


__all__ = ["task_planner"]
