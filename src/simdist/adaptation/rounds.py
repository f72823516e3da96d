"""What Alg. 1's rounds share with every run that follows their protocol (baselines, demonstrations, corrections,
DAgger, the pipeline): each round's fixed initial conditions, where round j's model lives, a round's progress, and
the settings a resumable run records and checks."""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path

import numpy as np

from simdist.overrides import without_removed_fields
from simdist.tasks.physics_files import read_physics

log = logging.getLogger(__name__)


def initial_condition_to_json(ic):
    """Initial conditions of any task (tuples, arrays, dicts, dataclasses) as JSON-ready values."""
    if dataclasses.is_dataclass(ic):
        ic = dataclasses.asdict(ic)
    if isinstance(ic, dict):
        return {k: initial_condition_to_json(v) for k, v in ic.items()}
    if isinstance(ic, (list, tuple, np.ndarray)):
        return [initial_condition_to_json(v) for v in ic]
    return float(ic) if isinstance(ic, (int, float, np.number)) else str(ic)


def physics_setting(physics) -> str | dict | None:
    """How a physics override is recorded in a run's settings: its file's path, or its values where it had none."""
    override = read_physics(physics)
    return None if override is None else override.path if override.path is not None else override.values


def refuse_other_settings(
    path: Path, settings: dict, may_change: tuple[str, ...] = (), recorded_since: tuple[str, ...] = ()
) -> None:
    """A rerun into an existing folder resumes only the same experiment (its real episodes were collected under
    those settings); anything but `may_change` (section.field) differing is refused, naming it. A setting in
    `recorded_since` (a section, or one section.field) that the file does not hold at all (written before it was
    recorded) is taken on trust, with a warning."""
    if not path.exists():
        return

    def flat(d: dict) -> dict:  # {"mppi": {"samples": 8}} → {"mppi.samples": 8}
        out = {}
        for key, value in d.items():
            out.update({f"{key}.{k}": v for k, v in value.items()} if isinstance(value, dict) else {key: value})
        return out

    # fields removed since the file was written compare as absent (config.REMOVED_FIELDS)
    a, b = flat(without_removed_fields(json.loads(path.read_text()))), flat(json.loads(json.dumps(settings)))
    differ = sorted(k for k in set(a) | set(b) if k not in may_change and json.dumps(a.get(k)) != json.dumps(b.get(k)))

    def predates(k: str) -> bool:  # a whole section (e.g. "physics") or one field recorded since
        top = k.split(".")[0]
        if k in recorded_since:
            return k not in a
        return top in recorded_since and not any(key == top or key.startswith(top + ".") for key in a)

    unrecorded = [k for k in differ if predates(k)]
    for k in unrecorded:
        log.warning("%s predates recording %s; resuming on the assumption that it was %s", path, k, b.get(k))
    differ = [k for k in differ if k not in unrecorded]
    if differ:
        raise ValueError(
            f"{path.parent} holds a run with other settings ({', '.join(differ)}); rerun with the same "
            "settings to resume it, or choose another --out"
        )


def round_initial_conditions(task, grid: str, n: int, seed: int) -> tuple[list, list[str]]:
    """The fixed initial conditions of every round and the grid each belongs to. `grid="all"` splits the n
    episodes evenly over the task's grids (the quadruped's 5 trials × 3 speeds is n = 15)."""
    if grid != "all":
        return task.initial_conditions(grid, n, seed=seed), [grid] * n
    grids = list(task.grids)
    if n % len(grids):
        raise ValueError(
            f"{n} episodes do not split evenly over the {len(grids)} grids {grids} of --grid all: "
            f"give --episodes-per-round (and --demos) a multiple of {len(grids)}"
        )
    ics, labels = [], []
    for g in grids:
        ics += task.initial_conditions(g, n // len(grids), seed=seed)
        labels += [g] * (n // len(grids))
    return ics, labels


def round_model_dir(out: Path, j: int, pretrained: str | Path, has_initial_data: bool) -> Path:
    """Where round j's model lives: the pretrained checkpoint for round 0 (unless finetuned on initial data first),
    else OUT/round_jj/model."""
    if j == 0 and not has_initial_data:
        return Path(pretrained)
    return out / f"round_{j:02d}" / "model"


def round_progress(row: dict) -> float | None:
    """Mean forward progress (m) of a round's episodes, for tasks that report it (the quadruped); else None."""
    return row.get("metrics", {}).get("progress_m")
