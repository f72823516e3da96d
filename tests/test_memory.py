import platform

import numpy as np
import pytest

from simdist.experiments.memory import release_freed_memory


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc's heap")
def test_release_gives_a_fragmented_heap_back():
    """The way a dataset leaves the heap: many episode-sized arrays, every 16th still alive when the rest go."""
    arrays = [np.ones(2048, np.float32) for _ in range(40_000)]  # 8 KB each, 320 MB, below the mmap threshold
    keep = arrays[::16]
    del arrays
    held = rss_mb()
    assert release_freed_memory()
    assert held - rss_mb() > 150  # of the ≈ 300 MB freed but still resident
    assert all(float(a[0]) == 1.0 for a in keep)  # what is alive stays intact
