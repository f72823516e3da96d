"""Ablations behind `simdist ablate`: Table I (simulation) and Fig. 10 (real-world unfreezing).

Table I variants pretrain a variant of the world model and evaluate its planner in `sim`; each changes one
thing: the share of simulation data, expert-only data of the same volume, per-step MLP reward/value heads, or an
added observation-reconstruction loss.
Fig. 10 variants (`trainable` set) pretrain nothing: from one checkpoint (the `simdist` variant's model, or a
given run) they run the adaptation rounds of `simdist adapt` with a different set of finetuned parameter groups,
next to the default dynamics-only finetune (finetune_ablations.py).
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from simdist.config import FinetuneConfig, ModelConfig, TrainConfig, finetune_preset
from simdist.data.episodes import (
    DatasetError,
    DatasetInfo,
    Episode,
    create_dataset,
    dataset_steps,
    load_episodes,
    write_episodes,
)
from simdist.data.records import run_inputs
from simdist.eval.comparison import write_ablation_plot
from simdist.eval.report import TABLE_ONE_METRICS
from simdist.experiments.finetune_ablations import finetune_table, run_finetune_ablations
from simdist.overrides import without_removed_fields
from simdist.planning.agent import MPPIAgent
from simdist.planning.settings import MPPIConfig, task_planner
from simdist.rollout import rollout, wilson_interval
from simdist.training.checkpoint import load_model
from simdist.training.train import pretrain

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Ablation:
    data_fraction: float = 1.0  # share of simulation episodes kept
    # Expert episodes only, up to the data_fraction budget. The paper generates expert-only data of the same volume;
    # from an existing dataset this yields only its expert share (about half).
    expert_only: bool = False
    head_type: str = "transformer"
    reconstruction: bool = False
    # Fig. 10: parameter groups finetuned on real data (empty: a Table I pretraining ablation)
    trainable: tuple[str, ...] = ()


ABLATIONS = {
    "simdist": Ablation(),
    "data-50": Ablation(data_fraction=0.5),
    "data-10": Ablation(data_fraction=0.1),
    "expert-only": Ablation(expert_only=True),
    "mlp-heads": Ablation(head_type="mlp"),
    "reconstruction": Ablation(reconstruction=True),
    "dynamics-only": Ablation(trainable=("dynamics",)),  # the default finetune: the Fig. 10 reference
    "unfreeze-encoder": Ablation(trainable=("dynamics", "encoder")),
    "unfreeze-value": Ablation(trainable=("dynamics", "value")),  # value trained on a TD target (value_td.py)
}
REFERENCE = "dynamics-only"


@dataclass(frozen=True)
class AblationSettings:
    """What the variants of one `simdist ablate` call share, beside the model, training, finetune and planner
    configs."""

    trials: int = 20  # Table I: `sim` trials per grid
    seed: int = 0  # Table I: data subset, initialisation and evaluation seed; Fig. 10: the first adaptation seed
    expert_data: str | Path | None = None  # Table I expert-only: a `generate --expert-only` dataset
    checkpoint: str | Path | None = None  # Fig. 10: the model to adapt (default: the simdist variant's)
    rounds: int = 2  # Fig. 10: finetuning rounds
    episodes_per_round: int = 20
    seeds: int = 1  # Fig. 10: adaptation seeds seed … seed + seeds - 1
    grid: str = "default"  # Fig. 10: grid of the real episodes, or "all"


def _subset(
    episodes: list[Episode], ablation: Ablation, seed: int, expert_episodes: list[Episode] | None = None
) -> list[Episode]:
    """The variant's share of the simulation data. Expert-only takes `expert_episodes` (a dataset from
    `generate --expert-only`) up to the same volume, or else the expert episodes of the full data."""
    rng = np.random.default_rng(seed)
    budget = int(sum(len(e) for e in episodes) * ablation.data_fraction)
    pool = episodes
    if ablation.expert_only:
        pool = expert_episodes if expert_episodes is not None else [e for e in episodes if e.source_policy == "expert"]
    chosen, steps = [], 0
    for i in rng.permutation(len(pool)):
        if steps >= budget:
            break
        chosen.append(pool[i])
        steps += len(pool[i])
    if steps < 0.95 * budget:
        log.warning(
            "ablation data: %d steps, %.0f %% of the %d asked for (the source has no more)",
            steps,
            100 * steps / max(budget, 1),
            budget,
        )
    return chosen


def _expert_episodes(expert_data: str | Path, info: DatasetInfo) -> list[Episode]:
    expert_info, episodes = load_episodes(expert_data)
    mismatch = [
        f
        for f in ("task", "obs_shapes", "action_dim", "command_dim", "control_period_s")
        if getattr(expert_info, f) != getattr(info, f)
    ]
    if mismatch:
        raise DatasetError(f"--expert-data {expert_data} does not match --sim-data in {mismatch}")
    impure = sum(e.source_policy != "expert" or (e.expert is not None and not e.expert.all()) for e in episodes)
    if impure:
        raise DatasetError(
            f"--expert-data {expert_data}: {impure} of {len(episodes)} episodes are not clean expert "
            "episodes; generate it with `--expert-only`"
        )
    return episodes


def _variant_configs(name: str, model_cfg: ModelConfig, train_cfg: TrainConfig) -> tuple[ModelConfig, TrainConfig]:
    ab = ABLATIONS[name]
    loss = replace(train_cfg.loss, reconstruction=1.0 if ab.reconstruction else 0.0)
    return (replace(model_cfg, head_type=ab.head_type, reconstruction=ab.reconstruction), replace(train_cfg, loss=loss))


def _provenance(
    name: str,
    sim_data: str | Path,
    expert_data: str | Path | None,
    seed: int,
    model_cfg: ModelConfig,
    train_cfg: TrainConfig,
) -> dict:
    """What a variant's data and model were made from (`NAME/variant.json`)."""
    cfg, train = _variant_configs(name, model_cfg, train_cfg)
    experts = expert_data if ABLATIONS[name].expert_only and expert_data else None
    return json.loads(
        json.dumps(
            {
                "sim_data": str(Path(sim_data).resolve()),
                "expert_data": str(Path(experts).resolve()) if experts else None,
                "seed": seed,
                "model": asdict(cfg),
                "train": asdict(train),
            }
        )
    )


def check_variant(out: Path, name: str, provenance: dict) -> None:
    """Refuse to reuse a variant folder made from other data or settings (its model would be silently reused)."""
    path = out / name / "variant.json"
    if path.exists():
        made = without_removed_fields(json.loads(path.read_text()))  # as config.REMOVED_FIELDS reads them
        differ = [k for k in provenance if made.get(k) != provenance[k]]
        if differ:
            shown = (
                "; ".join(
                    f"{k}: {made.get(k)!r} there, {provenance[k]!r} now" for k in differ if k not in ("model", "train")
                )
                or "the model or training settings"
            )
            raise ValueError(
                f"{out / name} was made with other settings ({shown}); use another --out or remove that folder"
            )
    elif (out / name).exists():
        log.warning(
            "ablation %s: %s predates variant.json; reusing it without checking its data and settings", name, out / name
        )


def _pretrained_variant(
    name: str,
    info,
    episodes: list[Episode],
    out: Path,
    model_cfg: ModelConfig,
    train_cfg: TrainConfig,
    seed: int,
    progress: bool,
    provenance: dict,
    expert_data: str | Path | None = None,
) -> tuple[Path, Path]:
    """Pretrain (or reuse) a Table I variant; returns its (sim data, model) directories."""
    ab = ABLATIONS[name]
    data_dir, model_dir = out / name / "sim_data", out / name / "model"
    if not (out / name).exists():
        (out / name).mkdir(parents=True)
        (out / name / "variant.json").write_text(json.dumps(provenance, indent=2))
    if not (data_dir / "dataset.json").exists():
        experts = _expert_episodes(expert_data, info) if ab.expert_only and expert_data else None
        chosen = _subset(episodes, ab, seed, experts)
        create_dataset(data_dir, info)
        write_episodes(data_dir, chosen, name="subset")
    cfg, train = _variant_configs(name, model_cfg, train_cfg)
    train = replace(train, seed=train.seed + seed)  # a replicate (--seed S) also starts from its own initialisation
    if not (model_dir / "done").exists():
        pretrain(data_dir, model_dir, cfg, train, progress=progress)
        (model_dir / "done").write_text("ok\n")
    return data_dir, model_dir


def _evaluate_variant(
    task,
    name: str,
    info,
    episodes,
    out: Path,
    model_cfg: ModelConfig,
    train_cfg: TrainConfig,
    mppi: MPPIConfig,
    trials: int,
    seed: int,
    progress: bool,
    provenance: dict,
    expert_data=None,
) -> dict:
    """Pretrain a Table I variant and evaluate its planner in `sim` on every grid; cached in `NAME/eval.json`,
    so variants can be run by several processes into one folder and gathered by a last call with all of them."""
    cache = out / name / "eval.json"
    settings = {"trials": trials, "seed": seed, "mppi": asdict(mppi)}
    if cache.exists():
        cached = json.loads(cache.read_text())
        if cached.get("settings") == json.loads(json.dumps(settings)):
            return cached
        log.info("ablation %s: evaluating again (the cached evaluation used other settings)", name)
    data_dir, model_dir = _pretrained_variant(
        name, info, episodes, out, model_cfg, train_cfg, seed, progress, provenance, expert_data
    )
    agent = MPPIAgent(load_model(model_dir), mppi)
    per_grid = {}
    for grid in task.grids:
        res = rollout(
            task,
            task.make_env("sim", seed=seed + 1),
            agent,
            task.initial_conditions(grid, trials, seed=seed + 1),
            progress=progress,
        )
        per_grid[grid] = res.summary(task.spec.control_period_s)
    # Every metric the task reports (success; progress and episode return on the quadruped), mean over grids.
    keys = sorted({k for s in per_grid.values() for k in s if k == "success_rate" or k.startswith("mean_")})
    result = {k: float(np.mean([s.get(k, 0.0) for s in per_grid.values()])) for k in keys}
    result.update(
        grids={g: s["success_rate"] for g, s in per_grid.items()}, steps=dataset_steps(data_dir), settings=settings
    )
    cache.write_text(json.dumps(result, indent=2))
    log.info("ablation %s: sim success %.2f", name, result["success_rate"])
    return result


def _against_simdist(r: dict, ref: dict | None) -> str:
    """The variant's sim success minus full SimDist's, and whether their 95 % intervals leave it to chance."""
    if ref is None or r is ref:
        return "–"
    diff = r["success_rate"] - ref["success_rate"]
    bands = [
        wilson_interval(round(x["success_rate"] * x["settings"]["trials"]), x["settings"]["trials"])
        for x in (r, ref)
        if x.get("settings", {}).get("trials")
    ]
    if len(bands) < 2:
        return f"{diff:+.2f}"
    apart = bands[0][0] > bands[1][1] or bands[0][1] < bands[1][0]
    return f"{diff:+.2f} ({'beyond' if apart else 'within'} chance)"


def table_one(results: dict[str, dict]) -> list[str]:
    """Markdown rows: sim success (and its difference to full SimDist, where that was run), and the mean progress
    and episode return where the task reports them. The paper's Table I has every variant below SimDist, except
    reconstruction on the quadruped (docs/findings.md)."""
    extra = [(k, label) for k, label in TABLE_ONE_METRICS[1:] if any(k in r for r in results.values())]
    ref = results.get("simdist")
    head = (
        ["variant", "sim steps", "sim success"] + (["against SimDist"] if ref else []) + [label for _, label in extra]
    )
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for n, r in results.items():
        cells = [n, str(r["steps"]), f"{r['success_rate']:.2f}"] + ([_against_simdist(r, ref)] if ref else [])
        cells += [f"{r[k]:.2f}" if k in r else "–" for k, _ in extra]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def run_ablations(
    task,
    sim_data: str | Path,
    out: str | Path,
    names: list[str],
    model_cfg: ModelConfig,
    train_cfg: TrainConfig,
    mppi: str | MPPIConfig,
    settings: AblationSettings = AblationSettings(),
    finetune_cfg: FinetuneConfig | None = None,
    progress: bool = True,
) -> dict:
    """Run the named ablations. Table I variants go to `ablations.json`/`.md`; Fig. 10 variants (always with
    the dynamics-only reference) to `finetune_ablations.json`/`.md`, seeds `seed … seed + seeds - 1`, their real
    episodes on `settings.grid` ("all": split over the task's grids, as `simdist adapt --grid`)."""
    trials, seed, checkpoint, expert_data = settings.trials, settings.seed, settings.checkpoint, settings.expert_data
    unknown = sorted(set(names) - set(ABLATIONS))
    if unknown:
        raise KeyError(f"unknown ablation(s) {unknown}; valid ablations: {list(ABLATIONS)}")
    mppi = task_planner(task, mppi) if isinstance(mppi, str) else mppi  # a config is taken as it is
    out = Path(out)
    pretrain_names = [n for n in names if not ABLATIONS[n].trainable]
    finetune_names = [n for n in names if ABLATIONS[n].trainable]
    # Only pretraining needs the simulation episodes in memory (2.7 M quadruped transitions: several GB, which
    # the finetunes' own replay windows would otherwise double).
    # Variants pretrained by an earlier call need no data loaded (their evaluation may be cached too).
    base_needed = bool(finetune_names) and checkpoint is None
    provenance = {
        n: _provenance(n, sim_data, expert_data, seed, model_cfg, train_cfg)
        for n in pretrain_names + (["simdist"] if base_needed else [])
    }
    for name, made_from in provenance.items():  # before any data is loaded or anything is trained
        check_variant(out, name, made_from)
    todo = [n for n in pretrain_names if not (out / n / "model" / "done").exists()]
    needs_base = base_needed and not (out / "simdist" / "model" / "done").exists()
    info, episodes = load_episodes(sim_data) if todo or needs_base else (None, [])
    results = {
        name: _evaluate_variant(
            task,
            name,
            info,
            episodes,
            out,
            model_cfg,
            train_cfg,
            mppi,
            trials,
            seed,
            progress,
            provenance[name],
            expert_data,
        )
        for name in pretrain_names
    }
    # Table I evaluates in `sim`, the Fig. 10 rounds run in the task's own `real` domain: no physics override
    summary: dict = {"task": task.spec.name, "ablations": results, "inputs": run_inputs(None, mppi)}
    if results:
        (out / "ablations.json").write_text(json.dumps(summary, indent=2))
        lines = table_one(results)
        (out / "ablations.md").write_text("\n".join(lines) + "\n")
    if finetune_names:
        if checkpoint is None:  # the Table I baseline model
            checkpoint = _pretrained_variant(
                "simdist", info, episodes, out, model_cfg, train_cfg, seed, progress, provenance["simdist"]
            )[1]
        episodes.clear()  # free them before the finetunes load their replay windows
        variants = {n: ABLATIONS[n].trainable for n in [REFERENCE] + [n for n in finetune_names if n != REFERENCE]}
        ft = run_finetune_ablations(
            task,
            checkpoint,
            out,
            variants,
            finetune_cfg or finetune_preset("cpu"),
            mppi,
            settings.rounds,
            settings.episodes_per_round,
            list(range(seed, seed + settings.seeds)),
            sim_data=sim_data,
            progress=progress,
            grid=settings.grid,
        )
        summary["finetune_ablations"] = ft
        (out / "finetune_ablations.json").write_text(
            json.dumps({"task": task.spec.name, **ft, "inputs": summary["inputs"]}, indent=2)
        )
        (out / "finetune_ablations.md").write_text("\n".join(finetune_table(ft)) + "\n")
    if results or finetune_names:
        summary["plot"] = write_ablation_plot(out, summary)
        for md in (out / "ablations.md", out / "finetune_ablations.md"):
            if md.exists() and summary["plot"]:
                md.write_text(md.read_text() + f"\n![ablations]({summary['plot']})\n")
    return summary


__all__ = ["ABLATIONS", "Ablation", "AblationSettings", "run_ablations"]
