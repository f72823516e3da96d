"""The one registry of named presets: every kind (task, model, train, finetune, mppi, data, baseline, run) is a
`Registry` of functions of nothing, looked up by name, its errors listing the valid names; `simdist presets` lists
them all.

Naming: a preset is named by its scale, `cpu` (sized for 2 CPU cores) or `paper` (the paper's), with the robot where a
kind differs by robot (`quadruped-cpu`, `paper-manipulation`, `paper-quadruped`). A command's `--preset cpu|paper`
picks each kind's preset for its task through `for_task` (`cpu` → `quadruped-cpu` for a command-conditioned task).
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


def for_task(kind: str, name: str, legged: bool) -> str:
    """The name of `kind`'s preset that a command's `--preset name` means for a task: a scale (`cpu`, `paper`) picks
    the robot's variant where the kind has one (`paper` → `paper-manipulation` or `paper-quadruped`, `cpu` →
    `quadruped-cpu` for a command-conditioned task); any other name is taken as it is."""
    table = registry(kind)
    if name == "cpu":
        return "quadruped-cpu" if legged and "quadruped-cpu" in table else name
    if name == "paper" and "paper" not in table:
        return "paper-quadruped" if legged else "paper-manipulation"
    return name


__all__ = ["Registry", "REGISTRIES", "SCALES", "for_task", "preset", "registry"]
