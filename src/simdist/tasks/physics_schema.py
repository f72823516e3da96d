"""Physics parameters as validated data: a schema derived from a task's physics dataclass.

Each field has a type and shape from its type hint (float, int, bool, str, fixed-length tuples, optional) and a
physical range: the class's own ``LIMITS`` (field name -> :class:`Limit`) where it declares one, else a rule read
from the field's name (masses, inertias, stiffnesses, lengths, periods > 0; friction, damping, latency, noise,
motor torque ≥ 0; offsets any finite value). Parsing is strict: a string is not a number, a bool is not a number, a list
must have the field's length, ``(low, high)`` ranges need low ≤ high, and NaN or inf is never a physical value.

Every error is one line naming the source, the parameter, the value and what is allowed:

    physics file bad.json: peg_mass_range_kg = [-0.1, 0.2]: must be > 0 (kg)
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
import typing
from dataclasses import dataclass
from typing import Any


class PhysicsError(ValueError):
    """An invalid physics override; its message is one line."""


@dataclass(frozen=True)
class Limit:
    """The physical range of a number (or of every element of a tuple): > gt, ≥ ge, ≤ le, in ``unit``."""

    gt: float | None = None
    ge: float | None = None
    le: float | None = None
    unit: str = ""

    def violation(self, x: float) -> str | None:
        """None if ``x`` is allowed, else what is allowed ("must be > 0 (kg)")."""
        rules = [
            (b, op, ok)
            for b, op, ok in (
                (self.gt, ">", x > (self.gt or 0)),
                (self.ge, ">=", x >= (self.ge or 0)),
                (self.le, "<=", x <= (self.le or 0)),
            )
            if b is not None
        ]
        if all(ok for _, _, ok in rules):
            return None
        return "must be " + " and ".join(f"{op} {b:g}" for b, op, _ in rules) + (f" ({self.unit})" if self.unit else "")


# Name rules, tried in order on the field name's words (first match wins); units from a name's suffix.
_NAME_RULES: tuple[tuple[tuple[str, ...], Limit], ...] = (
    (("offset", "solref", "solimp"), Limit()),
    # A motor may be switched off (0 torque or force), never reversed.
    (
        (
            "start",
            "priority",
            "noise",
            "bias",
            "latency",
            "delay",
            "friction",
            "damping",
            "std",
            "tilt",
            "compensation",
            "obs",
            "torque",
            "force",
            "gear",
        ),
        Limit(ge=0.0),
    ),
    (
        (
            "mass",
            "inertia",
            "stiffness",
            "length",
            "timestep",
            "period",
            "pitch",
            "kp",
            "kd",
            "ratio",
            "turns",
            "clearance",
            "chamfer",
            "size",
            "radius",
            "count",
            "scale",
            "thick",
        ),
        Limit(gt=0.0),
    ),
)
_UNITS = {"kg": "kg", "m": "m", "s": "s", "n": "N", "nm": "N m", "rad": "rad", "deg": "deg", "mm": "mm"}


def field_limit(physics_type: type, name: str) -> Limit:
    declared = getattr(physics_type, "LIMITS", None) or {}
    if name in declared:
        return declared[name]
    words = name.lower().split("_")
    unit = _UNITS.get(words[-1], "")
    for tokens, limit in _NAME_RULES:  # "lengths" matches "length"
        if any(w.startswith(t) for w in words for t in tokens):
            return dataclasses.replace(limit, unit=limit.unit or unit)
    return Limit(unit=unit)


def _show(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _parse(hint: Any, value: Any, current: Any) -> Any:
    """``value`` converted to ``hint``'s type, or PhysicsError with what is allowed (without the prefix)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        options = [a for a in args if a is not type(None)]
        return _parse(options[0] if len(options) == 1 else options, value, current)
    if isinstance(hint, list):  # several non-None options: the first that parses
        errors = []
        for option in hint:
            try:
                return _parse(option, value, current)
            except PhysicsError as err:
                errors.append(str(err))
        raise PhysicsError(" or ".join(errors))
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            raise PhysicsError(f"must be a list of {_tuple_len(args, current)} numbers")
        if args and args[-1] is Ellipsis:
            items = [_parse(args[0], v, None) for v in value]
        else:
            if len(value) != len(args):
                raise PhysicsError(f"must be a list of {len(args)} values, got {len(value)}")
            items = [_parse(a, v, None) for a, v in zip(args, value)]
        return tuple(items)
    if hint is bool:
        if not isinstance(value, bool):
            raise PhysicsError("must be true or false")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise PhysicsError("must be a whole number")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise PhysicsError("must be a number")
        if not math.isfinite(value):
            raise PhysicsError("must be finite")
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise PhysicsError("must be a string")
        return value
    return value  # a type the schema does not know: passed through as before


def _tuple_len(args: tuple, current: Any) -> str:
    if args and args[-1] is not Ellipsis:
        return str(len(args))
    return str(len(current)) if isinstance(current, tuple) else "several"


def _check_limit(limit: Limit, value: Any, name: str) -> str | None:
    numbers = value if isinstance(value, tuple) else (value,)
    for x in numbers:
        if isinstance(x, (int, float)) and not isinstance(x, bool):
            problem = limit.violation(float(x))
            if problem:
                return problem
    if (
        isinstance(value, tuple)
        and len(value) == 2
        and "_range" in name
        and all(isinstance(x, (int, float)) for x in value)
        and value[0] > value[1]
    ):
        return "must be [low, high] with low <= high"
    return None


def validate_overrides(base: Any, overrides: dict[str, Any], source: str = "physics override") -> dict[str, Any]:
    """``overrides`` checked against ``base``'s dataclass schema and converted (lists to tuples); raises
    KeyError for unknown names (listing the valid ones) and PhysicsError (one line) for bad values."""
    physics_type = type(base)
    valid = {f.name: f for f in dataclasses.fields(base)}
    unknown = sorted(set(map(str, overrides)) - set(valid))
    if unknown:
        raise KeyError(f"{source}: unknown physics parameter(s) {unknown}; valid names: {sorted(valid)}")
    hints = typing.get_type_hints(physics_type)
    out = {}
    for name, value in overrides.items():
        try:
            parsed = _parse(hints.get(name, Any), value, getattr(base, name))
        except PhysicsError as err:
            raise PhysicsError(f"{source}: {name} = {_show(value)}: {err}") from None
        problem = _check_limit(field_limit(physics_type, name), parsed, name)
        if problem:
            raise PhysicsError(f"{source}: {name} = {_show(value)}: {problem}")
        out[name] = parsed
    return out


def check_physics(physics: Any, source: str = "physics") -> None:
    """Every field of a physics instance within the schema (e.g. a task's documented defaults)."""
    validate_overrides(physics, {f.name: _plain(getattr(physics, f.name)) for f in dataclasses.fields(physics)}, source)


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value
