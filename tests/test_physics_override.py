"""A physics file is read and checked once, at the edge (the command line), into a PhysicsOverride that every
consumer receives: environments, records, run settings and content hashes never read the file again."""

from __future__ import annotations

import json
from pathlib import Path

from simdist.cli import data_commands, main
from simdist.data.records import input_hashes, physics_hash, run_inputs
from simdist.tasks import get_task, physics_files
from simdist.tasks.physics_files import PhysicsOverride, read_physics

SRC = Path(__file__).resolve().parents[1] / "src" / "simdist"


def test_a_command_reads_its_physics_file_once_and_passes_the_typed_override_on(tmp_path, monkeypatch, capsys):
    physics = tmp_path / "light.yaml"
    physics.write_text("mass: 0.8\n")
    reads, seen = [], {}
    load = physics_files.load_physics_file
    monkeypatch.setattr(physics_files, "load_physics_file", lambda path: reads.append(path) or load(path))
    monkeypatch.setattr(
        data_commands, "generate", lambda task, out, *a, physics=None, **k: seen.update(p=physics) or {}
    )
    assert (
        main(["generate", "pendulum", "--episodes", "1", "--out", str(tmp_path / "d"), "--physics", str(physics)]) == 0
    )
    assert len(reads) == 1 and isinstance(seen["p"], PhysicsOverride) and seen["p"].values == {"mass": 0.8}
    physics.write_text("mass: 9.0\n")  # what was read is what every consumer sees
    env = get_task("pendulum").make_env("sim", seen["p"], seed=0)
    assert env.physics.mass == 0.8 and len(reads) == 1
    assert run_inputs(seen["p"]) == {"physics": {"mass": 0.8}, "physics_file": str(physics)}


def test_the_override_keeps_the_files_content_hash_and_records_as_before(tmp_path):
    physics = tmp_path / "heavy.json"
    physics.write_text(json.dumps({"mass": 1.7}))
    override = read_physics(physics)
    assert physics_hash(override) == physics_hash(str(physics))  # a run resumed across versions matches
    recorded = input_hashes(physics=override)["--physics"]
    assert recorded["path"] == str(physics) and recorded["content"] == {"mass": 1.7}
    from_content = read_physics({"mass": 1.7})
    assert from_content.path is None and from_content.file_sha256 is None and from_content.source == "physics override"


def test_only_the_edge_reads_physics_files():
    readers = sorted(
        str(p.relative_to(SRC))
        for p in SRC.rglob("*.py")
        if "load_physics_file(" in p.read_text() and p.name != "physics_files.py"
    )
    assert not readers, f"read physics through simdist.tasks.physics_files.read_physics: {readers}"
