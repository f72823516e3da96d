"""Fig. 10 real-world unfreezing ablations: the same adaptation rounds (Alg. 1) with a different trainable set.

Every variant starts from one pretrained checkpoint and runs `simdist adapt` (adapt.py) in the task's `real`
domain with its own `FinetuneConfig.trainable`; the default (dynamics only) runs beside them with the same
seeds, checkpoint, planner and finetuning schedule, so the only difference is what the finetune may change.
With "value" trainable, the value head learns from a TD target (model/value_td.py).
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import torch

from simdist.adaptation.adapt import AdaptConfig, adapt
from simdist.adaptation.rounds import round_progress
from simdist.config import FinetuneConfig, replace
from simdist.data.episodes import load_episodes
from simdist.data.windows import WindowDataset
from simdist.experiments.memory import release_freed_memory
from simdist.model.world_model import COMMAND, VALUE, WorldModel
from simdist.planning.settings import MPPIConfig
from simdist.training import checkpoint as ckpt

log = logging.getLogger(__name__)
MAX_WINDOWS = 2048


@torch.no_grad()
def head_input_shift(pretrained: WorldModel, finetuned: WorldModel, data_dir: str | Path) -> dict[str, float]:
    """What a finetune changed in what the planner reads, over the windows of the episodes in `data_dir`:
    latent_shift = E‖E'(o) − E(o)‖² / E‖E(o) − mean‖² (0 while the encoder is frozen), and
    value_shift  = E|V'(E'(o_{t+1..t+T})) − V(E(o_{t+1..t+T}))| / std of the latter (raw value units): how far
    the value the planner assigns to the same real states moved (0 for a dynamics-only finetune)."""
    info, episodes = load_episodes(data_dir)
    data = WindowDataset(info, episodes, pretrained.cfg.history, pretrained.cfg.horizon)
    batch = data.batch(np.arange(len(data))[:: max(1, len(data) // MAX_WINDOWS)])
    values, latents = [], []
    for model in (pretrained, finetuned):
        model.eval()
        z = model.encode(batch["future_obs"])
        cmd = model.normalizer.normalize(COMMAND, batch["commands"]) if model.spec.command_dim else None
        values.append(model.normalizer.denormalize(VALUE, model.values_n(z, cmd)))
        latents.append(z)
    z0 = latents[0]
    latent = (latents[1] - z0).pow(2).sum(-1).mean() / (z0 - z0.mean((0, 1))).pow(2).sum(-1).mean()
    value = (values[1] - values[0]).abs().mean() / values[0].std().clamp_min(1e-8)
    return {"latent_shift": float(latent), "value_shift": float(value)}


def run_finetune_ablations(
    task,
    checkpoint: str | Path,
    out: str | Path,
    variants: dict[str, tuple[str, ...]],
    ft: FinetuneConfig,
    mppi: MPPIConfig,
    rounds: int,
    episodes_per_round: int,
    seeds: list[int],
    sim_data: str | Path | None = None,
    progress: bool = True,
    grid: str = "default",
) -> dict:
    """Run (or resume) Alg. 1 for every variant (name → trainable groups) and seed; returns success per round.

    Results land in `out/NAME/seed_S/` (an ordinary `simdist adapt` directory each).
    """
    out = Path(out)
    base = ckpt.load_model(checkpoint)
    results = {}
    for name, trainable in variants.items():
        per_seed, progress_m, shifts = {}, {}, {}
        for seed in seeds:
            cfg = AdaptConfig(rounds=rounds, episodes_per_round=episodes_per_round, grid=grid, seed=seed)
            res = adapt(
                task,
                checkpoint,
                out / name / f"seed_{seed}",
                cfg,
                mppi,
                replace(ft, trainable=trainable),
                progress=progress,
                sim_data=sim_data,
            )
            per_seed[str(seed)] = [r["success_rate"] for r in res["rounds"]]
            if all(round_progress(r) is not None for r in res["rounds"]):  # the quadruped's forward progress
                progress_m[str(seed)] = [round_progress(r) for r in res["rounds"]]
            run = out / name / f"seed_{seed}"
            if rounds > 0:  # the last finetuned model, on every real episode of its run
                shifts[str(seed)] = head_input_shift(
                    base, ckpt.load_model(run / f"round_{rounds:02d}" / "model"), run / "real_data"
                )
            log.info("finetune ablation %s seed %d: success per round %s", name, seed, per_seed[str(seed)])
            release_freed_memory()  # each adapt run loads the simulation replay anew
        results[name] = {
            "trainable": list(trainable),
            "success_per_round": per_seed,
            "mean_success_per_round": np.mean(list(per_seed.values()), axis=0).tolist(),
            "final_model_shift": shifts,
        }
        if progress_m:
            results[name]["progress_per_round"] = progress_m
            results[name]["mean_progress_per_round"] = np.mean(list(progress_m.values()), axis=0).tolist()
    return {
        "checkpoint": str(checkpoint),
        "rounds": rounds,
        "episodes_per_round": episodes_per_round,
        "grid": grid,
        "seeds": list(seeds),
        "variants": results,
    }


def finetune_table(summary: dict) -> list[str]:
    """Markdown rows: real success after each finetuning round, per seed and mean, and the last model's shifts."""
    rounds = summary["rounds"]
    head = ["variant", "trainable", "seed", "zero shot"] + [f"round {j}" for j in range(1, rounds + 1)]
    head += ["latent shift", "value shift"] if rounds else []
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, r in summary["variants"].items():
        shift = r["final_model_shift"]
        rows = [
            (s, v, [shift[s]["latent_shift"], shift[s]["value_shift"]] if s in shift else [])
            for s, v in r["success_per_round"].items()
        ]
        if len(rows) > 1:
            mean = [float(np.mean([x[k] for x in shift.values()])) for k in ("latent_shift", "value_shift")]
            rows.append(("mean", r["mean_success_per_round"], mean if shift else []))
        for seed, values, shifts in rows:
            cells = [name, "+".join(r["trainable"]), seed] + [f"{v:.2f}" for v in values + shifts]
            lines.append("| " + " | ".join(cells) + " |")
        if "mean_progress_per_round" in r:  # legged tasks: mean forward progress (m) over the seeds
            cells = [name, "+".join(r["trainable"]), "progress (m)"] + [
                f"{v:.2f}" for v in r["mean_progress_per_round"]
            ]
            lines.append("| " + " | ".join(cells + [""] * (len(head) - len(cells))) + " |")
    return lines


__all__ = ["finetune_table", "head_input_shift", "run_finetune_ablations"]
