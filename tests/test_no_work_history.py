"""No work-history labels in the tree (a numbered working session or period, as the cases below spell): the docs,
code, help text, checkpoint READMEs, benchmarks and file names say what is true now and where to find it; when something
was done lives in git and CHANGELOG.md. Scans every file git tracks (text files; file names too) and names each
file:line."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LABEL = re.compile(
    r"(?<![a-z])(?:work[ _-]?)?(?:sessions?|periods?)[ _-]?\d+(?!\.\d|\d)|\bwork periods?\b", re.IGNORECASE
)
THIS = Path(__file__).resolve()


def tracked() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / p for p in out.decode().split("\0") if p]


def test_no_work_history_labels():
    hits = []
    for path in tracked():
        rel = path.relative_to(ROOT).as_posix()
        if path.resolve() == THIS or not path.is_file():
            continue
        if LABEL.search(rel):
            hits.append(f"{rel}: file name")
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary: checkpoints, images
        for n, line in enumerate(text.splitlines(), 1):
            if LABEL.search(line):
                hits.append(f"{rel}:{n}: {line.strip()[:100]}")
    assert not hits, f"{len(hits)} work-history labels (say what is true now; history is in git):\n" + "\n".join(
        hits[:200]
    )


@pytest.mark.parametrize(
    "text",
    [
        "session 38",
        "Sessions 17–24",
        "(session 45)",
        "work period 3",
        "session-7 figures",
        "gpu_h200_session37.jsonl",
        "period 2",
    ],
)
def test_the_pattern_catches_labels(text):
    assert LABEL.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "a sessions' worth",
        "the session's machine",
        "periodic",
        "a period of 2 s",
        "sensor noise",
        "4 robot minutes",
        "trot with period 0.5 s",
    ],
)
def test_the_pattern_leaves_ordinary_words(text):
    assert not LABEL.search(text)
