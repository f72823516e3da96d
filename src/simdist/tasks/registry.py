"""Task registry: tasks register a factory under a name; errors list the valid names.

Tasks outside simdist (your robot's) reach every command in two ways (docs/new-task.md):
* an installed package names its task class under the entry-point group ``simdist.tasks``
  (``[project.entry-points."simdist.tasks"] my-robot = "my_pkg.task:MyRobotTask"``);
* ``SIMDIST_TASK_MODULES`` lists modules or ``.py`` files, comma-separated, that call :func:`register` when
  imported (``SIMDIST_TASK_MODULES=examples/point_mass/task.py simdist run point-mass``). Worker processes
  inherit it.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import zlib
from importlib.metadata import entry_points
from pathlib import Path
from typing import Callable

from simdist.presets import Registry
from simdist.tasks.base import Task

PLUGIN_GROUP = "simdist.tasks"
MODULES_ENV = "SIMDIST_TASK_MODULES"
_FACTORIES: dict[str, Callable[[], Task]] = {}
_BUILTINS_LOADED = False


def register(name: str, factory: Callable[[], Task]) -> None:
    if name in _FACTORIES:
        raise ValueError(f"task {name!r} is already registered")
    _FACTORIES[name] = factory


def _load_builtins() -> None:
    # Imported lazily so that `import simdist` stays cheap and a broken optional task cannot break the rest.
    global _BUILTINS_LOADED
    if _BUILTINS_LOADED:
        return
    _BUILTINS_LOADED = True
    for module in (
        "simdist.tasks.pendulum",
        "simdist.tasks.peg_insertion",
        "simdist.tasks.quadruped",
        "simdist.tasks.table_leg",
    ):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name != module:
                raise
    _load_plugins()


def _load_plugins() -> None:
    for ep in entry_points(group=PLUGIN_GROUP):
        if ep.name not in _FACTORIES:  # loaded only when the task is asked for
            _FACTORIES[ep.name] = lambda ep=ep: ep.load()()
    for item in (s.strip() for s in os.environ.get(MODULES_ENV, "").split(",")):
        if item:
            _import_task_module(item)


def _import_task_module(item: str) -> None:
    """Import a module by name, or a file by path, for the tasks it registers. A file's folder goes on sys.path, so
    that it can import the modules beside it (`from my_robot_physics import ...`)."""
    if not item.endswith(".py"):
        try:
            importlib.import_module(item)
        except ModuleNotFoundError as err:
            if err.name is None or not (item == err.name or item.startswith(err.name + ".")):
                raise  # the module exists and fails on an import of its own: its traceback says where
            raise ValueError(
                f"{MODULES_ENV} names module {item!r}, which cannot be imported ({err}); give an "
                "importable module or the path of a .py file"
            ) from err
        return
    path = Path(item).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"{MODULES_ENV} names {item}, which is not a file")
    name = f"simdist_task_file_{path.parent.name}_{path.stem}"  # readable in log records
    loaded = sys.modules.get(name)
    if loaded is not None and Path(loaded.__file__) == path:
        return
    if loaded is not None:  # another file of that folder and name
        name += f"_{zlib.crc32(str(path).encode())}"
    if str(path.parent) not in sys.path:  # the file's own modules beside it import as they would from its folder
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before running it, so that its dataclasses can find their module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise


def task_names() -> list[str]:
    _load_builtins()
    return sorted(_FACTORIES)


def get_task(name: str) -> Task:
    _load_builtins()
    if name not in _FACTORIES:
        raise KeyError(f"unknown task {name!r}; valid tasks: {sorted(_FACTORIES)}")
    return _FACTORIES[name]()


class TaskRegistry(Registry[Task]):
    """The tasks as a kind of preset (`simdist presets` lists them): built-ins, entry points and
    SIMDIST_TASK_MODULES, loaded at the first look-up."""

    def names(self) -> list[str]:
        return task_names()

    def get(self, name: str) -> Task:
        return get_task(name)


TASK_REGISTRY = TaskRegistry("task", _FACTORIES)


def check_task(name: str) -> str | None:
    """Build the task and its `sim` environment once and reset it: None where that works, else why it does not
    (e.g. a plugin that needs an extra that is not installed), in one line."""
    try:
        task = get_task(name)
        env = task.make_env("sim", None, seed=0)
        env.reset(seed=0)
    except Exception as err:  # any failure is the answer: the listing goes on to the next task
        return f"{type(err).__name__}: {err}".splitlines()[0]
    close = getattr(env, "close", None)
    if callable(close):
        close()
    return None
