"""What a run records of its inputs: the physics override's content and the planner's settings in every result
(`run_inputs`), and a content hash of every input a resumable run reads (`input_hashes`), so that a resume can refuse
one whose inputs changed, naming them (`changed_inputs`)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from pathlib import Path

from simdist.data.episodes import episode_files
from simdist.tasks.physics_files import read_physics

# The files of a checkpoint that decide what it plans and finetunes from (training/checkpoint.py writes them).
CHECKPOINT_FILES = ("model.safetensors", "config.json")
DATASET_INFO = "dataset.json"
GENERATED_FILE = re.compile(r"s(\d+)_w\d+_")  # simdist generate's episode files: seed, worker, chunk


def physics_content(physics) -> dict | None:
    """A physics override (PhysicsOverride, dict or file) as the values it sets; None for none."""
    override = read_physics(physics)
    return None if override is None else override.values


def run_inputs(physics=None, mppi=None) -> dict:
    """The `inputs` every result carries: the physics override's content (and its file), and the planner's full
    settings where a planner is involved (an MPPIConfig; None otherwise)."""
    override = read_physics(physics)
    out = {
        "physics": None if override is None else override.values,
        "physics_file": None if override is None else override.path,
    }
    if mppi is not None:
        out["mppi"] = dataclasses.asdict(mppi)
    return out


def _sha(parts: list[bytes]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(hashlib.sha256(part).digest())  # each part hashed first: no two part lists collide
    return h.hexdigest()


def physics_hash(physics) -> str:
    """A physics file's bytes (as read), or an override's canonical JSON where it came from no file."""
    override = read_physics(physics)
    if override.file_sha256 is not None:
        return override.file_sha256
    return _sha([json.dumps(override.values, sort_keys=True).encode()])


def checkpoint_hash(directory) -> str:
    """A checkpoint's weights and config."""
    return _sha([(Path(directory) / name).read_bytes() for name in CHECKPOINT_FILES])


def dataset_hash(directory) -> str:
    """A dataset's metadata and the name and size of each episode file: cheap on datasets of many GB, and any
    episode added, removed or rewritten to another length changes it."""
    root = Path(directory)
    listing = [f"{p.name} {p.stat().st_size}" for p in episode_files(root)]
    return _sha([(root / DATASET_INFO).read_bytes(), "\n".join(listing).encode()])


def dataset_provenance(directory) -> dict:
    """How a dataset was made, for the config.json of a model trained on it: its task, its generation settings, the
    seeds in its episode files' names, its size and the time it took (whatever of these it records)."""
    root = Path(directory)
    info = json.loads((root / DATASET_INFO).read_text())
    out = {"task": info.get("task"), "domain": info.get("domain"), "notes": info.get("notes", "")}
    out["seeds"] = sorted({int(m.group(1)) for p in episode_files(root) if (m := GENERATED_FILE.match(p.name))})
    if (root / "stats.json").exists():
        stats = json.loads((root / "stats.json").read_text())
        out.update({k: stats[k] for k in ("episodes", "steps", "wall_s") if k in stats})
    out["sha256"] = dataset_hash(root)
    return out


def input_hashes(checkpoint=None, physics=None, sim_data=None, initial_data=None) -> dict:
    """{option: {"path", "sha256"}} for every input given; the physics entry also holds the override's content."""
    out = {}
    if checkpoint is not None:
        out["--checkpoint"] = {"path": str(checkpoint), "sha256": checkpoint_hash(checkpoint)}
    if (override := read_physics(physics)) is not None:
        out["--physics"] = {
            "path": "(dict)" if override.path is None else override.path,
            "sha256": physics_hash(override),
            "content": override.values,
        }
    for option, data in (("--sim-data", sim_data), ("--initial-data", initial_data)):
        if data is not None:
            out[option] = {"path": str(data), "sha256": dataset_hash(data)}
    return out


def changed_inputs(recorded: dict, now: dict) -> list[str]:
    """One phrase per input whose content differs from what a run recorded (given then and not now, or the other
    way round, counts too)."""
    out = []
    for option in sorted(set(recorded) | set(now)):
        before, after = recorded.get(option), now.get(option)
        if before is None or after is None:
            out.append(
                f"{option} was {'not given' if before is None else before['path']} when this run started, "
                f"now {'not given' if after is None else after['path']}"
            )
        elif before["sha256"] != after["sha256"]:
            out.append(
                f"{option} {after['path']} changed since this run started (sha256 {before['sha256'][:8]}… → "
                f"{after['sha256'][:8]}…)"
            )
    return out
