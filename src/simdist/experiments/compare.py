"""`simdist compare`: every method under the same real-data budget and evaluation protocol, several seeds, a
comparison table and a Fig. 4-style plot (docs/baselines.md). One method and seed is `run.run_baseline`."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np

from simdist.adaptation.rounds import round_progress
from simdist.baselines.bc import BCConfig
from simdist.baselines.diffusion_policy import DiffusionConfig
from simdist.baselines.iql import IQLConfig
from simdist.baselines.rlpd import SACConfig
from simdist.baselines.sgft import SGFTConfig
from simdist.data.records import run_inputs
from simdist.eval.report import write_comparison
from simdist.experiments.baseline_run import (
    DEMO_USERS,
    DIFFUSION_DEMOS,
    MANIPULATION_DEMOS,
    METHODS,
    START_POLICY_METHODS,
    WORLD_MODEL_METHODS,
    BaselineRunConfig,
    run_baseline,
    world_model_planner,
)
from simdist.experiments.memory import release_freed_memory
from simdist.overrides import split_sets
from simdist.planning.settings import MPPIConfig
from simdist.tasks import get_task
from simdist.tasks.base import default_grid


def _seeds(text: str) -> list[int]:
    """ "3" → seeds 0, 1, 2; "0,4,7" → those seeds; "2," → seed 2 alone."""
    try:
        seeds = [int(s) for s in text.split(",") if s.strip()] if "," in text else list(range(int(text)))
    except ValueError:
        raise ValueError(f"--seeds {text!r} is neither a count (3 → seeds 0, 1, 2) nor a list (0,4,7)") from None
    if not seeds or min(seeds) < 0:
        raise ValueError(
            f"--seeds {text!r} names no run: a count is at least 1 and seeds are >= 0 (for seed 0 alone write '0,')"
        )
    return seeds


def demos_for(method: str, asked: int | None) -> int | None:
    """`--demos N` reaches only the methods that learn from demonstrations; the others keep theirs (none)."""
    return asked if method in DEMO_USERS else None


def _run_then_release(*args, **kwargs) -> dict:
    """One method and seed, then its memory back to the OS before the next (simdist.experiments.memory)."""
    result = run_baseline(*args, **kwargs)
    release_freed_memory()
    return result


def compare_inputs(task, methods: list[str], shared: BaselineRunConfig) -> dict:
    """`simdist compare`'s `inputs`: every run's physics override, and the planner of SimDist and SimDist+BC where
    either is among `methods` (the baselines plan nothing)."""
    planned = any(m in WORLD_MODEL_METHODS for m in methods)
    return run_inputs(shared.physics, world_model_planner(task, shared) if planned else None)


def cmd_compare(args) -> dict:
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        raise KeyError(f"unknown baseline(s) {unknown}; valid methods: {list(METHODS)}")
    seeds = _seeds(args.seeds)  # before any work: a bad value must not cost a trained method
    task = get_task(args.task)
    grid = args.grid or default_grid(task)
    sets = split_sets(args.set, {"mppi": MPPIConfig, "baseline": None})
    shared = BaselineRunConfig(
        real_episode_budget=args.budget,
        episodes_per_update=args.episodes_per_update,
        episodes_per_round=args.episodes_per_round,
        grid=grid,
        preset=args.preset,
        checkpoint=args.checkpoint,
        overrides=_baseline_overrides(sets["baseline"]),
        prior_weight=args.prior_weight,
        mppi=args.mppi,
        mppi_set=tuple(sets["mppi"]),
        finetune_steps=args.finetune_steps,
        physics=args.physics,
    )
    inputs = compare_inputs(task, methods, shared)  # before any work too: a bad --mppi preset is refused here
    out, summary = Path(args.out), {}
    for method in methods:
        cfg = dataclasses.replace(
            shared,
            demos=demos_for(method, args.demos),
            start_policy=args.start_policy if method in START_POLICY_METHODS else None,
        )
        runs = [
            _run_then_release(method, args.task, args.sim_data, out / method / f"seed_{s}", cfg, s, not args.quiet)
            for s in seeds
        ]
        curves = np.array([[r["success_rate"] for r in run["rounds"]] for run in runs])
        summary[method] = {
            "seeds": [run["seed"] for run in runs],
            "success_mean": curves.mean(0).tolist(),
            "success_std": curves.std(0).tolist(),
            "real_minutes": np.mean([[r["real_minutes"] for r in run["rounds"]] for run in runs], axis=0).tolist(),
            "final_success_mean": float(curves[:, -1].mean()),
        }
        if all(r.get("successes") for run in runs for r in run["rounds"]):  # every trial pooled over the seeds
            pooled = [[x for run in runs for x in run["rounds"][j]["successes"]] for j in range(curves.shape[1])]
            summary[method]["successes"] = [sum(p) for p in pooled]
            summary[method]["trials"] = [len(p) for p in pooled]
        if all(round_progress(r) is not None for run in runs for r in run["rounds"]):  # legged tasks
            progress = np.array([[round_progress(r) for r in run["rounds"]] for run in runs])
            summary[method]["progress_mean"] = progress.mean(0).tolist()
    result = {"task": args.task, "methods": summary, "out": str(out), "inputs": inputs}
    (out / "compare.json").write_text(json.dumps(result, indent=2))
    write_comparison(out, summary)
    return result


def _baseline_overrides(pairs: list[str] | None) -> dict[str, Any]:
    """`["sensor_noise_scale=1", "steps=500"]` → {name: number or string}; a name no baseline config has is an error."""
    known = sorted(
        {
            f.name
            for cls in (BCConfig, IQLConfig, SACConfig, SGFTConfig, DiffusionConfig)
            for f in dataclasses.fields(cls)
        }
    )
    out: dict[str, Any] = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"--set baseline.FIELD=VALUE expected, got baseline.{pair!r}")
        if name not in known:
            raise KeyError(f"--set baseline.{name}: no baseline config has a field {name!r}; fields: {known}")
        try:
            out[name] = json.loads(value)
        except json.JSONDecodeError:
            out[name] = value
    return out


def add_compare_commands(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add `simdist compare TASK --methods … --seeds S --out DIR` to the CLI's subparsers."""
    help_text = "run baselines in the task's real domain under a real-data budget (paper §8)"
    sp = subparsers.add_parser("compare", help=help_text, description=help_text)
    sp.set_defaults(fn=cmd_compare)
    sp.add_argument("task")
    sp.add_argument("--methods", default="bc,iql,rlpd,sgft", help=f"comma-separated, from {', '.join(METHODS)}")
    sp.add_argument("--seeds", default="1", help="a count (3 → 0,1,2) or a comma-separated list")
    sp.add_argument("--sim-data", required=True, help="the simulation dataset (normaliser stats, BC, IQL, V_sim)")
    sp.add_argument("--out", required=True)
    sp.add_argument("--budget", type=int, default=40, help="real episodes per run (demonstrations excluded)")
    sp.add_argument("--episodes-per-update", type=int, default=1)
    sp.add_argument("--episodes-per-round", type=int, default=20, help="evaluation point every M episodes")
    sp.add_argument("--grid", help="evaluation grid, or all: each round split over every grid (default as adapt)")
    sp.add_argument("--preset", default="cpu", choices=("cpu", "paper"))
    sp.add_argument("--checkpoint", help="SimDist checkpoint (simdist, simdist_bc; quadruped learned reward)")
    sp.add_argument("--prior-weight", type=float, help="simdist, simdist_bc: MPPI prior weight λ (default: preset's)")
    sp.add_argument(
        "--mppi",
        help="simdist, simdist_bc: MPPI preset (default: the model preset's), e.g. "
        "manipulation-prior for Peg Insertion",
    )
    sp.add_argument("--finetune-steps", type=int, help="simdist, simdist_bc: override the finetune preset's steps")
    sp.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="SECTION.FIELD=VALUE",
        help="override a config field (repeatable): mppi.* for simdist and simdist_bc's planner, "
        "baseline.* for the baselines' configs, e.g. --set mppi.init_std=0.1 --set "
        "baseline.sensor_noise_scale=1",
    )
    sp.add_argument(
        "--start-policy",
        help=f"a saved single-step BC policy ('{{seed}}' becomes each seed) that "
        f"{', '.join(START_POLICY_METHODS)} start from: BC deploys it, IQL and RLPD start their actor from "
        "it, e.g. `simdist dagger`'s output for a BC checkpoint (the fair quadruped baseline)",
    )
    sp.add_argument("--physics", help="JSON/YAML override of the real domain's physics, for every method's episodes")
    sp.add_argument(
        "--demos",
        type=int,
        help="teleoperated demonstrations for the methods that use them "
        f"({', '.join(DEMO_USERS)}); default {MANIPULATION_DEMOS} on manipulation, {DIFFUSION_DEMOS} "
        "for Diffusion Policy, none for the others on the quadruped",
    )
    sp.add_argument("--json", action="store_true", help="print one JSON object as the last line of stdout")
    sp.add_argument("--quiet", action="store_true", help="no progress bars")
    return sp
