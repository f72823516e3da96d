"""Configs read from outside: the one override syntax of every command, `--set SECTION.FIELD[.FIELD…]=VALUE` (any
depth, typed by the config dataclasses' fields) or `--set SECTION=PRESET`, and saved configs (dicts) read back into
dataclasses."""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence, TypeVar

C = TypeVar("C")

_BOOL = {"1": True, "true": True, "0": False, "false": False}
KINDS: dict[str, Any] = {"int": int, "float": float, "str": str, "bool": lambda v: _BOOL[v.lower()]}
for _name in ("int", "float", "str"):  # optional fields (e.g. `decay_steps: int | None`) also take `none`
    KINDS[f"{_name} | None"] = (lambda cast: lambda v: None if v.lower() == "none" else cast(v))(KINDS[_name])
for _name in ("int", "str", "float"):  # comma-separated tuples: `trainable=dynamics,value`, `proprio_hidden=256,256`
    KINDS[f"tuple[{_name}, ...]"] = (lambda cast: lambda v: tuple(cast(x) for x in v.split(",") if x))(KINDS[_name])
for _name in ("int", "float"):  # pairs: `noise_on_steps=1,5`
    KINDS[f"tuple[{_name}, {_name}]"] = (lambda cast: lambda v: tuple(cast(x) for x in v.split(",")))(KINDS[_name])


def _settable(cls: type) -> dict[str, str]:
    """Field name → type (as written) of the fields `--set` can read from text."""
    return {f.name: str(f.type) for f in dataclasses.fields(cls) if str(f.type) in KINDS}


def _nested(cfg: Any) -> dict[str, Any]:
    """Fields of `cfg` that are config dataclasses themselves (e.g. TrainConfig.loss, ModelConfig.dynamics)."""
    return {f.name: v for f in dataclasses.fields(cfg) if dataclasses.is_dataclass(v := getattr(cfg, f.name))}


def parse_overrides(cls: type, items: Sequence[str], where: str = "") -> dict[str, Any]:
    """`["samples=128", "prior_weight=2"]` → typed field overrides of a flat config dataclass (int, float, bool
    and str fields, optional int/float ones taking `none`, comma-separated tuples), with an error naming the
    valid fields. `where` (e.g. "--set mppi.") prefixes each item in the errors, as the user wrote it."""
    types = _settable(cls)
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or key not in types:
            raise ValueError(
                f"bad override {where + item!r}: expected FIELD=VALUE with FIELD one of {cls.__name__}'s "
                f"{sorted(types)}"
            )
        try:
            out[key] = KINDS[types[key]](value)
        except (KeyError, ValueError):
            raise ValueError(f"{where}{key}: {cls.__name__}.{key} is {types[key]}; cannot read {value!r}") from None
    return out


def set_field(cfg: C, path: str, value: str, where: str = "") -> C:
    """`cfg` with the field at dotted `path` (`loss.bc`, `dynamics.layers`) read from `value` by its type. A config
    class may define `with_overrides(changes)` to keep its own invariants (e.g. a schedule's shape when `steps`
    changes)."""
    head, dot, rest = path.partition(".")
    nested = _nested(cfg)
    if dot:
        if head not in nested:
            raise ValueError(
                f"bad --set {where}{path}: {type(cfg).__name__} has no nested config {head!r}; nested ones: "
                f"{sorted(nested) or 'none'}"
            )
        return dataclasses.replace(cfg, **{head: set_field(nested[head], rest, value, f"{where}{head}.")})
    if head in nested:
        raise ValueError(f"--set {where}{head} is a nested config: set one of its fields, e.g. {where}{head}.FIELD=…")
    changes = parse_overrides(type(cfg), [f"{head}={value}"], f"--set {where}")
    hook = getattr(cfg, "with_overrides", None)
    return hook(changes) if hook is not None else dataclasses.replace(cfg, **changes)


def with_sets(cfg: C, items: Sequence[str], section: str = "") -> C:
    """`cfg` with `FIELD[.FIELD…]=VALUE` items applied in order."""
    where = f"{section}." if section else ""
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"bad --set {where}{item!r}: expected FIELD=VALUE")
        cfg = set_field(cfg, key, value, where)
    return cfg


def split_sets(
    items: Sequence[str] | None, sections: dict[str, type | None], aliases: dict[str, str] | None = None
) -> dict[str, list[str]]:
    """`--set SECTION.PATH=VALUE` items → each section's `PATH=VALUE` items, in order, for the sections a command
    takes (name → its config dataclass, whose fields are checked here, or None where the caller checks them).
    `aliases` maps a shorthand section to a path (`{"loss": "train.loss"}`: `loss.bc=1` is `train.loss.bc=1`). A
    bad item is an error naming the valid sections."""
    out: dict[str, list[str]] = {name: [] for name in sections}
    for item in items or ():
        key, sep, value = item.partition("=")
        section, dot, path = key.partition(".")
        if aliases and section in aliases:
            section, _, prefix = aliases[section].partition(".")
            path = f"{prefix}.{path}" if prefix else path
        if not sep or not dot or section not in sections:
            names = sorted([*sections, *(aliases or ())])
            raise ValueError(f"bad --set {item!r}: expected SECTION.FIELD=VALUE with SECTION one of {names}")
        cls = sections[section]
        if cls is not None:
            with_sets(_blank(cls), [f"{path}={value}"], section)
        out[section].append(f"{path}={value}")
    return out


def _blank(cls: type) -> Any:
    """An instance to check overrides against: the defaults (every config here has them)."""
    return cls()


# Fields removed because they changed nothing measured, with the value that left them off: a saved config (a
# checkpoint's config.json, a run's recorded settings) that holds one at that value reads as before.
# policy_action_dropout: the BC head followed the past actions anyway, closed loop unchanged on both arm tasks
# (docs/tasks/peg-insertion.md); bc_mu: no companding setting helped Peg Insertion's BC (same page).
REMOVED_FIELDS: dict[str, dict[str, Any]] = {
    "ModelConfig": {"policy_action_dropout": 0.0},
    "LossConfig": {"bc_mu": 0.0},
}


def without_removed_fields(data: Any) -> Any:
    """`data` (nested dicts and lists, e.g. recorded settings) without the removed fields still at their old value."""
    gone = {k: v for fields in REMOVED_FIELDS.values() for k, v in fields.items()}
    if isinstance(data, dict):
        return {k: without_removed_fields(v) for k, v in data.items() if not (k in gone and v == gone[k])}
    return [without_removed_fields(v) for v in data] if isinstance(data, list) else data


def from_dict(cls: type[C], data: dict[str, Any]) -> C:
    """Build a config dataclass from a dict, with a clear error on unknown or missing keys. A removed field at the
    value that left it off is dropped; set to anything else, it is an error naming it."""
    removed = REMOVED_FIELDS.get(cls.__name__, {})
    if set_removed := sorted(k for k in set(data) & set(removed) if data[k] != removed[k]):
        raise KeyError(
            f"{cls.__name__} field(s) {set_removed} were removed (they changed nothing measured); this "
            f"config sets them to {[data[k] for k in set_removed]}"
        )
    data = {k: v for k, v in data.items() if k not in removed}
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise KeyError(f"unknown {cls.__name__} field(s) {unknown}; valid fields: {sorted(names)}")
    return cls(**data)


__all__ = ["from_dict", "parse_overrides", "set_field", "split_sets", "with_sets", "without_removed_fields"]
