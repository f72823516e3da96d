"""Checks made before any command runs: the override flags `--set` replaced, and outputs kept out of inputs."""

from __future__ import annotations

import argparse
from pathlib import Path

from simdist.training.checkpoint import SHIPPED_DIR

# The per-section flags that `--set SECTION.FIELD=VALUE` replaced, and the section each one was.
REPLACED_FLAGS = {"--model-set": "model", "--train-set": "train", "--loss-set": "loss", "--mppi-set": "mppi",
                  "--finetune-set": "finetune", "--baseline-set": "baseline"}
# Arguments that name what a command reads: checkpoints, datasets, policies, label sets.
INPUT_ARGUMENTS = ("checkpoint", "checkpoints", "data", "sim_data", "initial_data", "init_from", "expert_data",
                   "start_policy", "sources", "initial_labels")


def refuse_replaced_flags(argv: list[str]) -> None:
    """One line naming the new form, instead of argparse's usage dump."""
    for arg in argv:
        flag = arg.split("=", 1)[0]
        if flag in REPLACED_FLAGS:
            raise ValueError(f"{flag} FIELD=VALUE is now --set {REPLACED_FLAGS[flag]}.FIELD=VALUE")


def check_inputs_untouched(args: argparse.Namespace) -> None:
    """Refuse an `--out` inside the repository's shipped `checkpoints/` or inside a folder the command reads: a
    command writes under `--out` only, and never changes its inputs."""
    if getattr(args, "out", None) is None:
        return
    out = Path(args.out).resolve()
    inputs = []
    for name in INPUT_ARGUMENTS:
        value = getattr(args, name, None)
        inputs += [value] if isinstance(value, str) else list(value or ())
    for folder in [SHIPPED_DIR, *inputs]:
        folder = Path(folder).resolve()
        if out == folder or folder in out.parents:
            what = "the shipped checkpoints" if folder == SHIPPED_DIR.resolve() else "an input of this command"
            raise ValueError(f"--out {args.out} is inside {folder}, {what}: commands never write into their inputs; "
                             "choose another --out")
