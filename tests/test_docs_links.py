"""Every relative link in the README, the changelog, the docs and the checkpoint READMEs points at a file that exists
and, with `#anchor`, at a heading in it (GitHub's anchors), so contents and figures never dangle after a section is
renamed; every task has one page with its numbers, its limits and its commands, linked from the README."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [
    ROOT / "README.md",
    ROOT / "CHANGELOG.md",
    *sorted((ROOT / "docs").rglob("*.md")),
    *sorted((ROOT / "checkpoints").glob("*/README.md")),
    ROOT / "benchmarks" / "README.md",
]
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.MULTILINE)


def github_anchor(heading: str) -> str:
    """GitHub's heading id: lower case, punctuation dropped (letters such as μ, digits, '-' and '_' kept),
    each space a hyphen."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for heading in HEADING.findall(path.read_text(encoding="utf-8")):
        slug = github_anchor(heading)
        n = seen.get(slug, 0)
        out.add(slug if n == 0 else f"{slug}-{n}")  # repeated headings get -1, -2, ...
        seen[slug] = n + 1
    return out


def test_anchor_follows_github():
    assert (
        github_anchor("Slippery Slope at μ = 0.19: five seeds (the history head)")
        == "slippery-slope-at-μ--019-five-seeds-the-history-head"
    )
    assert (
        github_anchor("`simdist dagger` (one command): the slope recipe")
        == "simdist-dagger-one-command-the-slope-recipe"
    )


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(doc: Path):
    broken = []
    for target in LINK.findall(doc.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        path = (doc.parent / file_part).resolve() if file_part else doc
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{target}: no heading with that anchor in {path.relative_to(ROOT)}")
    assert not broken, f"{doc.relative_to(ROOT)}: " + "; ".join(broken)


TASK_PAGES = ["pendulum", "point-mass", "peg-insertion", "table-leg", "foam", "slippery-slope"]


@pytest.mark.parametrize("task", TASK_PAGES)
def test_every_task_has_one_page_with_numbers_limits_and_commands(task: str):
    page = ROOT / "docs" / "tasks" / f"{task}.md"
    headings = re.findall(r"^## (.+?)\s*$", page.read_text(encoding="utf-8"), re.MULTILINE)
    assert headings[:3] == ["Current numbers", "What limits it", "Commands"], f"{page.name}: {headings[:3]}"
    assert f"](docs/tasks/{task}.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_findings_contents_lists_every_section():
    text = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
    contents = text.split("## Contents", 1)[1].split("\n## ", 1)[0]
    sections = [h for h in re.findall(r"^## (.+?)\s*$", text, re.MULTILINE) if h != "Contents"]
    missing = [h for h in sections if f"(#{github_anchor(h)})" not in contents]
    assert not missing, f"docs/findings.md: add these sections to its Contents: {missing}"


def test_readme_stays_short():
    words = len((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert words <= 1200, f"README.md has {words} words; keep it to 1,200 (details belong in docs/)"
