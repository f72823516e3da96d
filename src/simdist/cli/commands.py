"""What each `simdist` command does: one function per command, each a thin call into the library (main.py builds
the parser and prints the result)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from simdist.adaptation.adapt import AdaptConfig, adapt
from simdist.adaptation.corrections import CORRECTIONS_POLICY_ANCHOR
from simdist.baselines.checkpoints import baseline_method, load_baseline_agent
from simdist.config import (CorrectionConfig, FinetuneConfig, LossConfig, ModelConfig, TrainConfig, finetune_preset,
                            from_dict, model_preset, parse_overrides, replace, train_preset, with_bc_head, with_steps)
from simdist.data.episodes import atomic_write_text, episode_files, merge_datasets
from simdist.data.generate import expert_only, generate, generation_preset
from simdist.eval.rollout import PrivilegedAgent, evaluate_grids
from simdist.eval.selection import select_checkpoint
from simdist.experiments import bench
from simdist.experiments.ablations import ABLATIONS, run_ablations
from simdist.experiments.pipeline import DEMO, DEMO_CHECKPOINT, DEMO_TASK, PIPELINE_PRESETS, run_pipeline
from simdist.planning.agent import MPPIAgent, PolicyAgent
from simdist.planning.settings import MPPIConfig, task_planner
from simdist.tasks import get_task, task_names
from simdist.tasks.base import default_grid
from simdist.training.checkpoint import check_model_fits_task, load_model, read_config, shipped_checkpoint
from simdist.training.train import finetune, plan_device, pretrain


def _task(name: str):
    return get_task(name)


def cmd_tasks(args) -> dict:
    return {"tasks": task_names()}


def cmd_generate(args) -> dict:
    task = _task(args.task)
    cfg = generation_preset(getattr(task, "generation_preset", "manipulation"))
    cfg = expert_only(cfg) if args.expert_only else cfg
    return generate(task, args.out, args.episodes, args.workers, args.seed, cfg, physics=args.physics,
                    progress=not args.quiet)


def cmd_merge(args) -> dict:
    root = merge_datasets(args.out, args.sources, copy=args.copy)
    return {"out": str(root), "sources": args.sources, "files": len(episode_files(root))}


def cmd_pretrain(args) -> dict:
    cfg = train_preset(args.preset)
    cfg = replace(cfg, loss=replace(cfg.loss, **parse_overrides(LossConfig, args.loss_set or [])))
    if args.steps:  # a shorter run keeps the preset's schedule shape: ≤10 % warmup, decay over the run
        cfg = replace(with_steps(cfg, args.steps), decay_steps=args.steps,
                      checkpoint_every=min(cfg.checkpoint_every, max(1, args.steps // 4)))
    cfg = replace(cfg, **parse_overrides(TrainConfig, args.train_set or []))
    # A warm start keeps the checkpoint's architecture; --model-set may only add to it (e.g. reconstruction).
    base = from_dict(ModelConfig, read_config(args.init_from)["model"]) if args.init_from else model_preset(args.preset)
    model_cfg = replace(base, **parse_overrides(ModelConfig, args.model_set or []))
    result = pretrain(args.data, args.out, model_cfg, cfg, progress=not args.quiet, init_from=args.init_from)
    return {"checkpoint": str(result.out_dir), "steps": result.steps, "train_loss": result.train_loss,
            "val_loss": result.val_loss}


def cmd_finetune(args) -> dict:
    cfg = finetune_preset(args.preset)
    if args.steps:
        cfg = with_steps(cfg, args.steps)
    if args.trainable:
        cfg = replace(cfg, trainable=tuple(args.trainable.split(",")))
    cfg = replace(cfg, loss=replace(cfg.loss, **parse_overrides(LossConfig, args.loss_set or [])))
    cfg = cfg if args.sim_replay is None else replace(cfg, sim_replay_fraction=args.sim_replay)
    cfg = replace(cfg, **parse_overrides(FinetuneConfig, args.set or []))
    result = finetune(args.checkpoint, args.data, args.out, cfg, progress=not args.quiet, sim_data=args.sim_data,
                      model_overrides=parse_overrides(ModelConfig, args.model_set or []))
    return {"checkpoint": str(result.out_dir), "steps": result.steps, "trainable": list(cfg.trainable),
            "train_loss": result.train_loss, "val_loss": result.val_loss}


def cmd_evaluate(args) -> dict:
    task = _task(args.task)
    if baseline_method(args.checkpoint):  # a baseline is its own policy: it has no world model to plan with
        if args.agent == "mppi":
            raise ValueError(f"{args.checkpoint} is a baseline's checkpoint: no world model to plan with "
                             "(--agent policy)")
        if args.ensemble_decay is not None or args.plan_device != "cpu":
            raise ValueError(f"{args.checkpoint} is a baseline's checkpoint: --ensemble-decay and --plan-device "
                             "apply to a world model's agents")
        agent = load_baseline_agent(args.checkpoint)
    else:
        model = load_model(args.checkpoint, plan_device(args.plan_device))
        check_model_fits_task(model, task, args.checkpoint)
        if args.ensemble_decay is not None and args.agent != "policy":
            raise ValueError("--ensemble-decay ensembles the BC head's chunks: use it with --agent policy")
        agent = PolicyAgent(model, args.ensemble_decay) if args.agent == "policy" else \
            MPPIAgent(model, task_planner(task, args.mppi, args.mppi_set or (), args.prior_weight))
    target = _evaluation_file(args.checkpoint, args.out)  # refused now if unwritable, not after the trials
    out = evaluate_grids(task, lambda env: agent, args.domain, task.grids if args.grid == "all" else (args.grid,),
                         args.trials, args.seed, args.physics, progress=not args.quiet)
    out["checkpoint"] = str(args.checkpoint)
    if target.exists() and not target.is_file():  # a pipe or /dev/stdout: written to, never replaced
        target.write_text(json.dumps(out, indent=2) + "\n")
    else:
        atomic_write_text(target, json.dumps(out, indent=2))
    return out


def _evaluation_file(checkpoint: str, out: str | None) -> Path:
    """Where `simdist evaluate` writes its result: --out, or CHECKPOINT/eval_info.json (replaced each time)."""
    target = Path(out) if out else Path(checkpoint, "eval_info.json")
    if target.is_dir():
        raise ValueError(f"--out {target} is a folder; name the file to write")
    if out:
        target.parent.mkdir(parents=True, exist_ok=True)
    if not target.parent.is_dir() or not os.access(target.parent, os.W_OK):
        raise ValueError(f"cannot write the evaluation to {target} (missing or read-only folder); "
                         "pass --out FILE to write it elsewhere")
    return target


def cmd_select(args) -> dict:
    task = _task(args.task)
    target = _evaluation_file(args.checkpoints[0], args.out) if args.out else None  # refused before any trial
    planner = task_planner(task, args.mppi) if args.agent == "mppi" else None  # a bad preset fails before any trial
    make_agent = PolicyAgent if planner is None else (lambda model: MPPIAgent(model, planner))
    out = select_checkpoint(task, args.checkpoints, make_agent, args.domain,
                            task.grids if args.grid == "all" else (args.grid,), args.trials, args.seed,
                            progress=not args.quiet, physics=args.physics)
    out.update(agent=args.agent, physics=args.physics)
    if target is not None:
        atomic_write_text(target, json.dumps(out, indent=2))
    return out


def cmd_expert_eval(args) -> dict:
    task = _task(args.task)
    return evaluate_grids(task, lambda env: PrivilegedAgent(task.expert(), env, seed=args.seed), args.domain,
                          task.grids if args.grid == "all" else (args.grid,), args.trials, args.seed, args.physics,
                          progress=not args.quiet, source="expert")


def cmd_adapt(args) -> dict:
    ft = finetune_preset(args.preset)
    if args.finetune_steps:
        ft = with_steps(ft, args.finetune_steps)
    task = _task(args.task)
    cfg = AdaptConfig(rounds=args.rounds, episodes_per_round=args.episodes_per_round,
                      grid=args.grid or default_grid(task), seed=args.seed, initial_data=args.initial_data)
    ft = ft if args.sim_replay is None else replace(ft, sim_replay_fraction=args.sim_replay)
    corrections = CorrectionConfig(args.corrected_episodes, args.takeover_rate, args.takeover_s)
    if corrections.episodes_per_round:  # clone the operator, and keep the head elsewhere (docs/real-robot.md §3)
        ft = replace(with_bc_head(ft), policy_anchor=CORRECTIONS_POLICY_ANCHOR)
    ft = replace(ft, **parse_overrides(FinetuneConfig, args.finetune_set or []))
    mppi = task_planner(task, args.mppi or args.preset, args.mppi_set or (), args.prior_weight)
    return adapt(task, args.checkpoint, args.out, cfg, mppi, ft, physics=args.physics,
                 progress=not args.quiet, sim_data=args.sim_data, corrections=corrections,
                 planner_device=plan_device(args.plan_device))


def cmd_demo(args) -> dict:
    if args.task == "pendulum":  # every stage, pretraining included, in about 80 s
        return run_pipeline("pendulum", "cpu", args.out, progress=not args.quiet)
    return run_pipeline(DEMO_TASK, "cpu", args.out, progress=not args.quiet,
                        checkpoint=shipped_checkpoint(DEMO_CHECKPOINT), sizing=DEMO)


def cmd_run(args) -> dict:
    device, sizing = plan_device(args.plan_device), None
    if args.mppi or args.grid or args.mppi_set or args.finetune_steps or args.rounds or args.select_checkpoints:
        base = PIPELINE_PRESETS.get(args.preset)
        if base is None:
            raise KeyError(f"unknown pipeline preset {args.preset!r}; valid presets: {sorted(PIPELINE_PRESETS)}")
        sizing = replace(base, mppi=args.mppi or base.mppi, grids=tuple(args.grid) if args.grid else base.grids,
                         mppi_set=tuple(args.mppi_set or base.mppi_set),
                         finetune_steps=args.finetune_steps or base.finetune_steps, rounds=args.rounds or base.rounds,
                         select_checkpoints=args.select_checkpoints or base.select_checkpoints)
    return run_pipeline(args.task, args.preset, args.out, progress=not args.quiet, video=not args.no_video,
                        train_expert=args.train_expert, expert_budget=args.expert_budget, checkpoint=args.checkpoint,
                        sizing=sizing, planner_device=device)


def cmd_ablate(args) -> dict:
    train_cfg = train_preset(args.preset)
    if args.steps:
        train_cfg = replace(with_steps(train_cfg, args.steps), decay_steps=args.steps)
    ft = finetune_preset(args.preset)
    if args.finetune_steps:
        ft = with_steps(ft, args.finetune_steps)
    if args.sim_replay is not None:
        ft = replace(ft, sim_replay_fraction=args.sim_replay)
    names = list(ABLATIONS) if args.variants == "all" else [v.strip() for v in args.variants.split(",")]
    task = _task(args.task)
    return run_ablations(task, args.sim_data, args.out, names, model_preset(args.preset), train_cfg,
                         task_planner(task, args.mppi or args.preset, args.mppi_set or (), args.prior_weight),
                         args.trials, args.seed,
                         progress=not args.quiet, checkpoint=args.checkpoint, finetune_cfg=ft, rounds=args.rounds,
                         episodes_per_round=args.episodes_per_round, seeds=args.seeds,
                         grid=args.grid or default_grid(task), expert_data=args.expert_data)


def cmd_bench(args) -> dict:
    if args.what == "plan":
        return bench.bench_plan(args.preset, args.mppi or args.preset, repeats=args.repeats, device=args.device,
                                overrides=parse_overrides(MPPIConfig, args.set or []))
    return bench.bench_train(args.preset, repeats=args.repeats, device=args.device, amp=args.amp,
                             compile_mode=args.compile, batch_size=args.batch)
