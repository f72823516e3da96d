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
    text = path.read_text()
    if path.suffix.lower() in (".yaml", ".yml"):
        data = yaml.safe_load(text)
    elif path.suffix.lower() == ".json":
        data = json.loads(text)
    else:
        raise ValueError(f"physics file {path} must end in .json, .yaml or .yml")
    if not isinstance(data, dict):
        raise ValueError(f"physics file {path} must hold a mapping of parameter names to values")
    return data
