"""The one override syntax of every command: `--set SECTION.FIELD=VALUE`, typed by the config dataclass's fields."""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence, TypeVar

C = TypeVar("C")


def parse_overrides(cls: type, items: Sequence[str], where: str = "") -> dict[str, Any]:
    """`["samples=128", "prior_weight=2"]` → typed field overrides of a flat config dataclass (int, float, bool
    and str fields, optional int/float ones taking `none`, comma-separated int/str tuples), with an error naming the
    valid fields. `where` (e.g. "--set mppi.") prefixes each item in the errors, as the user wrote it."""
    kinds = {
        "int": int,
        "float": float,
        "str": str,
        "bool": lambda v: {"1": True, "true": True, "0": False, "false": False}[v.lower()],
    }
    for name in ("int", "float"):  # optional fields (e.g. `decay_steps: int | None`) also take `none`
        kinds[f"{name} | None"] = (lambda cast: lambda v: None if v.lower() == "none" else cast(v))(kinds[name])
    for name in ("int", "str"):  # tuples are comma-separated: `trainable=dynamics,value`, `proprio_hidden=256,256`
        kinds[f"tuple[{name}, ...]"] = (lambda cast: lambda v: tuple(cast(x) for x in v.split(",") if x))(kinds[name])
    types = {f.name: str(f.type) for f in dataclasses.fields(cls) if str(f.type) in kinds}
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or key not in types:
            raise ValueError(
                f"bad override {where + item!r}: expected FIELD=VALUE with FIELD one of {cls.__name__}'s "
                f"{sorted(types)}"
            )
        try:
            out[key] = kinds[types[key]](value)
        except (KeyError, ValueError):
            raise ValueError(f"{where}{key}: {cls.__name__}.{key} is {types[key]}; cannot read {value!r}") from None
    return out


def split_sets(items: Sequence[str] | None, sections: dict[str, type | None]) -> dict[str, list[str]]:
    """`--set SECTION.FIELD=VALUE` items (`["model.policy_sees_actions=false", "mppi.samples=128"]`) → each
    section's `FIELD=VALUE` items, for the sections a command takes (name → its config dataclass, whose fields and
    types are checked here, or None where the caller checks them). A bad item is an error naming the valid ones."""
    out: dict[str, list[str]] = {name: [] for name in sections}
    for item in items or ():
        key, sep, value = item.partition("=")
        section, dot, field = key.partition(".")
        if not sep or not dot or section not in sections:
            raise ValueError(f"bad --set {item!r}: expected SECTION.FIELD=VALUE with SECTION one of {sorted(sections)}")
        if sections[section] is not None:
            parse_overrides(sections[section], [f"{field}={value}"], f"--set {section}.")
        out[section].append(f"{field}={value}")
    return out


def with_sets(cfg: C, items: Sequence[str], section: str = "") -> C:
    """`cfg` with a section's `FIELD=VALUE` items (from `split_sets`) applied."""
    return dataclasses.replace(cfg, **parse_overrides(type(cfg), items, f"--set {section}." if section else ""))


__all__ = ["parse_overrides", "split_sets", "with_sets"]
