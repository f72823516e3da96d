"""Choosing among a run's checkpoints by closed-loop evaluation (`simdist select`).

A world model's validation losses move smoothly while the closed-loop success of its BC head or planner need not:
Peg Insertion's head seats 0.00 to 0.50 of the same 40 trials at checkpoints 1,000 steps apart
(docs/tasks/peg-insertion.md), so a run's last checkpoint is one draw from that spread. Keep the
checkpoints (`--train-set keep_checkpoints=true`), evaluate each on the same initial conditions and seeds, deploy
the best. Select in `sim`: in `real` every trial is robot time, reported as `robot_minutes`.
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from simdist.rollout import evaluate_grids
from simdist.training.checkpoint import CONFIG_FILE, KEPT_CHECKPOINT, MODEL_FILE, check_model_fits_task, load_model


def candidate_checkpoints(paths: Sequence[str | Path]) -> list[Path]:
    """Each path's kept checkpoints in step order, or the path itself where it is a checkpoint without any."""
    out: list[Path] = []
    for path in map(Path, paths):
        kept = sorted(
            (d for d in path.glob("step_*") if KEPT_CHECKPOINT.match(d.name) and (d / MODEL_FILE).is_file()),
            key=lambda d: int(KEPT_CHECKPOINT.match(d.name).group(1)),
        )
        if kept:
            out += kept
        elif (path / MODEL_FILE).is_file():
            out.append(path)
        else:
            raise FileNotFoundError(
                f"{path} holds neither a checkpoint ({MODEL_FILE}) nor kept checkpoints "
                "(step_NNNNNN); pretrain with --train-set keep_checkpoints=true to keep them"
            )
    if len(set(out)) != len(out):
        raise ValueError(f"a checkpoint is named twice among {[str(p) for p in out]}")
    return out


def best_candidate(rows: Sequence[dict]) -> int:
    """Index of the best row: the highest success rate, then the highest mean return where the domain has one (`sim`),
    then the latest (the longest-trained among equals)."""
    if not rows:
        raise ValueError("no candidates to choose from")

    def key(i: int) -> tuple[float, float, int]:
        ret = rows[i].get("mean_return")
        return rows[i]["success_rate"], -math.inf if ret is None else ret, i

    return max(range(len(rows)), key=key)


def select_checkpoint(
    task,
    checkpoints: Sequence[str | Path],
    make_agent: Callable,
    domain: str = "sim",
    grids: tuple[str, ...] | None = None,
    trials: int = 20,
    seed: int = 0,
    progress: bool = False,
    physics=None,
) -> dict:
    """Evaluate every candidate (`candidate_checkpoints`) with `make_agent(model)` on the same trials (in `physics`,
    e.g. `sim` with the robot's sensor noise, where given); the rows, the best checkpoint and the spread of success
    over the candidates."""
    paths = candidate_checkpoints(checkpoints)
    models = []
    for path in paths:  # every candidate checked before the first trial
        model = load_model(path)
        check_model_fits_task(model, task, path)
        models.append(model)
    grids = tuple(grids or task.grids)
    rows = []
    for path, model in zip(paths, models):
        agent = make_agent(model)
        result = evaluate_grids(
            task, lambda env, agent=agent: agent, domain, grids, trials, seed, physics, progress=progress
        )
        rows.append(
            {
                "checkpoint": str(path),
                "success_rate": result["success_rate"],
                "success_ci95": result["success_ci95"],
                "mean_return": result.get("mean_return"),
                "robot_minutes": sum(g["robot_minutes"] for g in result["grids"].values()),
            }
        )
    best = rows[best_candidate(rows)]
    rates = [r["success_rate"] for r in rows]
    return {
        "task": task.spec.name,
        "domain": domain,
        "grids": list(grids),
        "trials": trials,
        "seed": seed,
        "best": best["checkpoint"],
        "best_success": best["success_rate"],
        "success_min": min(rates),
        "success_mean": sum(rates) / len(rates),
        "success_max": max(rates),
        "robot_minutes": sum(r["robot_minutes"] for r in rows),
        "candidates": rows,
    }


def refuse_full_folder(dest: str | Path) -> None:
    """The selected checkpoint goes to a new (or empty) folder: never over another checkpoint or a candidate."""
    if Path(dest).exists() and any(Path(dest).iterdir()):
        raise FileExistsError(f"{dest} is not empty: name a new folder for the selected checkpoint")


def copy_selected(selection: dict, dest: str | Path) -> Path:
    """The selected checkpoint copied to `dest` (a new folder), its config.json recording the selection: where it
    came from and every candidate's success. The candidates are left as they are."""
    dest, best = Path(dest), Path(selection["best"])
    refuse_full_folder(dest)
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(best / MODEL_FILE, dest / MODEL_FILE)
    config = json.loads((best / CONFIG_FILE).read_text())
    config["selected_by"] = {k: v for k, v in selection.items() if k != "robot_minutes"}
    (dest / CONFIG_FILE).write_text(json.dumps(config, indent=2))
    return dest
