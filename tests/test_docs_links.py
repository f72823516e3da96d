"""Every relative link in the README and docs points at a file that exists and, with `#anchor`, at a heading in it
(GitHub's anchors), so the results' contents and the figures never dangle after a section is renamed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
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
    assert github_anchor("Slippery Slope at μ = 0.19: five seeds (5 × 15 trials)") == \
        "slippery-slope-at-μ--019-five-seeds-5--15-trials"
    assert github_anchor("`simdist dagger` (2 rounds): the slope recipe") == \
        "simdist-dagger-2-rounds-the-slope-recipe"


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


def test_results_contents_lists_every_section():
    """docs/results.md's Contents lists every section of it and of each task's page under docs/results/."""
    text = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    contents = text.split("## Contents", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"\]\(((?:results/[\w-]+\.md)?#[^)]+)\)", contents))
    missing = []
    for page in [ROOT / "docs" / "results.md", *sorted((ROOT / "docs" / "results").glob("*.md"))]:
        prefix = "" if page.name == "results.md" else f"results/{page.name}"
        for heading in re.findall(r"^## (.+?)\s*$", page.read_text(encoding="utf-8"), re.MULTILINE):
            if heading != "Contents" and f"{prefix}#{github_anchor(heading)}" not in listed:
                missing.append(f"{prefix or 'results.md'}: {heading}")
    assert not missing, f"docs/results.md: add these sections to its Contents: {missing}"


def test_every_results_page_is_linked_from_the_overview():
    text = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    pages = sorted(p.name for p in (ROOT / "docs" / "results").glob("*.md"))
    assert pages and all(f"](results/{name})" in text for name in pages), pages
