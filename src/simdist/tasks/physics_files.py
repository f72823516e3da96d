"""Physics-override files (`--physics FILE`): JSON or YAML, a flat mapping of physics field -> value."""

from __future__ import annotations

import json
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
