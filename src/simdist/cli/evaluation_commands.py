"""`simdist evaluate | select | diagnose`: a model's agents in a task domain."""

from __future__ import annotations

import json
import os
from pathlib import Path

import torch

from simdist.adaptation.rounds import physics_setting
from simdist.baselines.checkpoints import baseline_method, load_baseline_agent
from simdist.cli.parser import PLAN_DEVICE_HELP, add_alias, add_command, add_set
from simdist.cli.run_config import configure
from simdist.data.episodes import atomic_write_text, load_episodes
from simdist.data.records import run_inputs
from simdist.eval.diagnose import DiagnoseConfig, diagnose, plot_diagnosis
from simdist.eval.selection import copy_selected, refuse_full_folder, select_checkpoint
from simdist.planning.agent import MPPIAgent, PolicyAgent
from simdist.planning.settings import task_planner
from simdist.rollout import evaluate_grids
from simdist.tasks import get_task
from simdist.training.checkpoint import check_model_fits_task, load_model
from simdist.training.train import plan_device


def _planner(args, task) -> dict:
    """The command's `mppi` section: the preset (`--mppi`, default cpu), the task's planner_overrides, --set."""
    return configure(args, {"mppi": lambda name: task_planner(task, name or "cpu")})


def _baseline_agent(args):
    """A baseline's checkpoint is its own policy: it has no world model to plan with."""
    if args.agent == "mppi":
        raise ValueError(f"{args.checkpoint} is a baseline's checkpoint: no world model to plan with (--agent policy)")
    if args.ensemble_decay is not None or args.plan_device != "cpu":
        raise ValueError(
            f"{args.checkpoint} is a baseline's checkpoint: --ensemble-decay and --plan-device apply to a world "
            "model's agents"
        )
    return load_baseline_agent(args.checkpoint)


def cmd_evaluate(args) -> dict:
    task = get_task(args.task)
    planner, mppi = None, _planner(args, task)["mppi"]  # checked before any work, whichever agent runs
    if baseline_method(args.checkpoint):
        agent = _baseline_agent(args)
    else:
        model = load_model(args.checkpoint, plan_device(args.plan_device))
        check_model_fits_task(model, task, args.checkpoint)
        if args.ensemble_decay is not None and args.agent != "policy":
            raise ValueError("--ensemble-decay ensembles the BC head's chunks: use it with --agent policy")
        planner = None if args.agent == "policy" else mppi
        agent = PolicyAgent(model, args.ensemble_decay) if planner is None else MPPIAgent(model, planner)
    target = result_file(args.out)  # refused now if unwritable, not after the trials
    grids = task.grids if args.grid == "all" else (args.grid,)
    out = evaluate_grids(
        task, lambda env: agent, args.domain, grids, args.trials, args.seed, args.physics, progress=not args.quiet
    )
    out.update(checkpoint=str(args.checkpoint), inputs=run_inputs(args.physics, planner))
    write_result(target, out)
    return out


def result_file(out: str | None) -> Path | None:
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


def write_result(target: Path | None, result: dict) -> None:
    """The result as --json prints it, thread count included."""
    if target is None:
        return
    result = {**result, "threads": torch.get_num_threads()}
    if target.exists() and not target.is_file():  # a pipe or /dev/stdout: written to, never replaced
        target.write_text(json.dumps(result, indent=2) + "\n")
    else:
        atomic_write_text(target, json.dumps(result, indent=2))


def cmd_select(args) -> dict:
    task = get_task(args.task)
    target = result_file(args.out)  # refused before any trial
    if args.copy_to:
        refuse_full_folder(args.copy_to)  # before any trial
    mppi = _planner(args, task)["mppi"]  # a bad preset fails before any trial, whichever agent runs
    planner = mppi if args.agent == "mppi" else None
    make_agent = PolicyAgent if planner is None else (lambda model: MPPIAgent(model, planner))
    grids = task.grids if args.grid == "all" else (args.grid,)
    out = select_checkpoint(
        task,
        args.checkpoints,
        make_agent,
        args.domain,
        grids,
        args.trials,
        args.seed,
        progress=not args.quiet,
        physics=args.physics,
    )
    out.update(agent=args.agent, physics=physics_setting(args.physics), inputs=run_inputs(args.physics, planner))
    if args.copy_to:
        out["copied_to"] = str(copy_selected(out, args.copy_to))
    write_result(target, out)
    return out


def cmd_diagnose(args) -> dict:
    task = get_task(args.task)
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
    sections = _planner(args, task)
    data = load_episodes(args.data)[1] if args.data else None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    finished = out / "agents.jsonl"  # each agent's result as it finishes: an interrupted diagnosis keeps them
    finished.unlink(missing_ok=True)

    def record(name: str, agent_result: dict) -> None:
        with finished.open("a") as f:
            f.write(json.dumps({"agent": name, **agent_result}) + "\n")

    result = diagnose(
        task, model, sections["mppi"], cfg, physics=args.physics, data=data, progress=not args.quiet, on_agent=record
    )
    result.update(checkpoint=str(args.checkpoint), inputs=run_inputs(args.physics, sections["mppi"]))
    atomic_write_text(out / "diagnosis.json", json.dumps(result, indent=2))
    plot_diagnosis(result, out / "diagnosis.png")
    return result


def _add_evaluate(sub) -> None:
    sp = add_command(sub, "evaluate", cmd_evaluate, "evaluate a world-model agent in a task domain")
    sp.add_argument("task")
    sp.add_argument("--checkpoint", required=True)
    sp.add_argument("--domain", default="sim", choices=("sim", "real"))
    sp.add_argument("--grid", default="all")
    sp.add_argument("--trials", type=int, default=20)
    sp.add_argument(
        "--agent",
        choices=("mppi", "policy"),
        help="MPPI (default) or the BC head alone; a baseline's "
        "checkpoint (`simdist compare` writes them) is always its own policy",
    )
    sp.add_argument("--plan-device", default="cpu", help=PLAN_DEVICE_HELP)
    sp.add_argument(
        "--ensemble-decay",
        type=float,
        metavar="M",
        help="--agent policy: execute the temporal "
        "ensemble of the last T chunks, chunk k steps old weighted exp(-M k) (ACT; 0: a plain mean)",
    )
    add_alias(sp, "--mppi", "mppi={}", help="MPPI preset (default: cpu, then the task's planner_overrides)")
    add_alias(sp, "--prior-weight", "mppi.prior_weight={}", type=float, help="the MPPI prior_weight (BC-chunk penalty)")
    add_set(sp, "mppi", "mppi.value_weight=0", config=False)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument(
        "--physics",
        help='JSON/YAML physics override file; {"with_sim": ["arm"]} puts part of the real '
        "gap back to sim (simdist.tasks.gaps)",
    )
    sp.add_argument(
        "--out",
        metavar="FILE",
        help="also write the result here (default: stdout only; never into the checkpoint folder)",
    )


def _add_select(sub) -> None:
    sp = add_command(
        sub,
        "select",
        cmd_select,
        "evaluate a run's kept checkpoints on the same trials and name the "
        "best (closed-loop success can swing between checkpoints whose losses barely differ)",
    )
    sp.add_argument("task")
    sp.add_argument("checkpoints", nargs="+", help="runs (their step_NNNNNN checkpoints) or checkpoints")
    sp.add_argument(
        "--domain", default="sim", choices=("sim", "real"), help="sim (default); in real every trial is robot time"
    )
    sp.add_argument("--grid", default="all")
    sp.add_argument("--trials", type=int, default=20)
    sp.add_argument(
        "--agent", choices=("mppi", "policy"), default="policy", help="the BC head alone (default, fast) or the planner"
    )
    add_alias(sp, "--mppi", "mppi={}", help="MPPI preset (--agent mppi; default cpu)")
    add_set(sp, "mppi", "mppi.samples=64 (--agent mppi)", config=False)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--physics", help="JSON/YAML physics override file, e.g. sim with the robot's sensor noise")
    sp.add_argument("--out", metavar="FILE", help="also write the result here")
    sp.add_argument(
        "--copy-to", metavar="DIR", help="copy the best checkpoint to this new folder, its config recording the choice"
    )


def _add_diagnose(sub) -> None:
    sp = add_command(
        sub,
        "diagnose",
        cmd_diagnose,
        "which part of the planner loses (dynamics, reward, value, "
        "search): the head, MPPI, MPPI with the simulator as dynamics and MPPI with the true return on "
        "the same trials",
    )
    sp.add_argument("task")
    sp.add_argument("--checkpoint", required=True)
    sp.add_argument("--domain", default="sim", choices=("sim", "real"))
    sp.add_argument("--grid", help="initial-condition grid (default: the task's first)")
    sp.add_argument("--trials", type=int, default=40, help="trials per agent (default 40)")
    sp.add_argument("--seed", type=int, default=1, help="initial conditions and episode seeds (default 1)")
    sp.add_argument(
        "--probe-episodes", type=int, default=5, help="MPPI episodes whose plans are probed open loop (default 5)"
    )
    sp.add_argument("--probes-per-episode", type=int, default=3, help="probed control steps per episode (default 3)")
    sp.add_argument("--data", help="the model's simulation dataset: the value head's error on data states too")
    add_alias(sp, "--mppi", "mppi={}", help="MPPI preset (default cpu), then the task's planner_overrides")
    add_set(sp, "mppi", "mppi.samples=64")
    sp.add_argument("--physics", help="JSON/YAML physics override file")
    sp.add_argument("--out", required=True, help="folder for diagnosis.json, diagnosis.png and run_config.yaml")


def add_parsers(sub) -> None:
    _add_evaluate(sub)
    _add_select(sub)
    _add_diagnose(sub)
