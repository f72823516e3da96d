"""Every command's inputs checked before it writes anything: counts, paths, files that must parse, and datasets and
checkpoints that must fit the task. A bad input is one `ValueError` naming it (main.py prints one line, exit 2)."""

from __future__ import annotations

import argparse
from pathlib import Path

from simdist.data.episodes import read_info
from simdist.tasks import get_task, task_names
from simdist.tasks.physics_files import PhysicsOverride, read_physics
from simdist.training.checkpoint import check_model_fits_task, load_model, read_config

# Arguments that count something: (smallest valid value, what it counts). None (left out) is always fine.
COUNTS = {
    "episodes": 1,
    "workers": 1,
    "trials": 1,
    "episodes_per_round": 1,
    "steps": 1,
    "finetune_steps": 1,
    "repeats": 1,
    "batch": 1,
    "expert_budget": 1,
    "select_checkpoints": 1,
    "budget": 1,
    "episodes_per_update": 1,
    "episodes_per_grid": 1,
    "probe_episodes": 1,
    "probes_per_episode": 1,
    "demos": 0,
    "rounds": 0,
    "corrected_episodes": 0,
    "refine_rounds": 0,
}
# Non-negative real numbers, and shares within [0, 1].
NON_NEGATIVE = ("takeover_rate", "ensemble_decay", "prior_weight")
POSITIVE = ("takeover_s",)
SHARES = ("sim_replay",)
# What each path argument must be; `sources` is a list of datasets, `checkpoints` a list of runs or checkpoints.
DATASETS = ("data", "sim_data", "initial_data", "expert_data", "sources", "initial_labels")
CHECKPOINTS = ("checkpoint", "init_from")
PHYSICS = ("physics", "eval_physics")
# Commands whose --out names a file, not a folder.
FILE_OUT = ("evaluate", "select")


def check_arguments(args: argparse.Namespace) -> None:
    """Refuse the first bad input of a parsed command line, naming it (and its file), before any work (each
    command's `--set` items are checked where it builds its configuration, before it writes anything)."""
    _check_numbers(args)
    task = get_task(args.task) if isinstance(getattr(args, "task", None), str) else None
    if task is not None:
        _check_grids(args, task)
    for name in DATASETS:
        for path in _paths(args, name):
            _check_dataset(path, name, task, getattr(args, "command", ""))
    if task is None and isinstance(getattr(args, "data", None), str):  # finetune: the checkpoint must fit the data
        dataset_task = read_info(args.data).task
        task = get_task(dataset_task) if dataset_task in task_names() else None
    for name in CHECKPOINTS:
        for path in _paths(args, name):
            _check_checkpoint(path, name, task)
    for path in _paths(args, "checkpoints"):
        if not Path(path).is_dir():
            raise ValueError(f"checkpoint {path}: no such folder")
    for name in PHYSICS:  # read and checked once, here: every command receives a PhysicsOverride, not a path
        if getattr(args, name, None) is not None:
            setattr(args, name, read_checked_physics(getattr(args, name), task, _domain(args), _option(name)))
    _check_out(args)


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


def _paths(args, name: str) -> list[str]:
    value = getattr(args, name, None)
    return [value] if isinstance(value, str) else list(value or ())


def _check_numbers(args) -> None:
    for name, least in COUNTS.items():
        value = getattr(args, name, None)
        if isinstance(value, int) and not isinstance(value, bool) and value < least:
            raise ValueError(f"{_option(name)} {value}: must be at least {least}")
    for name in NON_NEGATIVE + POSITIVE + SHARES:
        value = getattr(args, name, None)
        if value is None:
            continue
        if value != value or value < 0 or (name in POSITIVE and value == 0) or (name in SHARES and value > 1):
            need = "within [0, 1]" if name in SHARES else "positive" if name in POSITIVE else "at least 0"
            raise ValueError(f"{_option(name)} {value}: must be {need}")


def _check_grids(args, task) -> None:
    grids = getattr(args, "grid", None)
    for grid in [grids] if isinstance(grids, str) else list(grids or ()):
        if grid != "all" and grid not in task.grids:
            raise ValueError(
                f"--grid {grid}: not a grid of task {task.spec.name!r}; valid grids: {list(task.grids)} (or all)"
            )


def _check_dataset(path: str, name: str, task, command: str) -> None:
    if not Path(path).exists():
        raise ValueError(f"{_option(name)} {path}: no such dataset folder")
    if not Path(path).is_dir():
        raise ValueError(f"{_option(name)} {path}: a file, not a dataset folder")
    info = read_info(path)  # DatasetError (a ValueError) names the folder
    if task is not None and info.task != task.spec.name:
        raise ValueError(f"{_option(name)} {path} holds {info.task!r} episodes, not {task.spec.name!r} ones")
    if name == "sim_data" and info.domain != "sim":
        raise ValueError(f"{_option(name)} {path} holds {info.domain!r} episodes; it needs simulation data")


def _check_checkpoint(path: str, name: str, task) -> None:
    if not Path(path).exists():
        raise ValueError(f"{_option(name)} {path}: no such checkpoint folder")
    if not Path(path).is_dir():
        raise ValueError(f"{_option(name)} {path}: a file, not a checkpoint folder")
    config = read_config(path)  # CheckpointError (a ValueError) names the file
    if "model" in config:  # a world model (a baseline's checkpoint has its own format): its weights must load
        model = load_model(path)
        if task is not None:
            check_model_fits_task(model, task, path)


def _domain(args) -> str:
    """The domain a command's --physics overrides."""
    return getattr(args, "domain", None) or ("real" if args.command in ("adapt", "compare") else "sim")


def read_checked_physics(physics, task=None, domain: str = "sim", option: str = "--physics") -> PhysicsOverride:
    """A physics file (or a run_config.yaml's physics mapping) read once into a PhysicsOverride: the file must exist
    and parse (JSON or YAML), and the values must be the task's physics fields (checked by building the task's
    environment with them); the message names the file."""
    if isinstance(physics, (str, Path)):
        file = Path(physics)
        if not file.is_file():
            raise ValueError(f"{option} {physics}: {'a folder, not a file' if file.is_dir() else 'no such file'}")
    try:
        override = read_physics(physics)
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(f"{option} {physics}: {err}") from None
    if task is not None:
        try:
            task.make_env(domain, override, seed=0)
        except (ValueError, KeyError, TypeError) as err:
            named = override.path or "(from the run config)"
            raise ValueError(
                f"{option} {named}: {err.args[0] if isinstance(err, KeyError) and err.args else err}"
            ) from None
    return override


def _check_out(args) -> None:
    out = getattr(args, "out", None)
    if out is None:
        return
    path = Path(out)
    if path.exists() and not path.is_dir() and getattr(args, "command", None) not in FILE_OUT:
        raise ValueError(f"--out {out}: a file, not a folder")  # (evaluation_commands.result_file checks a result file)
    parent = next((p for p in path.absolute().parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise ValueError(f"--out {out}: {parent} is a file, not a folder")


# Config fields that count or share something, as `--set` names them: (least, most); None: no bound.
FIELD_RANGES = {
    "train.steps": (1, None),
    "finetune.steps": (1, None),
    "refine.steps": (1, None),
    "dagger.steps": (1, None),
    "run.finetune_steps": (1, None),
    "compare.finetune_steps": (1, None),
    "run.episodes": (1, None),
    "refine.episodes": (1, None),
    "run.workers": (1, None),
    "adapt.episodes_per_round": (1, None),
    "run.episodes_per_round": (1, None),
    "adapt.rounds": (0, None),
    "run.rounds": (0, None),
    "mppi.prior_weight": (0, None),
    "compare.prior_weight": (0, None),
    "finetune.sim_replay_fraction": (0, 1),
}


def check_sections(sections: dict) -> None:
    """A resolved configuration's counts and shares within their ranges, the field named as `--set` names it."""
    for key, (least, most) in FIELD_RANGES.items():
        section, _, name = key.partition(".")
        value = getattr(sections.get(section), name, None)
        if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if value != value or value < least or (most is not None and value > most):
            need = f"within [{least}, {most}]" if most is not None else f"at least {least}"
            raise ValueError(f"--set {key}={value} (or the flag that is its alias): must be {need}")
