"""Table I simulation ablations: pretrain a variant of the world model and evaluate its planner in `sim`.

Variants change one thing each: the share of simulation data, expert-only data of the same volume, per-step
MLP reward/value heads, or an added observation-reconstruction loss. (The paper's real-world unfreezing
ablations are `simdist finetune --trainable dynamics,encoder` etc.)
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from simdist.checkpoint import load_model
from simdist.config import ModelConfig, TrainConfig, mppi_preset
from simdist.data.episodes import Episode, create_dataset, load_episodes, write_episodes
from simdist.eval.rollout import rollout
from simdist.planning.agent import MPPIAgent
from simdist.train import pretrain

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Ablation:
    data_fraction: float = 1.0  # share of simulation episodes kept
    # Expert episodes only, up to the data_fraction budget. The paper generates expert-only data of the same volume;
    # from an existing dataset this yields only its expert share (about half).
    expert_only: bool = False
    head_type: str = "transformer"
    reconstruction: bool = False


ABLATIONS = {
    "simdist": Ablation(),
    "data-50": Ablation(data_fraction=0.5),
    "data-10": Ablation(data_fraction=0.1),
    "expert-only": Ablation(expert_only=True),
    "mlp-heads": Ablation(head_type="mlp"),
    "reconstruction": Ablation(reconstruction=True),
}


def _subset(episodes: list[Episode], ablation: Ablation, seed: int) -> list[Episode]:
    rng = np.random.default_rng(seed)
    budget = int(sum(len(e) for e in episodes) * ablation.data_fraction)
    pool = [e for e in episodes if e.source_policy == "expert"] if ablation.expert_only else episodes
    chosen, steps = [], 0
    for i in rng.permutation(len(pool)):
        if steps >= budget:
            break
        chosen.append(pool[i])
        steps += len(pool[i])
    return chosen


def run_ablations(task, sim_data: str | Path, out: str | Path, names: list[str], model_cfg: ModelConfig,
                  train_cfg: TrainConfig, mppi_name: str, trials: int, seed: int = 0, progress: bool = True) -> dict:
    unknown = sorted(set(names) - set(ABLATIONS))
    if unknown:
        raise KeyError(f"unknown ablation(s) {unknown}; valid ablations: {list(ABLATIONS)}")
    out = Path(out)
    info, episodes = load_episodes(sim_data)
    results = {}
    for name in names:
        ab = ABLATIONS[name]
        data_dir, model_dir = out / name / "sim_data", out / name / "model"
        if not (data_dir / "dataset.json").exists():
            create_dataset(data_dir, info)
            write_episodes(data_dir, _subset(episodes, ab, seed), name="subset")
        cfg = replace(model_cfg, head_type=ab.head_type, reconstruction=ab.reconstruction)
        loss = replace(train_cfg.loss, reconstruction=1.0 if ab.reconstruction else 0.0)
        if not (model_dir / "done").exists():
            pretrain(data_dir, model_dir, cfg, replace(train_cfg, loss=loss), progress=progress)
            (model_dir / "done").write_text("ok\n")
        model = load_model(model_dir)
        per_grid = {}
        for grid in task.grids:
            res = rollout(task, task.make_env("sim", seed=seed + 1), MPPIAgent(model, mppi_preset(mppi_name)),
                          task.initial_conditions(grid, trials, seed=seed + 1), progress=progress)
            per_grid[grid] = res.summary(task.spec.control_period_s)["success_rate"]
        results[name] = {"success_rate": float(np.mean(list(per_grid.values()))), "grids": per_grid,
                         "steps": sum(len(e) for e in load_episodes(data_dir)[1])}
        log.info("ablation %s: sim success %.2f", name, results[name]["success_rate"])
    summary = {"task": task.spec.name, "ablations": results}
    (out / "ablations.json").write_text(json.dumps(summary, indent=2))
    lines = ["| variant | sim steps | sim success |", "|---|---|---|"]
    lines += [f"| {n} | {r['steps']} | {r['success_rate']:.2f} |" for n, r in results.items()]
    (out / "ablations.md").write_text("\n".join(lines) + "\n")
    return summary


__all__ = ["ABLATIONS", "Ablation", "run_ablations"]
