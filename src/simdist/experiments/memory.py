"""Give freed heap memory back to the operating system between long stages of one process.

Loading a dataset allocates millions of episode-sized arrays; glibc keeps the heap pages they leave behind when
they are freed, and the next stage's allocations fragment it further. On the quadruped's 2.7 M steps the data path
of one `simdist compare` seed left 3.6 GB resident after all its data was dropped (docs/baselines.md;
`benchmarks/compare_memory.py at commit 28cbc45` measures it). `malloc_trim(0)` returns those pages.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc


def release_freed_memory() -> bool:
    """Collect garbage, then hand glibc's free heap pages back to the OS. False where the C library is not glibc
    (macOS, musl), where there is nothing to do but wait for the allocator."""
    gc.collect()
    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError, TypeError):
        return False
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    trim(0)
    return True
