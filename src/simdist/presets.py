"""The one registry of named presets: every kind (task, model, train, finetune, mppi, data, baseline, run) is a
`Registry` of functions of nothing, looked up by name, its errors listing the valid names; `simdist presets` lists
them all.

Naming: a preset is named by its scale, `cpu` (sized for 2 CPU cores) or `paper` (the paper's), with the robot where a
kind differs by robot (`quadruped-cpu`, `paper-manipulation`, `paper-quadruped`). Every command's `--preset` takes
`cpu` and `paper` (`for_task` picks the robot's `paper-*` for the command's task) or any preset's full name.
"""

from __future__ import annotations

from typing import Any, Callable, Generic, Iterator, TypeVar

C = TypeVar("C")

SCALES = ("cpu", "paper")


class Registry(Generic[C]):
    """Named presets of one kind over a table of makers (name → function of nothing) defined where the config is:
    `Registry("train", TRAIN_PRESETS).get("cpu")` builds a fresh config. Reads like that table (`name in r`,
    `r.items()`, `sorted(r)`)."""

    def __init__(self, kind: str, makers: dict[str, Callable[[], C] | C] | None = None):
        self.kind = kind
        # the table itself, not a copy: a preset added to it later is a preset of the registry
        self._makers: dict[str, Callable[[], C] | C] = makers if makers is not None else {}
        REGISTRIES[kind] = self

    def add(self, name: str, make: Callable[[], C]) -> None:
        if name in self._makers:
            raise ValueError(f"{self.kind} preset {name!r} is already registered")
        self._makers[name] = make

    def names(self) -> list[str]:
        return sorted(self._makers)

    def get(self, name: str) -> C:
        if name not in self._makers:
            raise KeyError(f"unknown {self.kind} preset {name!r}; valid presets: {self.names()}")
        made = self._makers[name]
        return made() if callable(made) else made  # a maker, or a frozen config kept as it is

    def __contains__(self, name: object) -> bool:
        return name in self._makers

    def __iter__(self) -> Iterator[str]:
        return iter(self._makers)

    def __len__(self) -> int:
        return len(self._makers)

    def items(self):
        return self._makers.items()


REGISTRIES: dict[str, Registry[Any]] = {}


def registry(kind: str) -> Registry[Any]:
    if kind not in REGISTRIES:
        raise KeyError(f"unknown preset kind {kind!r}; valid kinds: {sorted(REGISTRIES)}")
    return REGISTRIES[kind]


def preset(kind: str, name: str) -> Any:
    """The preset `name` of `kind` (e.g. `preset("train", "cpu")`)."""
    return registry(kind).get(name)


def for_task(kind: str, name: str | None, legged: bool) -> str | None:
    """The name of `kind`'s preset that a command's `--preset paper` means for a task: the robot's variant,
    `paper-quadruped` for a command-conditioned task, else `paper-manipulation`, where the kind has no `paper` of its
    own; any other name is taken as it is (`cpu` stays `cpu`: `quadruped-cpu` is asked for by name, except by
    `simdist run`, whose run preset picks it for a legged task)."""
    if name == "paper" and "paper" not in registry(kind):
        return "paper-quadruped" if legged else "paper-manipulation"
    return name


__all__ = ["Registry", "REGISTRIES", "SCALES", "for_task", "preset", "registry"]
