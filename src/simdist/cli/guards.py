"""Checks made before any command runs: the override flags `--set` replaced, outputs kept out of inputs, and what
runs under a parallel launcher (torchrun) or on Ray."""

from __future__ import annotations

import argparse
from pathlib import Path

from simdist.data.ray_generate import INSTALL_HINT, ray_available
from simdist.training.checkpoint import SHIPPED_DIR
from simdist.training.distributed import launched

# The per-section flags that `--set SECTION.FIELD=VALUE` replaced, and the section each one was.
REPLACED_FLAGS = {
    "--model-set": "model",
    "--train-set": "train",
    "--loss-set": "loss",
    "--mppi-set": "mppi",
    "--finetune-set": "finetune",
    "--baseline-set": "baseline",
}
# Arguments that name what a command reads: checkpoints, datasets, policies, label sets.
INPUT_ARGUMENTS = (
    "checkpoint",
    "checkpoints",
    "data",
    "sim_data",
    "initial_data",
    "init_from",
    "expert_data",
    "start_policy",
    "sources",
    "initial_labels",
)


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
            raise ValueError(
                f"--out {args.out} is inside {folder}, {what}: commands never write into their inputs; "
                "choose another --out"
            )


def check_launch(args: argparse.Namespace) -> None:
    """Only `pretrain` runs data-parallel: under torchrun any other command would run once per process. `--ray`
    needs the `ray` extra."""
    if launched() and args.command != "pretrain":
        raise ValueError(
            f"{args.command} runs as one process; of the commands only pretrain runs data-parallel under "
            "torchrun (WORLD_SIZE > 1)"
        )
    if getattr(args, "ray", None) is not None and not ray_available():
        raise ValueError(INSTALL_HINT)
