"""`simdist pretrain | finetune | refine`: the world model trained on simulation data (Eq. 2), finetuned on real
episodes (Eq. 3), or trained on in `sim` over its own planner's episodes."""

from __future__ import annotations

from dataclasses import asdict

from simdist.cli.parser import add_alias, add_command, add_set
from simdist.cli.run_config import configure
from simdist.config import FINETUNE_PRESETS, TRAIN_PRESETS, finetune_preset, model_preset, train_preset
from simdist.data.episodes import read_info
from simdist.planning.refine import RefineConfig, refine
from simdist.planning.settings import task_planner
from simdist.tasks import get_task
from simdist.training.checkpoint import read_model_config
from simdist.training.finetune import finetune
from simdist.training.train import pretrain


def _steps(table) -> str:
    """`cpu` 3000, `paper-manipulation` 200000, …: the steps a command runs when they are left out."""
    return ", ".join(f"{name} {make().steps}" for name, make in table.items())


def cmd_pretrain(args) -> dict:
    # A warm start keeps the checkpoint's architecture; --set model.* may only add to it (e.g. reconstruction).
    model_base = (lambda _: read_model_config(args.init_from)) if args.init_from else model_preset
    makers = {"model": model_base, "train": train_preset}
    legged = bool(read_info(args.data).command_dim)
    sections = configure(args, makers, args.preset, aliases={"loss": "train.loss"}, legged=legged)
    result = pretrain(
        args.data, args.out, sections["model"], sections["train"], progress=not args.quiet, init_from=args.init_from
    )
    return {
        "checkpoint": str(result.out_dir),
        "steps": result.steps,
        "train_loss": result.train_loss,
        "val_loss": result.val_loss,
    }


def cmd_finetune(args) -> dict:
    makers = {"finetune": finetune_preset, "model": lambda _: read_model_config(args.checkpoint)}
    legged = bool(read_info(args.data).command_dim)
    sections = configure(args, makers, args.preset, aliases={"loss": "finetune.loss"}, legged=legged)
    cfg, pretrained = sections["finetune"], asdict(read_model_config(args.checkpoint))
    changed = {k: v for k, v in asdict(sections["model"]).items() if v != pretrained[k]}
    result = finetune(
        args.checkpoint,
        args.data,
        args.out,
        cfg,
        progress=not args.quiet,
        sim_data=args.sim_data,
        model_overrides={k: getattr(sections["model"], k) for k in changed},
    )
    return {
        "checkpoint": str(result.out_dir),
        "steps": result.steps,
        "trainable": list(cfg.trainable),
        "train_loss": result.train_loss,
        "val_loss": result.val_loss,
    }


def cmd_refine(args) -> dict:
    task = get_task(args.task)
    makers = {"refine": lambda _: RefineConfig(), "mppi": lambda name: task_planner(task, name or "cpu")}
    sections = configure(args, makers, legged=bool(task.spec.command_dim))
    return refine(
        task, args.checkpoint, args.sim_data, args.out, sections["refine"], sections["mppi"], progress=not args.quiet
    )


def _add_pretrain(sub) -> None:
    sp = add_command(
        sub,
        "pretrain",
        cmd_pretrain,
        "pretrain a world model on a simulation dataset (Eq. 2); resumes if OUT has a run",
    )
    sp.add_argument("--data", required=True)
    sp.add_argument("--out", required=True)
    sp.add_argument(
        "--preset",
        default="cpu",
        help="model and train preset: cpu, paper (the task's paper-*), or " + " | ".join(TRAIN_PRESETS),
    )
    add_alias(
        sp,
        "--steps",
        "train.steps={}",
        type=int,
        help=f"training steps, the schedule shortened to them (default: the preset's: {_steps(TRAIN_PRESETS)})",
    )
    add_set(
        sp,
        "model, train; loss = train.loss",
        "model.policy_sees_actions=false --set train.loss.bc=16 --set train.lr=2e-4",
    )
    sp.add_argument(
        "--init-from",
        metavar="CHECKPOINT",
        help="start from this checkpoint's weights and architecture (--set model.* may add modules)",
    )


def _add_finetune(sub) -> None:
    sp = add_command(sub, "finetune", cmd_finetune, "finetune the dynamics on real (logged) episodes (Eq. 3)")
    sp.add_argument("--checkpoint", required=True)
    sp.add_argument("--data", required=True, help="a dataset directory of real episodes")
    sp.add_argument("--out", required=True)
    sp.add_argument(
        "--preset",
        default="cpu",
        help="finetune preset: cpu, paper (the task's paper-*), or " + " | ".join(FINETUNE_PRESETS),
    )
    add_alias(
        sp,
        "--steps",
        "finetune.steps={}",
        type=int,
        help=f"finetuning steps (default: the preset's: {_steps(FINETUNE_PRESETS)})",
    )
    add_alias(sp, "--trainable", "finetune.trainable={}", help="comma-separated parameter groups (default: dynamics)")
    sp.add_argument("--sim-data", help="simulation dataset, for replay during finetuning")
    add_alias(
        sp,
        "--sim-replay",
        "finetune.sim_replay_fraction={}",
        type=float,
        help="share of each batch from --sim-data (preset default)",
    )
    add_set(
        sp,
        "finetune, model; loss = finetune.loss",
        "finetune.lr=2e-5 --set finetune.loss.bc=1 (default: "
        "latent only) --set model.policy_sees_history=true (model: fields that leave the weights' shapes; with "
        "finetune.fresh_policy=true also the new BC head's width)",
    )


def _add_refine(sub) -> None:
    sp = add_command(
        sub,
        "refine",
        cmd_refine,
        "planner rounds in sim: run the model's planner, label its episodes "
        "as Alg. 2 does (reward, expert critic; no BC targets) and train on, over the simulation data "
        "and them; writes OUT/round_K/model and OUT/round_K/data; resumable",
    )
    sp.add_argument("task")
    sp.add_argument("--checkpoint", required=True, help="a pretrained world model")
    sp.add_argument("--sim-data", required=True, help="the dataset it was pretrained on")
    sp.add_argument("--out", required=True)
    add_alias(
        sp, "--rounds", "refine.rounds={}", type=int, help=f"collect-and-train rounds (default {RefineConfig.rounds})"
    )
    add_alias(
        sp,
        "--episodes",
        "refine.episodes={}",
        type=int,
        help=f"planner episodes per round (default {RefineConfig.episodes})",
    )
    add_alias(
        sp, "--steps", "refine.steps={}", type=int, help=f"training steps per round (default {RefineConfig.steps})"
    )
    add_alias(
        sp,
        "--branches",
        "refine.branches={}",
        type=int,
        help="candidate sequences of the planner played in the simulator and trained on at each branching step "
        f"(default {RefineConfig.branches}: the executed actions only)",
    )
    add_alias(
        sp,
        "--branch-every",
        "refine.branch_every={}",
        type=int,
        help=f"control steps between branching steps (default {RefineConfig.branch_every})",
    )
    add_alias(
        sp,
        "--preset",
        "refine.train_preset={}",
        help=f"training preset whose schedule is shortened to "
        f"--steps (default {RefineConfig.train_preset}): " + " | ".join(TRAIN_PRESETS),
    )
    add_alias(
        sp,
        "--mppi",
        "mppi={}",
        help="MPPI preset of the planner that drives (default cpu), then the task's planner_overrides",
    )
    add_alias(sp, "--prior-weight", "mppi.prior_weight={}", type=float, help="the MPPI preset's prior_weight")
    add_set(sp, "refine, mppi", "mppi.uncertainty_weight=0")
    add_alias(
        sp, "--seed", "refine.seed={}", type=int, help="episode seeds derive from (seed, round, episode) (default 0)"
    )


def add_parsers(sub) -> None:
    _add_pretrain(sub)
    _add_finetune(sub)
    _add_refine(sub)
