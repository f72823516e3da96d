"""A command's resolved configuration: built from presets, a saved run_config.yaml and `--set`, checked before any
work, and written into the command's output folder as run_config.yaml, from which
`simdist COMMAND --config OUT/run_config.yaml` reruns it."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any, Callable

import yaml

from simdist.cli.validate import check_sections
from simdist.data.episodes import atomic_write_text
from simdist.data.records import physics_content
from simdist.overrides import split_sets, with_sets
from simdist.presets import REGISTRIES, for_task

RUN_CONFIG = "run_config.yaml"
# Namespace entries that are no run input: how it is shown, how it was given, and the parser's own.
NOT_RECORDED = (
    "fn",
    "set",
    "config",
    "json",
    "quiet",
    "verbose",
    "command",
    "expert_cmd",
    "loaded_config",
    "resolved_config",
)
# Recorded by content (the file's "physics"), not by path: a rerun needs no file beside it.
BY_CONTENT = ("physics",)


def configure(
    args: argparse.Namespace,
    makers: dict[str, Callable[[str | None], Any]],
    preset: str | None = None,
    aliases: dict[str, str] | None = None,
    legged: bool | None = None,
) -> dict[str, Any]:
    """The command's config sections, name → dataclass. Each is made by its maker from a preset name (`--set
    SECTION=NAME`, else `preset`), or read from `--config`'s file where it holds the section, then `--set
    SECTION.FIELD…=VALUE` items apply in command-line order. Every item is checked against the dataclass types
    here, before any work. `aliases` maps shorthand sections to paths (`{"loss": "train.loss"}`); `legged` (whether
    the command's task is command-conditioned) lets `paper` name the robot's `paper-*` preset."""
    chosen, items = {}, []
    for item in getattr(args, "set", None) or []:
        key, sep, value = item.partition("=")
        if sep and "." not in key and key in makers:
            chosen[key] = value
        else:
            items.append(item)
    sets = split_sets(items, dict.fromkeys(makers), aliases)
    loaded = getattr(args, "loaded_config", None) or {}
    out = {}
    for name, make in makers.items():
        chosen_name = chosen.get(name, preset)
        if legged is not None and name in REGISTRIES:
            chosen_name = for_task(name, chosen_name, legged)
        base = make(chosen_name)
        if name in loaded and name not in chosen:
            base = from_tree(base, loaded[name], name)
        out[name] = with_sets(base, sets[name], name)
    check_sections(out)
    args.resolved_config = out  # main writes it into OUT when the command completes
    return out


def take_section(args, section: str) -> list[str]:
    """Remove `--set SECTION.FIELD=VALUE` items from `args.set`, returning them as `FIELD=VALUE`: for the sections a
    command keeps as override lists inside its own config (run's and compare's planner settings)."""
    mine = [i.partition(".")[2] for i in args.set if i.startswith(section + ".")]
    args.set = [i for i in args.set if not i.startswith(section + ".")]
    return mine


def from_tree(base: Any, data: dict[str, Any], where: str) -> Any:
    """`base` (a config dataclass) with the values of `data` (a saved section: nested dicts, lists for tuples)."""
    if not isinstance(data, dict):
        raise ValueError(f"{RUN_CONFIG}: config.{where} must be a mapping of fields, got {data!r}")
    names = {f.name for f in dataclasses.fields(base)}
    if unknown := sorted(set(data) - names):
        raise ValueError(f"{RUN_CONFIG}: config.{where} has unknown field(s) {unknown}; valid: {sorted(names)}")
    changes = {}
    for key, value in data.items():
        if key in BY_CONTENT:  # a physics override travels as the file's top-level `physics`, read at the edge
            continue
        current = getattr(base, key)
        if dataclasses.is_dataclass(current) and isinstance(value, dict):
            value = from_tree(current, value, f"{where}.{key}")
        elif isinstance(current, tuple) and isinstance(value, list):
            value = tuple(tuple(v) if isinstance(v, list) else v for v in value)
        changes[key] = value
    return dataclasses.replace(base, **changes)


def plain(value: Any) -> Any:
    """Config dataclasses and tuples as YAML-safe dicts and lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    return json.loads(json.dumps(value, default=str))


def write_run_config(out: str | Path, args: argparse.Namespace, sections: dict[str, Any]) -> Path:
    """OUT/run_config.yaml: the command, its arguments, every config section as resolved, and the physics
    override's content (not only its path). Written when the command completes (or is interrupted with its folder
    made): a bad input writes nothing."""
    physics = getattr(args, "physics", None)
    arguments = {k: getattr(v, "path", v) for k, v in vars(args).items() if k not in NOT_RECORDED}
    doc = {
        "command": args.command,
        "arguments": plain(arguments),
        "config": {name: plain(cfg) for name, cfg in sections.items()},
        "physics": plain(physics_content(physics)),
    }
    path = Path(out) / RUN_CONFIG
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, yaml.safe_dump(doc, sort_keys=False))
    return path


def record_run_config(args: argparse.Namespace) -> Path | None:
    """OUT/run_config.yaml for a command that resolved a configuration and has an output folder."""
    sections, out = getattr(args, "resolved_config", None), getattr(args, "out", None)
    if sections is None or out is None or not hasattr(args, "config") or not Path(out).is_dir():
        return None
    return write_run_config(out, args, sections)


def read_run_config(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"--config {path}: no such file (a run folder's {RUN_CONFIG})")
    try:
        doc = yaml.safe_load(path.read_text())
    except yaml.YAMLError as err:
        raise ValueError(f"--config {path}: not valid YAML: {str(err).splitlines()[0]}") from None
    if not isinstance(doc, dict) or not {"command", "arguments", "config"} <= set(doc):
        raise ValueError(f"--config {path}: not a {RUN_CONFIG} (needs command, arguments and config)")
    return doc


def config_argv(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[list[str], dict[str, Any] | None]:
    """`COMMAND --config FILE [flags]` → the command line the file records, then the flags given here (which win),
    and the file; any other command line as it is, and None."""
    if "--config" not in argv and not any(a.startswith("--config=") for a in argv):
        return argv, None
    rest, path = [], None
    it = iter(argv)
    for arg in it:
        if arg == "--config":
            path = next(it, None)
        elif arg.startswith("--config="):
            path = arg.split("=", 1)[1]
        else:
            rest.append(arg)
    if path is None:
        raise ValueError("--config needs the path of a run_config.yaml")
    doc = read_run_config(path)
    if not rest or rest[0] != doc["command"]:
        raise ValueError(f"--config {path} records `simdist {doc['command']}`; run it with that command")
    command = _subparser(parser, doc["command"])
    positionals, options = _recorded_argv(command, doc["arguments"])
    if any(not a.startswith("-") for a in rest[1:2]):
        raise ValueError(f"--config {path} gives the command's positional arguments; add only flags beside it")
    return [doc["command"], *positionals, *options, *rest[1:]], doc


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            return action.choices[name]
    raise ValueError(f"{RUN_CONFIG} names an unknown command {name!r}")


def _recorded_argv(command: argparse.ArgumentParser, arguments: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The recorded arguments as command-line tokens: positionals, then options."""
    positionals, options = [], []
    for action in command._actions:
        if action.dest not in arguments or action.dest in NOT_RECORDED or action.dest in BY_CONTENT:
            continue
        value = arguments[action.dest]
        if not action.option_strings:
            positionals += [str(v) for v in value] if isinstance(value, list) else [str(value)]
        elif value is None or value is False or value == []:
            continue
        elif isinstance(action, argparse._StoreTrueAction):
            options.append(action.option_strings[-1])
        elif isinstance(action, argparse._AppendAction):
            for v in value:
                options += [action.option_strings[-1], str(v)]
        else:
            options += [action.option_strings[-1], str(value)]
    return positionals, options


__all__ = ["RUN_CONFIG", "config_argv", "configure", "from_tree", "read_run_config", "take_section", "write_run_config"]
