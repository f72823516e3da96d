"""The parser's shared pieces: one-line errors, --help with defaults, the one override flag `--set` and the
shortcut flags that are aliases of it, and `--config` (rerun from a saved run_config.yaml)."""

from __future__ import annotations

import argparse

# evaluate, adapt and run: pretraining and finetuning use a GPU wherever there is one; planning only when asked
PLAN_DEVICE_HELP = (
    "where the world model plans: cpu (default) or cuda; the paper-quadruped planner takes 14.5 ms on "
    "an H200 against 343 ms on 2 CPU cores"
)


class OneLineParser(argparse.ArgumentParser):
    """A bad command line is one line on stderr (argparse's usage dump is left to --help); exit status 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (--help: usage)\n")


class DefaultsHelp(argparse.HelpFormatter):
    """--help shows each option's default, unless its help already says what it is."""

    def _get_help_string(self, action):
        help = action.help or ""
        if _no_default(action) or "default" in help or not action.option_strings:
            return help
        return f"{help} (default: %(default)s)".lstrip()


def _no_default(action: argparse.Action) -> bool:
    return (
        action.default is None or action.default is False or action.default == [] or action.default == argparse.SUPPRESS
    )


def show_defaults(parser: argparse.ArgumentParser) -> None:
    """Options without a help text get one, so that --help lists their defaults too."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                show_defaults(sub)
        elif action.help is None and not _no_default(action):
            action.help = "(default: %(default)s)"


class SetAlias(argparse.Action):
    """A shortcut flag that is `--set TEMPLATE` with its value: `--steps 500` appends `train.steps=500` to the
    command's `--set` items, in command-line order (so a later `--set` of the same field wins)."""

    def __init__(self, option_strings, dest, template: str, **kwargs):
        self.template = template
        super().__init__(option_strings, dest="set", default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        items = list(getattr(namespace, "set", None) or [])
        items.append(self.template.format(values))
        namespace.set = items


def add_alias(sp: argparse.ArgumentParser, flag: str, template: str, help: str = "", **kwargs) -> None:
    """`flag VALUE` as an alias of `--set TEMPLATE` (TEMPLATE holds `{}` for the value)."""
    shown = template.replace("{}", "VALUE")
    sp.add_argument(
        flag, action=SetAlias, template=template, help=f"{help} (alias of --set {shown})".lstrip(), **kwargs
    )


def add_command(sub, name: str, fn, help: str) -> argparse.ArgumentParser:
    """A subcommand with the flags every command has: --json, --quiet."""
    sp = sub.add_parser(name, help=help, description=help, formatter_class=DefaultsHelp)
    sp.add_argument("--json", action="store_true", help="print one JSON object as the last line of stdout")
    sp.add_argument("--quiet", action="store_true", help="no progress bars")
    sp.set_defaults(fn=fn)
    return sp


def add_set(sp: argparse.ArgumentParser, sections: str, example: str, config: bool = True) -> None:
    """The one override flag, `--set SECTION.FIELD[.FIELD…]=VALUE` or `--set SECTION=PRESET`, repeatable; and
    `--config` where the command writes a run_config.yaml to rerun from."""
    sp.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="SECTION.FIELD=VALUE",
        help=f"override a config field at any depth, or pick a section's preset with SECTION=PRESET (repeatable; "
        f"sections: {sections}; `simdist presets` shows the fields), e.g. --set {example}",
    )
    if config:
        sp.add_argument(
            "--config",
            metavar="RUN_CONFIG",
            help="rerun from a run_config.yaml this command wrote: its arguments and resolved configuration, "
            "then any flags and --set given here",
        )


__all__ = ["OneLineParser", "DefaultsHelp", "PLAN_DEVICE_HELP", "add_alias", "add_command", "add_set"]
