"""`simdist compare`: every method under the same real-data budget and evaluation protocol, several seeds, a
comparison table and a Fig. 4-style plot (docs/baselines.md). One method and seed is `run.run_baseline`."""

from __future__ import annotations

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
from simdist.eval.comparison import write_comparison
from simdist.experiments.baseline_run import run_baseline, world_model_planner
from simdist.experiments.baseline_settings import (
    DEMO_USERS,
    METHODS,
    START_POLICY_METHODS,
    WORLD_MODEL_METHODS,
    BaselineRunConfig,
)
from simdist.experiments.memory import release_freed_memory
from simdist.overrides import parse_overrides
from simdist.tasks import get_task


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


def compare(
    task_name: str,
    methods: list[str],
    seeds: list[int],
    sim_data: str | Path,
    out: str | Path,
    shared: BaselineRunConfig,
    demos: int | None = None,
    start_policy: str | None = None,
    progress: bool = False,
) -> dict:
    """Every method of `methods` over `seeds` under `shared`'s budget and protocol: OUT/METHOD/seed_S, then
    OUT/compare.json and the comparison table and plot. `demos` and `start_policy` reach only the methods that use
    them."""
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        raise KeyError(f"unknown baseline(s) {unknown}; valid methods: {list(METHODS)}")
    task = get_task(task_name)
    inputs = compare_inputs(task, methods, shared)  # before any work: a bad --mppi preset is refused here
    out, summary = Path(out), {}
    for method in methods:
        cfg = dataclasses.replace(
            shared,
            demos=demos_for(method, demos),
            start_policy=start_policy if method in START_POLICY_METHODS else None,
        )
        runs = [
            _run_then_release(method, task_name, sim_data, out / method / f"seed_{s}", cfg, s, progress) for s in seeds
        ]
        summary[method] = _summary(runs)
    result = {"task": task_name, "methods": summary, "out": str(out), "inputs": inputs}
    (out / "compare.json").write_text(json.dumps(result, indent=2))
    write_comparison(out, summary)
    return result


def _summary(runs: list[dict]) -> dict:
    """One method's rounds over its seeds: mean and spread of success, real minutes, pooled trials, progress."""
    curves = np.array([[r["success_rate"] for r in run["rounds"]] for run in runs])
    summary = {
        "seeds": [run["seed"] for run in runs],
        "success_mean": curves.mean(0).tolist(),
        "success_std": curves.std(0).tolist(),
        "real_minutes": np.mean([[r["real_minutes"] for r in run["rounds"]] for run in runs], axis=0).tolist(),
        "final_success_mean": float(curves[:, -1].mean()),
    }
    if all(r.get("successes") for run in runs for r in run["rounds"]):  # every trial pooled over the seeds
        pooled = [[x for run in runs for x in run["rounds"][j]["successes"]] for j in range(curves.shape[1])]
        summary["successes"] = [sum(p) for p in pooled]
        summary["trials"] = [len(p) for p in pooled]
    if all(round_progress(r) is not None for run in runs for r in run["rounds"]):  # legged tasks
        progress = np.array([[round_progress(r) for r in run["rounds"]] for run in runs])
        summary["progress_mean"] = progress.mean(0).tolist()
    return summary


BASELINE_CONFIGS = (BCConfig, IQLConfig, SACConfig, SGFTConfig, DiffusionConfig)


def baseline_overrides(items: list[str]) -> dict[str, Any]:
    """`["sensor_noise_scale=1", "steps=500"]` (`--set baseline.FIELD=VALUE`) → {field: value}, each read by the
    type the baseline configs give that field; a field no baseline config has is an error listing them."""
    out: dict[str, Any] = {}
    for item in items:
        name = item.partition("=")[0]
        owner = next((c for c in BASELINE_CONFIGS if name in {f.name for f in dataclasses.fields(c)}), None)
        if owner is None:
            known = sorted({f.name for c in BASELINE_CONFIGS for f in dataclasses.fields(c)})
            raise KeyError(f"--set baseline.{name}: no baseline config has a field {name!r}; fields: {known}")
        out.update(parse_overrides(owner, [item], "--set baseline."))
    return out
