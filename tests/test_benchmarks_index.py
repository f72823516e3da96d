"""benchmarks/ stays small: at most 12 maintained scripts, each listed in benchmarks/README.md; every record in
benchmarks/results/ is read by a kept script or cited by a doc, and every record a doc or script names exists."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
DOCS = [
    ROOT / "README.md",
    ROOT / "CHANGELOG.md",
    *sorted((ROOT / "docs").rglob("*.md")),
    *sorted((ROOT / "checkpoints").glob("*/README.md")),
]


def scripts() -> list[Path]:
    return sorted(p for p in BENCH.iterdir() if p.suffix in (".py", ".sh"))


def test_at_most_twelve_scripts_each_listed():
    listed = (BENCH / "README.md").read_text()
    assert len(scripts()) <= 12, [p.name for p in scripts()]
    missing = [p.name for p in scripts() if f"[`{p.name}`]" not in listed]
    assert not missing, f"benchmarks/README.md: list {missing}"


def test_records_are_cited_and_citations_exist():
    text = "\n".join(p.read_text(encoding="utf-8") for p in [*DOCS, *scripts()] if p.exists())
    records = sorted(p.name for p in (BENCH / "results").iterdir())
    uncited = []
    for name in records:
        stem = name.rsplit(".", 1)[0]
        # a script may read a record through a pattern: glance_plot.py's "adapt_peg_narrow_s[01].json"
        patterns = re.findall(r'"([\w.\-\[\]?*{},]+?)(?:\.jsonl?)?"', text)
        if name in text or stem in text or any(_matches(p, stem) for p in patterns):
            continue
        uncited.append(name)
    assert not uncited, f"benchmarks/results: no doc or script reads {uncited}; delete them (git history keeps them)"
    cited = set(re.findall(r"(?<!28cbc45:)benchmarks/results/([\w.\-]+\.jsonl?)\b", text))  # 28cbc45: in git
    dangling = sorted(c for c in cited if not (BENCH / "results" / c).exists())
    assert not dangling, f"cited but missing from benchmarks/results: {dangling}"


def _matches(pattern: str, stem: str) -> bool:
    import fnmatch

    return any(ch in pattern for ch in "[?*") and fnmatch.fnmatch(stem, pattern.rsplit(".", 1)[0])
