"""Alg. 2 generation fanned out over a Ray cluster (`simdist generate … --ray ADDRESS`, the optional `ray` extra).

Each of the K local workers of `generate(…, workers=K)` becomes one Ray task (one CPU) that runs the same worker
function with the same (seed, worker) generator and episode share, so the dataset holds the same episodes in the
same files as a local run with K workers. A task writes into a scratch dataset on its own node and returns the
files' bytes; the driver writes them under `out`, so the nodes need no shared filesystem (they need simdist, and
its task's assets, installed). Choose K at least the cluster's CPU count: a worker is the unit of parallelism.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import tempfile
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

from simdist.data.episodes import DatasetInfo, create_dataset, episode_files, read_info
from simdist.tasks.physics_files import read_physics

log = logging.getLogger(__name__)

INSTALL_HINT = 'generate --ray needs Ray: pip install -e ".[ray]"'


def ray_available() -> bool:
    return importlib.util.find_spec("ray") is not None


def _worker_files(
    info: dict, task_name: str, n: int, seed: int, worker: int, cfg, physics, setup, run_worker
) -> dict[str, bytes]:
    """One generation worker's episode files (name → bytes), written into a scratch dataset on this node."""
    with tempfile.TemporaryDirectory(prefix="simdist-ray-") as scratch:
        create_dataset(scratch, DatasetInfo(**info))
        run_worker(task_name, scratch, n, seed, worker, cfg, physics, None, setup=setup)
        return {path.name: path.read_bytes() for path in episode_files(scratch)}


@contextlib.contextmanager
def ray_cluster(address: str | None) -> Iterator[None]:
    """Inside, this process is connected to the Ray cluster at `address` ("auto": the running one, "local": a fresh
    local instance, else HOST:PORT or ray://HOST:PORT), and disconnected on the way out; with None, or when it is
    connected already, nothing changes. A cluster that cannot be reached is a ConnectionError."""
    if address is None:
        yield
        return
    import ray  # optional: the `ray` extra

    if ray.is_initialized():
        yield
        return
    try:
        ray.init(address=address, log_to_driver=False, **({"include_dashboard": False} if address == "local" else {}))
    except ConnectionError as err:
        raise ConnectionError(f"--ray {address}: {err}") from None
    try:
        yield
    finally:
        ray.shutdown()


def generate_on_ray(out: str | Path, shares: list[int], seed: int, cfg, physics, setup, bar, run_worker) -> None:
    """Run worker w's `shares[w]` episodes as Ray task w on the connected cluster (`ray_cluster`) and write the
    returned files under `out`. `run_worker` is generate.py's worker function (passed in: this module sits below
    it)."""
    import ray  # optional: the `ray` extra

    info = asdict(read_info(out))
    physics = read_physics(physics)  # read on this machine: its values travel, not a path
    log.info(
        "generating on Ray: %d tasks over the cluster's %s CPUs",
        sum(1 for n in shares if n),
        ray.cluster_resources().get("CPU", "?"),
    )
    task = ray.remote(num_cpus=1)(_worker_files)
    pending = {
        task.remote(info, info["task"], n, seed, w, cfg, physics, setup, run_worker): n
        for w, n in enumerate(shares)
        if n
    }
    try:
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for name, data in ray.get(done[0]).items():
                _write_new(Path(out, "episodes", name), data)
            bar.update(pending.pop(done[0]))
    except BaseException:  # an interrupt or a failed task: no worker goes on for nothing
        for ref in pending:
            ray.cancel(ref, force=True)
        raise


def _write_new(path: Path, data: bytes) -> None:
    """Write one returned episode file atomically, never over an existing one."""
    if path.exists():
        raise FileExistsError(f"{path} exists already; refusing to overwrite recorded data")
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
