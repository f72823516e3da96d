"""`simdist run | demo`: the whole pipeline, generation to report."""

from __future__ import annotations

from dataclasses import replace

from simdist.cli.parser import PLAN_DEVICE_HELP, add_alias, add_command, add_set
from simdist.cli.run_config import configure, take_section
from simdist.experiments.pipeline import DEMO, DEMO_CHECKPOINT, DEMO_TASK, RUN_REGISTRY, run_pipeline
from simdist.overrides import parse_overrides
from simdist.planning.settings import MPPIConfig
from simdist.training.checkpoint import shipped_checkpoint
from simdist.training.train import plan_device


def cmd_run(args) -> dict:
    mppi_set = take_section(args, "mppi")
    parse_overrides(MPPIConfig, mppi_set, "--set mppi.")  # checked now, applied by the pipeline

    def sizing(name: str | None):
        base = RUN_REGISTRY.get(name or args.preset)
        grids = tuple(args.grid) if args.grid else base.grids
        return replace(base, grids=grids, mppi_set=base.mppi_set + tuple(mppi_set))

    sections = configure(args, {"run": sizing})
    return run_pipeline(
        args.task,
        args.preset,
        args.out,
        progress=not args.quiet,
        video=not args.no_video,
        train_expert=args.train_expert,
        expert_budget=args.expert_budget,
        checkpoint=args.checkpoint,
        sizing=sections["run"],
        planner_device=plan_device(args.plan_device),
    )


def cmd_demo(args) -> dict:
    # pendulum: every stage, pretraining included, in about 80 s; Peg Insertion from the shipped model
    task, checkpoint = (args.task, None) if args.task == "pendulum" else (DEMO_TASK, DEMO_CHECKPOINT)
    sizing = (lambda name: RUN_REGISTRY.get(name or "cpu")) if checkpoint is None else (lambda _: DEMO)
    sections = configure(args, {"run": sizing})
    checkpoint = None if checkpoint is None else shipped_checkpoint(checkpoint)
    return run_pipeline(task, "cpu", args.out, progress=not args.quiet, checkpoint=checkpoint, sizing=sections["run"])


def _add_run(sub) -> None:
    sp = add_command(
        sub, "run", cmd_run, "the whole pipeline: generate, pretrain, zero-shot eval, adaptation rounds, report"
    )
    sp.add_argument("task")
    sp.add_argument(
        "--preset",
        default="cpu",
        help="run preset: cpu (sized for 2 cores) or paper (the paper's data "
        "volume, 16 workers); the model, training, finetune and planner presets follow it",
    )
    sp.add_argument("--out", required=True)
    sp.add_argument("--no-video", action="store_true", help="no rollout videos in the report")
    sp.add_argument("--plan-device", default="cpu", help=PLAN_DEVICE_HELP)
    sp.add_argument(
        "--train-expert",
        action="store_true",
        help="first (re)build the task's privileged expert with its own trainer (quadruped tasks only)",
    )
    sp.add_argument("--expert-budget", type=int, help="expert training budget (quadruped: PPO iterations in all)")
    sp.add_argument("--checkpoint", help="start from this pretrained world model (skips pretraining)")
    _add_run_sizing(sp)


def _add_run_sizing(sp) -> None:
    """run's flags that are aliases of `--set run.FIELD=VALUE`."""
    add_alias(
        sp,
        "--workers",
        "run.workers={}",
        type=int,
        help="processes generating the simulation data (default: the preset's)",
    )
    add_alias(sp, "--mppi", "run.mppi={}", help="MPPI preset (default: the model preset's)")
    add_set(
        sp, "run, and mppi (the planner's fields, kept in run.mppi_set)", "mppi.init_std=0.1 --set run.episodes=200"
    )
    add_alias(
        sp,
        "--finetune-steps",
        "run.finetune_steps={}",
        type=int,
        help="steps of each dynamics finetune (default: the preset's)",
    )
    add_alias(
        sp,
        "--rounds",
        "run.rounds={}",
        type=int,
        help="adaptation rounds after the zero-shot one (default: the preset's; a rerun with more continues the run)",
    )
    sp.add_argument("--grid", action="append", help="evaluate and adapt only this grid (repeatable)")
    add_alias(
        sp,
        "--select-checkpoints",
        "run.select_checkpoints={}",
        type=int,
        metavar="N",
        help="keep every "
        "pretraining checkpoint and deploy the best of the last N by the BC head's sim success (default: "
        "the last)",
    )
    add_alias(
        sp,
        "--refine-rounds",
        "run.refine_rounds={}",
        type=int,
        metavar="N",
        help="planner rounds in sim after pretraining (`simdist refine`; default: the preset's)",
    )


def _add_demo(sub) -> None:
    sp = add_command(
        sub,
        "demo",
        cmd_demo,
        "the main job sized for 2 CPU cores: the pendulum with every stage, pretraining included (about 2 min), "
        "or --task peg-insertion from the shipped world model (about 10 min; where it stands: "
        "docs/tasks/peg-insertion.md)",
    )
    sp.add_argument("--out", default="runs/demo")
    sp.add_argument("--task", default="pendulum", choices=("pendulum", "peg-insertion"))
    add_set(sp, "run", "run.sim_eval_trials=20")


def add_parsers(sub) -> None:
    _add_run(sub)
    _add_demo(sub)
