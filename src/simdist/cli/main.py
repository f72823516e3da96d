"""The `simdist` command line: thin commands over the library. Every command takes `--json`, which prints
one JSON object as the last line of stdout (logs and progress bars go to stderr). Each command's parser and function
live in the module of its pipeline stage (data, training, evaluation, adaptation, experiment commands)."""

from __future__ import annotations

import argparse
import json
import logging
import sys

import torch

from simdist.cli import (
    adaptation_commands,
    data_commands,
    evaluation_commands,
    experiment_commands,
    pipeline_commands,
    training_commands,
)
from simdist.cli.guards import check_inputs_untouched, check_launch, refuse_replaced_flags
from simdist.cli.parser import DefaultsHelp, OneLineParser, show_defaults
from simdist.cli.run_config import config_argv, record_run_config
from simdist.cli.runtime import RESUMABLE, choose_threads, interrupted, terminate_as_interrupt
from simdist.cli.validate import check_arguments
from simdist.training.distributed import env_rank

log = logging.getLogger("simdist")

STAGES = (
    data_commands,
    training_commands,
    evaluation_commands,
    adaptation_commands,
    pipeline_commands,
    experiment_commands,
)


def _emit(args, result: dict) -> None:
    print(json.dumps(result, default=float) if args.json else "\n".join(_readable(result)))


def _readable(result: dict) -> list[str]:
    """One line per field; a table of dicts (an evaluation's grids) one line per row; floats to 3 digits."""
    fmt = lambda v: (
        f"{v:.3g}"
        if isinstance(v, float)
        else "[" + ", ".join(map(fmt, v)) + "]"
        if isinstance(v, (list, tuple)) and v and all(isinstance(x, float) for x in v)
        else str(v)
    )
    lines = []
    for key, value in result.items():
        if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            lines.append(f"{key}:")
            lines += [
                f"  {row}: " + ", ".join(f"{k} {fmt(v)}" for k, v in cells.items()) for row, cells in value.items()
            ]
        else:
            lines.append(f"{key}: {fmt(value)}")
    return lines


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="simdist", description=__doc__, formatter_class=DefaultsHelp)
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = p.add_subparsers(dest="command", required=True)
    for stage in STAGES:
        stage.add_parsers(sub)
    show_defaults(p)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # Under torchrun every rank runs this: rank 0 logs and prints the result, the others only warn; a bad input is
    # said once per node (by its first rank: a file missing on one node is said there).
    rank = env_rank()
    logging.basicConfig(
        level=logging.INFO if rank == 0 else logging.WARNING,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    report = log.error if env_rank(local=True) == 0 else log.debug
    parser = build_parser()
    try:
        refuse_replaced_flags(argv)
        argv, saved = config_argv(parser, argv)
    except ValueError as err:
        report("%s", err)
        return 2
    args = parser.parse_args(argv)
    if saved is not None:  # rerun from a run_config.yaml: its resolved sections, its physics by content
        args.loaded_config = saved["config"]
        if getattr(args, "physics", None) is None:
            args.physics = saved.get("physics")
    if args.verbose:
        logging.getLogger().setLevel(logging.DEBUG)
    try:
        check_launch(args)
        check_inputs_untouched(args)
        check_arguments(args)
    except (KeyError, ValueError, OSError) as err:
        report("%s", err.args[0] if isinstance(err, KeyError) and err.args else err)
        return 2
    if args.command not in ("tasks", "presets"):
        choose_threads()
    try:
        with terminate_as_interrupt():
            result = args.fn(args)
    except KeyboardInterrupt as err:  # Ctrl-C or SIGTERM: completed work stays, partial files go
        if rank == 0 and args.command in RESUMABLE:
            record_run_config(args)
        return interrupted(args, err)
    except (KeyError, ValueError, OSError) as err:  # OSError: a full disk, a folder it may not write
        report("%s", err.args[0] if isinstance(err, KeyError) and err.args else err)
        return 2
    if rank == 0:
        record_run_config(args)
        _emit(args, {**result, "threads": torch.get_num_threads()} if args.json else result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
