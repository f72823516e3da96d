"""On-disk episode datasets (format documented in docs/data.md).

A dataset is a directory:
    dataset.json          task, domain, control period, observation shapes, action/command size, format version
    episodes/*.h5         each file holds one or more whole episodes, concatenated along time

Each file is written to a temporary name, flushed, fsynced and atomically renamed, so a crash at any moment
leaves every earlier file intact and at worst a `*.h5.tmp` that readers ignore.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

import h5py
import numpy as np

FORMAT_VERSION = 1
LABEL_KEYS = ("reward", "value", "expert")
log = logging.getLogger(__name__)


class DatasetError(ValueError):
    """A dataset or episode file is malformed; the message names the file and the problem."""


@dataclass
class DatasetInfo:
    task: str
    domain: str
    control_period_s: float
    obs_shapes: dict[str, tuple[int, ...]]
    action_dim: int
    command_dim: int = 0
    action_low: tuple[float, ...] = ()
    action_high: tuple[float, ...] = ()
    format_version: int = FORMAT_VERSION
    notes: str = ""

    def __post_init__(self) -> None:
        self.obs_shapes = {k: tuple(v) for k, v in self.obs_shapes.items()}
        self.action_low, self.action_high = tuple(self.action_low), tuple(self.action_high)

    @classmethod
    def of_task(cls, spec, domain: str, notes: str = "") -> DatasetInfo:
        """The dataset header of a task's episodes (`spec`: its TaskSpec) recorded in `domain`."""
        return cls(
            task=spec.name,
            domain=domain,
            control_period_s=spec.control_period_s,
            obs_shapes=spec.obs_shapes,
            action_dim=spec.action_dim,
            command_dim=spec.command_dim,
            action_low=spec.action_low,
            action_high=spec.action_high,
            notes=notes,
        )


@dataclass
class Episode:
    """One episode of L steps: obs[t] is seen, action[t] taken, reward[t] received.

    ``value[t]`` = V^e(s_t), the expert critic at the state of obs[t]; ``expert[t]`` is true iff action[t] is
    the uncorrupted expert's (in robot data: the operator drove that step, a correction;
    `simdist.adaptation.corrections`).
    Real episodes leave reward and value as None, and expert too unless an operator took over.
    ``expert_action[t]``, where given, is what the expert would have done at obs[t] while another policy acted
    (DAgger, `simdist.adaptation.dagger`): the BC targets, with ``expert`` flagging the labelled steps; ``action``
    stays the executed action, which the history and the dynamics see.
    """

    obs: dict[str, np.ndarray]
    action: np.ndarray
    command: np.ndarray | None = None
    reward: np.ndarray | None = None
    value: np.ndarray | None = None
    expert: np.ndarray | None = None
    expert_action: np.ndarray | None = None
    success: bool = False
    source_policy: str = ""
    metrics: dict[str, float] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.action.shape[0])

    def validate(self, info: DatasetInfo) -> None:
        L = len(self)
        if L == 0:
            raise DatasetError("episode has no steps")
        if self.action.shape != (L, info.action_dim):
            raise DatasetError(f"action has shape {self.action.shape}, expected {(L, info.action_dim)}")
        for name, shape in info.obs_shapes.items():
            if name not in self.obs:
                raise DatasetError(f"episode is missing observation group {name!r}; expected {sorted(info.obs_shapes)}")
            if self.obs[name].shape != (L, *shape):
                raise DatasetError(f"observation {name!r} has shape {self.obs[name].shape}, expected {(L, *shape)}")
        if info.command_dim and (self.command is None or self.command.shape != (L, info.command_dim)):
            got = None if self.command is None else self.command.shape
            raise DatasetError(f"command has shape {got}, expected {(L, info.command_dim)}")
        for key in LABEL_KEYS:
            arr = getattr(self, key)
            if arr is not None and arr.shape != (L,):
                raise DatasetError(f"{key} has shape {arr.shape}, expected {(L,)}")
        if self.expert_action is not None:
            if self.expert_action.shape != (L, info.action_dim):
                raise DatasetError(
                    f"expert_action has shape {self.expert_action.shape}, expected {(L, info.action_dim)}"
                )
            if self.expert is None:
                raise DatasetError("expert_action needs the expert flags that say which steps it labels")
        arrays = [self.action, *self.obs.values()] + [
            a for a in (self.command, self.reward, self.value, self.expert_action) if a is not None
        ]
        if not all(np.isfinite(a).all() for a in arrays):
            raise DatasetError("episode contains NaN or Inf")


def create_dataset(root: str | Path, info: DatasetInfo) -> Path:
    """Create (or reopen, if the metadata match) a dataset directory."""
    root = Path(root)
    meta = root / "dataset.json"
    if meta.exists():
        existing = read_info(root)
        if (existing.task, existing.obs_shapes, existing.action_dim, existing.command_dim) != (
            info.task,
            info.obs_shapes,
            info.action_dim,
            info.command_dim,
        ):
            raise DatasetError(f"{root} already holds a dataset of a different task or shape: {existing}")
        return root
    (root / "episodes").mkdir(parents=True, exist_ok=True)
    atomic_write_text(meta, json.dumps(asdict(info), indent=2))
    return root


def read_info(root: str | Path) -> DatasetInfo:
    meta = Path(root) / "dataset.json"
    if not meta.exists():
        raise DatasetError(f"{root} is not a simdist dataset (no dataset.json)")
    try:
        data = json.loads(meta.read_text())
        return DatasetInfo(**data)
    except (json.JSONDecodeError, TypeError) as err:
        raise DatasetError(f"{meta} is malformed: {err}") from err


def atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:  # an interrupt or a full disk: no partial file stays behind
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)


def write_episodes(root: str | Path, episodes: list[Episode], name: str | None = None) -> Path:
    """Atomically append ``episodes`` to the dataset as one new file; returns its path."""
    root = Path(root)
    info = read_info(root)
    for i, ep in enumerate(episodes):
        try:
            ep.validate(info)
        except DatasetError as err:
            raise DatasetError(f"episode {i} not written: {err}") from err
    name = name or f"{time.time_ns():020d}-{uuid.uuid4().hex[:8]}"  # sorts in write order, never collides
    final = root / "episodes" / f"{name}.h5"
    if final.exists():
        raise DatasetError(f"{final} exists already; refusing to overwrite recorded data")
    tmp = final.with_name(final.name + ".tmp")
    try:
        _write_h5(tmp, episodes, info)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
    except BaseException:  # an interrupt or a full disk: no partial file stays behind
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, final)
    return final


def _write_h5(tmp: Path, episodes: list[Episode], info: DatasetInfo) -> None:
    with h5py.File(tmp, "w") as f:
        f.attrs["format_version"] = FORMAT_VERSION
        f.create_dataset("episode_lengths", data=np.array([len(e) for e in episodes], dtype=np.int64))
        f.create_dataset("success", data=np.array([e.success for e in episodes], dtype=bool))
        f.create_dataset("source_policy", data=np.array([e.source_policy for e in episodes], dtype=h5py.string_dtype()))
        f.create_dataset("metrics", data=np.array([json.dumps(e.metrics) for e in episodes], dtype=h5py.string_dtype()))
        for group in info.obs_shapes:
            f.create_dataset(f"obs/{group}", data=np.concatenate([e.obs[group] for e in episodes]).astype(np.float32))
        f.create_dataset("action", data=np.concatenate([e.action for e in episodes]).astype(np.float32))
        if info.command_dim:
            f.create_dataset("command", data=np.concatenate([e.command for e in episodes]).astype(np.float32))
        for key in LABEL_KEYS:  # labels are stored only when every episode in the file has them
            arrays = [getattr(e, key) for e in episodes]
            if all(a is not None for a in arrays):
                dtype = bool if key == "expert" else np.float32
                f.create_dataset(key, data=np.concatenate(arrays).astype(dtype))
        # with the expert flags (kept, as every label, only when every episode has them); an episode without
        # expert_action is its own target
        if all(e.expert is not None for e in episodes) and any(e.expert_action is not None for e in episodes):
            f.create_dataset(
                "expert_action",
                data=np.concatenate(
                    [e.action if e.expert_action is None else e.expert_action for e in episodes]
                ).astype(np.float32),
            )
        f.flush()


def episode_files(root: str | Path) -> list[Path]:
    """Completed episode files in name order (temporary files of interrupted writes are ignored). Every writer
    names files so that this is a stable, meaningful order: generators by seed/worker/counter, adaptation by
    round/episode, the robot logger and unnamed writes by time. Modification times are not used: parallel
    workers and copies reorder them, and the dataset order decides the training run."""
    return sorted((Path(root) / "episodes").glob("*.h5"), key=lambda p: p.name)


def episode_lengths(path: Path) -> np.ndarray:
    """The length of every episode in one file, read without loading observations."""
    try:
        with h5py.File(path, "r") as f:
            return f["episode_lengths"][()].astype(np.int64)
    except (OSError, KeyError) as err:
        raise DatasetError(f"cannot read episode file {path}: {err}. Move it aside to load the rest.") from err


def file_steps(path: Path) -> int:
    """Steps in one episode file (no observations loaded)."""
    return int(episode_lengths(path).sum())


def dataset_steps(root: str | Path) -> int:
    return sum(file_steps(p) for p in episode_files(root))


def read_episode_file(path: Path, info: DatasetInfo) -> list[Episode]:
    """Read every episode of one file, with a clear error naming the file if it is truncated or malformed."""
    try:
        with h5py.File(path, "r") as f:
            lengths = f["episode_lengths"][()]
            obs = {g: f[f"obs/{g}"][()] for g in info.obs_shapes}
            action = f["action"][()]
            command = f["command"][()] if info.command_dim else None
            labels = {k: (f[k][()] if k in f else None) for k in (*LABEL_KEYS, "expert_action")}
            success = f["success"][()]
            sources = [s.decode() if isinstance(s, bytes) else str(s) for s in f["source_policy"][()]]
            metrics = [json.loads(m) for m in f["metrics"][()]] if "metrics" in f else [{}] * len(lengths)
    except (OSError, KeyError) as err:
        raise DatasetError(f"cannot read episode file {path}: {err}. Move it aside to load the rest.") from err
    episodes, start = [], 0
    for i, L in enumerate(lengths):
        sl = slice(start, start + int(L))
        start += int(L)
        ep = Episode(
            obs={g: v[sl] for g, v in obs.items()},
            action=action[sl],
            command=None if command is None else command[sl],
            reward=None if labels["reward"] is None else labels["reward"][sl],
            value=None if labels["value"] is None else labels["value"][sl],
            expert=None if labels["expert"] is None else labels["expert"][sl],
            expert_action=None if labels["expert_action"] is None else labels["expert_action"][sl],
            success=bool(success[i]),
            source_policy=sources[i],
            metrics=metrics[i],
        )
        try:
            ep.validate(info)
        except DatasetError as err:
            raise DatasetError(f"{path}, episode {i}: {err}") from err
        episodes.append(ep)
    return episodes


def load_episodes(root: str | Path, skip_corrupt: bool = False) -> tuple[DatasetInfo, list[Episode]]:
    info = read_info(root)
    episodes: list[Episode] = []
    for path in episode_files(root):
        try:
            episodes.extend(read_episode_file(path, info))
        except DatasetError:
            if not skip_corrupt:
                raise
            log.warning("skipping unreadable episode file %s", path)
    return info, episodes


def merge_datasets(out: str | Path, sources: list[str | Path], copy: bool = False) -> Path:
    """One dataset over several compatible ones (same domain, shapes, control period and action bounds): its
    episodes/ holds a symbolic link (or, with `copy`, a copy) to every episode file of every source, prefixed
    with the source's index. The task name and format come from the first source."""
    if not sources:
        raise DatasetError("merge needs at least one source dataset")
    infos = [read_info(s) for s in sources]
    key = lambda i: (
        i.domain,
        i.control_period_s,
        i.obs_shapes,
        i.action_dim,
        i.command_dim,  # noqa: E731
        i.action_low,
        i.action_high,
    )
    for src, info in zip(sources[1:], infos[1:]):
        if key(info) != key(infos[0]):
            raise DatasetError(
                f"{src} does not match {sources[0]} (domain, control period, observation shapes, "
                f"action/command size or bounds): {info} vs {infos[0]}"
            )
    root = Path(out)
    if (root / "dataset.json").exists():
        raise DatasetError(f"{root} already holds a dataset; merge into a new directory")
    merged = DatasetInfo(
        **{
            **asdict(infos[0]),
            "notes": "merged from " + ", ".join(f"{s} ({i.task}: {i.notes})" for s, i in zip(sources, infos)),
        }
    )
    create_dataset(root, merged)
    for k, src in enumerate(sources):
        for f in episode_files(src):
            target = root / "episodes" / f"s{k}_{f.name}"
            if copy:
                shutil.copy2(f, target)
            else:
                target.symlink_to(f.resolve())
    return root
