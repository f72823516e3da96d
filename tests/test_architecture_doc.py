"""docs/architecture.md's concept table names files that exist: each concept's home is where the table says."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "simdist"


def table_paths() -> list[str]:
    """Every `path` in the file column of the concept → file table (the first table of the page)."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    table = text[text.index("| concept | file |") :].split("\n\n")[0]
    paths = []
    for row in table.splitlines()[2:]:
        cells = row.strip("|").rsplit("|", 1)
        paths += re.findall(r"`([\w./]+\.py|[\w./]+/)`", cells[-1])
    return paths


def test_the_concept_table_names_files_that_exist():
    paths = table_paths()
    assert len(paths) > 20
    missing = [p for p in paths if not (PACKAGE / p).exists()]
    assert not missing, f"docs/architecture.md names files that do not exist under src/simdist/: {missing}"
