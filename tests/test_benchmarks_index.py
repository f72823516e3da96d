"""benchmarks/README.md lists every script with its own description (benchmarks/index.py), and is up to date."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_benchmark_index_is_current():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "index.py"), "--check"], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    listed = (ROOT / "benchmarks" / "README.md").read_text()
    for script in (ROOT / "benchmarks").glob("*.[ps][yh]"):
        assert f"[`{script.name}`]" in listed
