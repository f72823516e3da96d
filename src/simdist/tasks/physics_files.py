"""Physics overrides (`--physics FILE`: JSON or YAML, a flat mapping of physics field -> value), read once at the edge
into a `PhysicsOverride` that the rest of the code receives: no module below reads the file again."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml


def load_physics_file(path: str | Path) -> dict[str, Any]:
    """Read a JSON or YAML physics-override file into a flat dict of field -> value."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"physics file not found: {path}")
    if path.suffix.lower() not in (".json", ".yaml", ".yml"):
        raise ValueError(f"physics file {path} must end in .json, .yaml or .yml")
    text = path.read_text()
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
    except json.JSONDecodeError as err:
        raise ValueError(
            f"physics file {path}: not valid JSON (line {err.lineno}, column {err.colno}): {err.msg}"
        ) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise ValueError(f"physics file {path}: not valid YAML{at}: {problem}") from None
    if not isinstance(data, dict):
        raise ValueError(f"physics file {path} must hold a mapping of parameter names to values")
    return data


@dataclass(frozen=True)
class PhysicsOverride:
    """A physics override as read: the values it sets, the file it came from (None: given as a mapping, e.g. a
    run_config.yaml's content) and that file's content hash (how a resumed run knows its input unchanged)."""

    values: dict[str, Any] = field(default_factory=dict)
    path: str | None = None
    file_sha256: str | None = None

    @property
    def source(self) -> str:
        """How errors name it."""
        return f"physics file {self.path}" if self.path is not None else "physics override"


def read_physics(physics: PhysicsOverride | dict | str | Path | None) -> PhysicsOverride | None:
    """The one place a physics file is read: a path becomes a PhysicsOverride (its values and content hash), a
    mapping one without a file; an override or None is returned as it is."""
    if physics is None or isinstance(physics, PhysicsOverride):
        return physics
    if isinstance(physics, dict):
        return PhysicsOverride(dict(physics))
    raw = Path(physics).read_bytes() if Path(physics).is_file() else None
    values = load_physics_file(physics)
    digest = hashlib.sha256(hashlib.sha256(raw).digest()).hexdigest()  # data.records' hash of one part
    return PhysicsOverride(values, str(physics), digest)
