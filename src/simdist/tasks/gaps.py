"""A task's sim-to-real gap as data: the physics fields in which its `real` domain differs from `sim`, in named groups,
and `real` with some groups put back to `sim` — to measure which part of the gap costs a policy.

"Back to `sim`" means the middle of the `sim` randomisation range for range fields (``*_range*``, ``(low, high)``)
and the `sim` value for every other field. The values are computed from the task's documented physics each time, so
they follow any change to it. A task may declare ``gap_groups`` (group name -> field names); without it every
differing field is a group of its own. Field names are always accepted as groups too, and ``all`` is every field.

    env = task.make_env("real", {"with_sim": ["arm"]})   # `real`, but with the sim arm
    simdist evaluate table-leg --domain real --physics real_with_sim_arm.json ...   # the file: {"with_sim": ["arm"]}
"""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from simdist.tasks.physics_files import read_physics

ALL = "all"
WITH_SIM = "with_sim"  # the physics-override entry naming the groups to put back to sim


def gap_fields(task) -> tuple[str, ...]:
    """The physics fields whose documented value differs between `sim` and `real`, in declaration order."""
    sim, real = task.default_physics("sim"), task.default_physics("real")
    return tuple(f.name for f in dataclasses.fields(sim) if getattr(sim, f.name) != getattr(real, f.name))


def gap_groups(task) -> dict[str, tuple[str, ...]]:
    """The task's named groups of gap fields (each restricted to the fields that differ), then ``all``.

    A declared grouping must cover every differing field, so that reverting every group is reverting the whole gap.
    """
    differing = gap_fields(task)
    declared = getattr(task, "gap_groups", None)
    if declared is None:
        groups = {name: (name,) for name in differing}
    else:
        valid = {f.name for f in dataclasses.fields(task.default_physics("sim"))}
        unknown = sorted({n for names in declared.values() for n in names} - valid)
        if unknown:
            raise ValueError(f"{task.spec.name}: gap_groups name unknown physics fields {unknown}")
        missing = sorted(set(differing) - {n for names in declared.values() for n in names})
        if missing:
            raise ValueError(f"{task.spec.name}: real-domain effects in no gap group: {missing}")
        groups = {g: tuple(n for n in names if n in differing) for g, names in declared.items()}
    return {**groups, ALL: differing}


def sim_value(task, name: str) -> Any:
    """The value a field takes when put back to `sim`: a range's midpoint (as a zero-width range), else sim's value."""
    value = getattr(task.default_physics("sim"), name)
    if "_range" in name and isinstance(value, tuple) and len(value) == 2:
        middle = (value[0] + value[1]) / 2
        return (middle, middle)
    return value


def reverted_fields(task, groups: Sequence[str]) -> tuple[str, ...]:
    """The fields that ``groups`` (group or field names) put back to `sim`; unknown names list the valid ones."""
    table, differing = gap_groups(task), gap_fields(task)
    fields: list[str] = []
    for group in groups:
        if group in table:
            names = table[group]
        elif group in differing:
            names = (group,)
        else:
            raise KeyError(
                f"unknown gap group {group!r} of {task.spec.name}; valid groups: {list(table)} "
                f"(or a differing field: {list(differing)})"
            )
        fields += [n for n in names if n not in fields]
    return tuple(fields)


def expand_with_sim(task, domain: str, overrides) -> dict[str, Any] | None:
    """Physics overrides (a dict or JSON/YAML file) with their ``with_sim`` entry, a list of groups, replaced by the
    fields it puts back to `sim`; entries naming a field explicitly win over ``with_sim``. Only `real` has a gap."""
    override = read_physics(overrides)
    if override is None:
        return None
    source, data = override.source, dict(override.values)
    groups = data.pop(WITH_SIM, None)
    if groups is None:
        return data
    if domain != "real":
        raise ValueError(
            f"{source}: {WITH_SIM!r} puts part of the real domain back to sim: it applies to domain 'real' only, "
            f"not {domain!r}"
        )
    groups = [groups] if isinstance(groups, str) else groups
    if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
        raise ValueError(
            f"{source}: {WITH_SIM} = {groups!r}: must be a group name or a list of them; "
            f"groups: {list(gap_groups(task))}"
        )
    try:
        reverted = reverted_fields(task, groups)
    except KeyError as err:
        raise KeyError(f"{source}: {WITH_SIM}: {err.args[0]}") from None
    return {**{name: sim_value(task, name) for name in reverted}, **data}
