"""What each `simdist` command does: one function per command, each a thin call into the library (main.py builds
the parser and prints the result)."""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path

from simdist.adaptation.adapt import AdaptConfig, adapt
from simdist.adaptation.corrections import CORRECTIONS_POLICY_ANCHOR, CorrectionConfig
from simdist.baselines.checkpoints import baseline_method, load_baseline_agent
from simdist.config import (
    FINETUNE_PRESETS,
    MODEL_PRESETS,
    TRAIN_PRESETS,
    FinetuneConfig,
    LossConfig,
    ModelConfig,
    TrainConfig,
    finetune_preset,
    model_preset,
    replace,
    train_preset,
    with_bc_head,
    with_steps,
)
from simdist.data.episodes import atomic_write_text, episode_files, load_episodes, merge_datasets
from simdist.data.generate import expert_only, generate, generation_preset
from simdist.data.records import run_inputs
from simdist.eval.diagnose import DiagnoseConfig, diagnose, plot_diagnosis
from simdist.eval.selection import select_checkpoint
from simdist.experiments import bench
from simdist.experiments.ablations import ABLATIONS, AblationSettings, run_ablations
from simdist.experiments.pipeline import DEMO, DEMO_CHECKPOINT, DEMO_TASK, PIPELINE_PRESETS, run_pipeline
from simdist.overrides import parse_overrides, split_sets, with_sets
from simdist.planning.agent import MPPIAgent, PolicyAgent
from simdist.planning.refine import RefineConfig, refine
from simdist.planning.settings import MPPI_PRESETS, MPPIConfig, task_planner
from simdist.rollout import PrivilegedAgent, evaluate_grids
from simdist.tasks import get_task, task_names
from simdist.tasks.base import default_grid
from simdist.tasks.registry import check_task
from simdist.training.checkpoint import check_model_fits_task, load_model, read_model_config, shipped_checkpoint
from simdist.training.train import finetune, plan_device, pretrain

# The config sections each command's `--set SECTION.FIELD=VALUE` may address.
PLANNER_SETS = {"mppi": MPPIConfig}
PRETRAIN_SETS = {"model": ModelConfig, "train": TrainConfig, "loss": LossConfig}
FINETUNE_SETS = {"finetune": FinetuneConfig, "loss": LossConfig, "model": ModelConfig}
ADAPT_SETS = {"mppi": MPPIConfig, "finetune": FinetuneConfig, "loss": LossConfig}
ABLATE_SETS = {"mppi": MPPIConfig, "model": ModelConfig, "train": TrainConfig, "finetune": FinetuneConfig}


def _task(name: str):
    return get_task(name)


def cmd_tasks(args) -> dict:
    """Every registered task, each built (with its sim environment, reset once): the ones that fail with why."""
    names = task_names()
    broken = {name: reason for name in names if (reason := check_task(name)) is not None}
    if args.json:
        return {"tasks": names, "broken": broken}
    return {name: f"BROKEN ({broken[name]})" if name in broken else "ok" for name in names}


# What `simdist presets` shows of each preset without --json (which shows every field).
PRESET_KEYS = {
    "model": (
        "latent_dim",
        "history",
        "horizon",
        "ffn_dim",
        "dynamics",
        "policy",
        "policy_sees_actions",
        "policy_sees_history",
    ),
    "train": ("steps", "batch_size", "lr", "lr_end", "warmup_steps", "decay_steps", "amp", "compile", "cpu_bf16"),
    "finetune": ("steps", "batch_size", "lr", "warmup_steps", "trainable", "sim_replay_fraction"),
    "mppi": (
        "samples",
        "policy_samples",
        "iterations",
        "elites",
        "temperature",
        "init_std",
        "policy_noise_std",
        "prior_weight",
        "compile",
        "cpu_bf16",
    ),
}


def cmd_presets(args) -> dict:
    tables = {"model": MODEL_PRESETS, "train": TRAIN_PRESETS, "finetune": FINETUNE_PRESETS, "mppi": MPPI_PRESETS}
    out: dict[str, dict] = {}
    for section, table in tables.items():
        out[section] = {name: asdict(make()) for name, make in table.items()}
        if not args.json:
            out[section] = {name: {k: _compact(v[k]) for k in PRESET_KEYS[section]} for name, v in out[section].items()}
    return out


def _compact(value):
    """An attention stack as LAYERSxHEADS, a tuple as a comma list; anything else as it is."""
    if isinstance(value, dict) and set(value) == {"layers", "heads"}:
        return f"{value['layers']}x{value['heads']}"
    return ",".join(map(str, value)) if isinstance(value, (tuple, list)) else value


def cmd_generate(args) -> dict:
    task = _task(args.task)
    cfg = generation_preset(getattr(task, "generation_preset", "manipulation"))
    cfg = expert_only(cfg) if args.expert_only else cfg
    stats = generate(
        task,
        args.out,
        args.episodes,
        args.workers,
        args.seed,
        cfg,
        physics=args.physics,
        progress=not args.quiet,
        ray=args.ray,
    )
    return {**stats, "inputs": run_inputs(args.physics)}


def cmd_merge(args) -> dict:
    root = merge_datasets(args.out, args.sources, copy=args.copy)
    return {"out": str(root), "sources": args.sources, "files": len(episode_files(root))}


def cmd_pretrain(args) -> dict:
    sets = split_sets(args.set, PRETRAIN_SETS)
    cfg = train_preset(args.preset)
    cfg = replace(cfg, loss=with_sets(cfg.loss, sets["loss"], "loss"))
    if args.steps:  # a shorter run keeps the preset's schedule shape: ≤10 % warmup, decay over the run
        cfg = replace(
            with_steps(cfg, args.steps),
            decay_steps=args.steps,
            checkpoint_every=min(cfg.checkpoint_every, max(1, args.steps // 4)),
        )
    cfg = with_sets(cfg, sets["train"], "train")
    # A warm start keeps the checkpoint's architecture; --set model.* may only add to it (e.g. reconstruction).
    base = read_model_config(args.init_from) if args.init_from else model_preset(args.preset)
    model_cfg = with_sets(base, sets["model"], "model")
    result = pretrain(args.data, args.out, model_cfg, cfg, progress=not args.quiet, init_from=args.init_from)
    return {
        "checkpoint": str(result.out_dir),
        "steps": result.steps,
        "train_loss": result.train_loss,
        "val_loss": result.val_loss,
    }


def cmd_finetune(args) -> dict:
    sets = split_sets(args.set, FINETUNE_SETS)
    cfg = finetune_preset(args.preset)
    if args.steps:
        cfg = with_steps(cfg, args.steps)
    if args.trainable:
        cfg = replace(cfg, trainable=tuple(args.trainable.split(",")))
    cfg = replace(cfg, loss=with_sets(cfg.loss, sets["loss"], "loss"))
    cfg = cfg if args.sim_replay is None else replace(cfg, sim_replay_fraction=args.sim_replay)
    cfg = with_sets(cfg, sets["finetune"], "finetune")
    result = finetune(
        args.checkpoint,
        args.data,
        args.out,
        cfg,
        progress=not args.quiet,
        sim_data=args.sim_data,
        model_overrides=parse_overrides(ModelConfig, sets["model"], "--set model."),
    )
    return {
        "checkpoint": str(result.out_dir),
        "steps": result.steps,
        "trainable": list(cfg.trainable),
        "train_loss": result.train_loss,
        "val_loss": result.val_loss,
    }


def cmd_evaluate(args) -> dict:
    task = _task(args.task)
    if baseline_method(args.checkpoint):  # a baseline is its own policy: it has no world model to plan with
        if args.agent == "mppi":
            raise ValueError(
                f"{args.checkpoint} is a baseline's checkpoint: no world model to plan with (--agent policy)"
            )
        if args.ensemble_decay is not None or args.plan_device != "cpu":
            raise ValueError(
                f"{args.checkpoint} is a baseline's checkpoint: --ensemble-decay and --plan-device "
                "apply to a world model's agents"
            )
        agent, planner = load_baseline_agent(args.checkpoint), None
    else:
        model = load_model(args.checkpoint, plan_device(args.plan_device))
        check_model_fits_task(model, task, args.checkpoint)
        if args.ensemble_decay is not None and args.agent != "policy":
            raise ValueError("--ensemble-decay ensembles the BC head's chunks: use it with --agent policy")
        planner = (
            None
            if args.agent == "policy"
            else task_planner(task, args.mppi, split_sets(args.set, PLANNER_SETS)["mppi"], args.prior_weight)
        )
        agent = PolicyAgent(model, args.ensemble_decay) if planner is None else MPPIAgent(model, planner)
    target = _result_file(args.out)  # refused now if unwritable, not after the trials
    out = evaluate_grids(
        task,
        lambda env: agent,
        args.domain,
        task.grids if args.grid == "all" else (args.grid,),
        args.trials,
        args.seed,
        args.physics,
        progress=not args.quiet,
    )
    out.update(checkpoint=str(args.checkpoint), inputs=run_inputs(args.physics, planner))
    _write_result(target, out)
    return out


def _result_file(out: str | None) -> Path | None:
    """The file `--out` names for a command's result (None: stdout only), checked before any work."""
    if out is None:
        return None
    target = Path(out)
    if target.is_dir():
        raise ValueError(f"--out {target} is a folder; name the file to write")
    target.parent.mkdir(parents=True, exist_ok=True)
    if not os.access(target.parent, os.W_OK):
        raise ValueError(f"cannot write the result to {target} (read-only folder); pass --out FILE elsewhere")
    return target


def _write_result(target: Path | None, result: dict) -> None:
    if target is None:
        return
    if target.exists() and not target.is_file():  # a pipe or /dev/stdout: written to, never replaced
        target.write_text(json.dumps(result, indent=2) + "\n")
    else:
        atomic_write_text(target, json.dumps(result, indent=2))


def cmd_select(args) -> dict:
    task = _task(args.task)
    target = _result_file(args.out)  # refused before any trial
    planner = (
        task_planner(task, args.mppi, split_sets(args.set, PLANNER_SETS)["mppi"]) if args.agent == "mppi" else None
    )  # a bad preset fails before any trial
    make_agent = PolicyAgent if planner is None else (lambda model: MPPIAgent(model, planner))
    out = select_checkpoint(
        task,
        args.checkpoints,
        make_agent,
        args.domain,
        task.grids if args.grid == "all" else (args.grid,),
        args.trials,
        args.seed,
        progress=not args.quiet,
        physics=args.physics,
    )
    out.update(agent=args.agent, physics=args.physics, inputs=run_inputs(args.physics, planner))
    _write_result(target, out)
    return out


def cmd_diagnose(args) -> dict:
    task = _task(args.task)
    cfg = DiagnoseConfig(
        domain=args.domain,
        trials=args.trials,
        seed=args.seed,
        grid=args.grid,
        probe_episodes=args.probe_episodes,
        probes_per_episode=args.probes_per_episode,
    )
    model = load_model(args.checkpoint)
    check_model_fits_task(model, task, args.checkpoint)
    mppi = task_planner(task, args.mppi, split_sets(args.set, PLANNER_SETS)["mppi"])
    data = load_episodes(args.data)[1] if args.data else None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    result = diagnose(task, model, mppi, cfg, physics=args.physics, data=data, progress=not args.quiet)
    result.update(checkpoint=str(args.checkpoint), inputs=run_inputs(args.physics, mppi))
    atomic_write_text(out / "diagnosis.json", json.dumps(result, indent=2))
    plot_diagnosis(result, out / "diagnosis.png")
    return result


def cmd_expert_eval(args) -> dict:
    task = _task(args.task)
    out = evaluate_grids(
        task,
        lambda env: PrivilegedAgent(task.expert(), env, seed=args.seed),
        args.domain,
        task.grids if args.grid == "all" else (args.grid,),
        args.trials,
        args.seed,
        args.physics,
        progress=not args.quiet,
        source="expert",
    )
    return {**out, "inputs": run_inputs(args.physics)}


def cmd_adapt(args) -> dict:
    sets = split_sets(args.set, ADAPT_SETS)
    ft = finetune_preset(args.preset)
    if args.finetune_steps:
        ft = with_steps(ft, args.finetune_steps)
    task = _task(args.task)
    cfg = AdaptConfig(
        rounds=args.rounds,
        episodes_per_round=args.episodes_per_round,
        grid=args.grid or default_grid(task),
        seed=args.seed,
        initial_data=args.initial_data,
    )
    ft = ft if args.sim_replay is None else replace(ft, sim_replay_fraction=args.sim_replay)
    corrections = CorrectionConfig(args.corrected_episodes, args.takeover_rate, args.takeover_s)
    if corrections.episodes_per_round:  # clone the operator, and keep the head elsewhere (docs/real-robot.md §3)
        ft = replace(with_bc_head(ft), policy_anchor=CORRECTIONS_POLICY_ANCHOR)
    ft = with_sets(replace(ft, loss=with_sets(ft.loss, sets["loss"], "loss")), sets["finetune"], "finetune")
    mppi = task_planner(task, args.mppi or args.preset, sets["mppi"], args.prior_weight)
    return adapt(
        task,
        args.checkpoint,
        args.out,
        cfg,
        mppi,
        ft,
        physics=args.physics,
        progress=not args.quiet,
        sim_data=args.sim_data,
        corrections=corrections,
        planner_device=plan_device(args.plan_device),
    )


def cmd_demo(args) -> dict:
    if args.task == "pendulum":  # every stage, pretraining included, in about 80 s
        return run_pipeline("pendulum", "cpu", args.out, progress=not args.quiet)
    return run_pipeline(
        DEMO_TASK, "cpu", args.out, progress=not args.quiet, checkpoint=shipped_checkpoint(DEMO_CHECKPOINT), sizing=DEMO
    )


def cmd_refine(args) -> dict:
    task = _task(args.task)
    planner = task_planner(task, args.mppi, split_sets(args.set, PLANNER_SETS)["mppi"], args.prior_weight)
    given = {
        k: v
        for k, v in (
            ("rounds", args.rounds),
            ("episodes", args.episodes),
            ("steps", args.steps),
            ("train_preset", args.preset),
            ("seed", args.seed),
        )
        if v is not None
    }
    return refine(
        task, args.checkpoint, args.sim_data, args.out, RefineConfig(**given), planner, progress=not args.quiet
    )


def cmd_run(args) -> dict:
    device, sizing, mppi_set = plan_device(args.plan_device), None, split_sets(args.set, PLANNER_SETS)["mppi"]
    if (
        args.mppi
        or args.grid
        or mppi_set
        or args.finetune_steps
        or args.rounds
        or args.select_checkpoints
        or args.refine_rounds is not None
    ):
        base = PIPELINE_PRESETS.get(args.preset)
        if base is None:
            raise KeyError(f"unknown pipeline preset {args.preset!r}; valid presets: {sorted(PIPELINE_PRESETS)}")
        sizing = replace(
            base,
            mppi=args.mppi or base.mppi,
            grids=tuple(args.grid) if args.grid else base.grids,
            mppi_set=tuple(mppi_set or base.mppi_set),
            finetune_steps=args.finetune_steps or base.finetune_steps,
            rounds=args.rounds or base.rounds,
            select_checkpoints=args.select_checkpoints or base.select_checkpoints,
            refine_rounds=base.refine_rounds if args.refine_rounds is None else args.refine_rounds,
        )
    return run_pipeline(
        args.task,
        args.preset,
        args.out,
        progress=not args.quiet,
        video=not args.no_video,
        train_expert=args.train_expert,
        expert_budget=args.expert_budget,
        checkpoint=args.checkpoint,
        sizing=sizing,
        planner_device=device,
    )


def cmd_ablate(args) -> dict:
    sets = split_sets(args.set, ABLATE_SETS)
    train_cfg = train_preset(args.preset)
    if args.steps:
        train_cfg = replace(with_steps(train_cfg, args.steps), decay_steps=args.steps)
    train_cfg = with_sets(train_cfg, sets["train"], "train")
    ft = finetune_preset(args.preset)
    if args.finetune_steps:
        ft = with_steps(ft, args.finetune_steps)
    if args.sim_replay is not None:
        ft = replace(ft, sim_replay_fraction=args.sim_replay)
    ft = with_sets(ft, sets["finetune"], "finetune")
    names = list(ABLATIONS) if args.variants == "all" else [v.strip() for v in args.variants.split(",")]
    task = _task(args.task)
    settings = AblationSettings(
        trials=args.trials,
        seed=args.seed,
        expert_data=args.expert_data,
        checkpoint=args.checkpoint,
        rounds=args.rounds,
        episodes_per_round=args.episodes_per_round,
        seeds=args.seeds,
        grid=args.grid or default_grid(task),
    )
    return run_ablations(
        task,
        args.sim_data,
        args.out,
        names,
        with_sets(model_preset(args.preset), sets["model"], "model"),
        train_cfg,
        task_planner(task, args.mppi or args.preset, sets["mppi"], args.prior_weight),
        settings,
        ft,
        progress=not args.quiet,
    )


def cmd_bench(args) -> dict:
    if args.what == "plan":
        return bench.bench_plan(
            args.preset,
            args.mppi or args.preset,
            repeats=args.repeats,
            device=args.device,
            overrides=parse_overrides(MPPIConfig, split_sets(args.set, PLANNER_SETS)["mppi"], "--set mppi."),
        )
    return bench.bench_train(
        args.preset,
        repeats=args.repeats,
        device=args.device,
        amp=args.amp,
        compile_mode=args.compile,
        batch_size=args.batch,
    )
