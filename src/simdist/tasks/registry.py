"""Task registry: tasks register a factory under a name; errors list the valid names."""

from __future__ import annotations

from typing import Callable

from simdist.tasks.base import Task

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
    import importlib

    for module in ("simdist.tasks.pendulum", "simdist.tasks.peg_insertion", "simdist.tasks.quadruped", "simdist.tasks.table_leg"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name != module:
                raise


def task_names() -> list[str]:
    _load_builtins()
    return sorted(_FACTORIES)


def get_task(name: str) -> Task:
    _load_builtins()
    if name not in _FACTORIES:
        raise KeyError(f"unknown task {name!r}; valid tasks: {sorted(_FACTORIES)}")
    return _FACTORIES[name]()
