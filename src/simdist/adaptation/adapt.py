"""Real-world adaptation (paper Alg. 1): deploy MPPI, log every episode, finetune the dynamics, redeploy.

Round j (j = 0 … J) deploys model_j (model_0 = the pretrained checkpoint, or the pretrained checkpoint
finetuned on `initial_data` when offline real episodes or demonstrations are given) for M episodes on the task's
fixed evaluation initial conditions; those rollouts are both the evaluation of model_j (the paper's
success-rate point after j updates) and new real data. After round j < J, the dynamics are finetuned on
*all* real data so far, starting from the pretrained checkpoint, giving model_{j+1} (optionally with
simulation replay, FinetuneConfig.sim_replay_fraction).

With `corrections` (corrections.py), each round j < J also runs corrected episodes after its evaluation ones: model_j
drives, an operator takes over now and then; they are real data like the others (`r{j}_c{i}.h5`), and the
finetune clones the operator's steps when the policy head is trainable.

Crash safety: each episode is written atomically the moment it ends (`r{j}_e{i}.h5`); a finetune writes its
checkpoint atomically and a `done` marker last. Re-running the same command skips every completed episode
and finetune, so a kill -9 loses at most the episode in progress. Resume is replay: episode i of round j draws
its random numbers (the robot's, the planner's) from (seed, round j, episode i) alone, and round j's finetune
from (FinetuneConfig.seed, seed, j), so a resumed run writes the episodes an uninterrupted one would.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from simdist.adaptation.corrections import CorrectionConfig, collect_corrections, operator_share
from simdist.adaptation.rounds import (
    initial_condition_to_json,
    physics_setting,
    refuse_other_settings,
    round_initial_conditions,
    round_model_dir,
    round_progress,
)
from simdist.config import FinetuneConfig, replace
from simdist.data.episodes import (
    DatasetInfo,
    atomic_write_text,
    create_dataset,
    episode_files,
    file_steps,
    read_episode_file,
    read_info,
    write_episodes,
)
from simdist.data.records import changed_inputs, input_hashes, run_inputs
from simdist.model.metrics import latent_prediction_error
from simdist.planning.agent import MPPIAgent, PolicyAgent
from simdist.planning.settings import MPPIConfig
from simdist.rollout import rollout, wilson_interval
from simdist.training import checkpoint as ckpt
from simdist.training.finetune import finetune
from simdist.training.train import default_device, load_windows

log = logging.getLogger(__name__)


HEAD_STREAM = 1  # the BC head's evaluation episodes: a seed stream of their own


@dataclass(frozen=True)
class AdaptConfig:
    rounds: int = 2  # J finetuning rounds (J + 1 evaluation points)
    episodes_per_round: int = 20  # M
    grid: str = "default"  # or "all": the M episodes of a round are split evenly over the task's grids
    seed: int = 0
    initial_data: str | None = None  # optional offline real episodes or demonstrations (Alg. 1, line 1)
    # Also run each round's model's BC head alone on the round's initial conditions and report its success beside
    # the planner's: as many more real episodes per round (robot time on a robot), not kept as finetuning data.
    evaluate_head: bool = False


def _by_grid(labels: list[str], metrics: list[dict]) -> dict[str, dict[str, float]]:
    out = {}
    for g in dict.fromkeys(labels):
        rows = [m for m, lab in zip(metrics, labels) if lab == g]
        out[g] = {k: float(np.mean([m[k] for m in rows])) for k in rows[0]}
    return out


def _real_files_through(data_dir: Path, j: int) -> list[Path]:
    """Real episode files up to and including round j: every file but later rounds' (initial data and
    demonstrations count from the start), so a resumed run reports each completed round's budget as it was."""
    later = re.compile(r"r(\d\d)_")
    return [p for p in episode_files(data_dir) if not ((m := later.match(p.stem)) and int(m.group(1)) > j)]


def _import_initial_data(source: str | Path, data_dir: Path) -> None:
    """Copy offline real episodes into D_real once (as `init_*` files), validated against its metadata."""
    if any(p.stem.startswith("init_") for p in episode_files(data_dir)):
        return
    info = read_info(data_dir)
    for k, path in enumerate(episode_files(source)):
        write_episodes(data_dir, read_episode_file(path, info), name=f"init_{k:05d}")


def adapt(
    task,
    pretrained: str | Path,
    out: str | Path,
    cfg: AdaptConfig,
    mppi: MPPIConfig,
    ft: FinetuneConfig,
    physics=None,
    progress: bool = True,
    device: torch.device | None = None,
    sim_data: str | Path | None = None,
    corrections: CorrectionConfig = CorrectionConfig(),
    planner_device: torch.device | str = "cpu",
) -> dict:
    """Run (or resume) Alg. 1 in the task's `real` domain; returns the per-round results. `device` finetunes
    (default: a GPU where there is one), `planner_device` plans."""
    out = Path(out)
    spec = task.spec
    if cfg.rounds and ft.sim_replay_fraction > 0 and sim_data is None:  # refused now, not after round 0's episodes
        raise ValueError(
            f"finetuning replays simulation data (sim_replay_fraction {ft.sim_replay_fraction}): pass --sim-data "
            "DATASET, the model's simulation dataset (e.g. `simdist generate TASK --episodes 200 --out DATASET`), "
            "or --sim-replay 0 to finetune on real data alone"
        )
    pretrained_model = ckpt.load_model(pretrained)  # a wrong checkpoint is refused before anything is written
    ckpt.check_model_fits_task(pretrained_model, task, pretrained)
    data_dir = out / "real_data"
    settings = _settings(cfg, mppi, ft, pretrained, physics, corrections)
    # a content hash of every input: a resume whose checkpoint, physics or data changed is refused, naming them
    settings["inputs"] = input_hashes(pretrained, physics, sim_data, cfg.initial_data)
    _refuse_changed_inputs(out / "adapt_config.json", settings["inputs"])
    refuse_other_settings(
        out / "adapt_config.json",
        settings,
        may_change=("adapt.rounds", *(f"inputs.{k}" for k in settings["inputs"])),
        recorded_since=(
            "physics",
            "inputs",
            "finetune.replay_labels",
            "finetune.policy_anchor",
            "finetune.tail_windows",
            "adapt.evaluate_head",
        ),
    )
    # everything else that can refuse the run, before anything is written
    env = task.make_env("real", physics, seed=cfg.seed)
    ics, grid_labels = round_initial_conditions(task, cfg.grid, cfg.episodes_per_round, cfg.seed)
    create_dataset(data_dir, DatasetInfo.of_task(spec, "real", "collected by simdist adapt"))
    atomic_write_text(out / "adapt_config.json", json.dumps(settings, indent=2))
    if recorded := episode_files(data_dir):
        log.info(
            "resuming %s: %d real episode file(s) and %d finished finetune(s) on disk are kept",
            out,
            len(recorded),
            len(list(out.glob("round_*/model/done"))),
        )
    if cfg.initial_data:
        _import_initial_data(cfg.initial_data, data_dir)
    rounds, inputs = [], run_inputs(physics, mppi)
    device = device or default_device()
    replay = None  # the simulation windows, loaded at the first finetune and kept for every later round
    for j in range(cfg.rounds + 1):
        model_dir = round_model_dir(out, j, pretrained, bool(cfg.initial_data))
        if model_dir != Path(pretrained) and not (model_dir / "done").exists():
            log.info("round %d: finetuning %s on all real data so far", j, "+".join(ft.trainable))
            if replay is None and sim_data is not None and ft.sim_replay_fraction > 0:
                replay = load_windows(sim_data, pretrained_model.cfg, device, ft.tail_windows)
            finetune(
                pretrained,
                data_dir,
                model_dir,
                round_finetune(ft, cfg.seed, j),
                device=device,
                progress=progress,
                sim_data=sim_data if replay is None else replay,
            )
            (model_dir / "done").write_text("ok\n")
        model = ckpt.load_model(model_dir, planner_device)
        episodes, metrics = _collect_round(task, env, model, mppi, ics, data_dir, j, cfg.seed, progress)
        corrected = []
        if corrections.episodes_per_round and j < cfg.rounds:  # the last round's model is only evaluated
            corrected = collect_corrections(
                task, env, MPPIAgent(model, mppi), corrections, data_dir, j, cfg.seed, cfg.grid, progress
            )
        row = _round_row(task, j, episodes, metrics, ics, data_dir, grid_labels if cfg.grid == "all" else None)
        if corrected:
            row["corrected_episodes"], row["operator_share"] = len(corrected), operator_share(corrected)
        if cfg.evaluate_head:  # its own episode seeds: the planner's episodes are the same with or without it
            head = rollout(task, env, PolicyAgent(model), ics, seed=(cfg.seed, j, HEAD_STREAM), source=f"head-{j}")
            row["head_success_rate"] = float(np.mean([m.get("success", 0.0) for m in head.metrics]))
        if model_dir != Path(pretrained):  # episodes not in model_j's finetuning data: a held-out test (Fig. 8a)
            row["latent_error_pretrained"] = latent_prediction_error(pretrained_model, episodes).tolist()
            row["latent_error_finetuned"] = latent_prediction_error(model, episodes).tolist()
        walked = round_progress(row)
        log.info(
            "round %d: success %.2f%s after %.1f real minutes",
            j,
            row["success_rate"],
            "" if walked is None else f", progress {walked:.2f} m",
            row["real_minutes"],
        )
        rounds.append(row)
        # rewritten after every round, so that a long (robot) run can be watched and a crash keeps its rounds
        result = {
            "task": spec.name,
            "rounds": rounds,
            "rounds_planned": cfg.rounds,
            "zero_shot_success": rounds[0]["success_rate"],
            "final_success": rounds[-1]["success_rate"],
            "real_minutes": rounds[-1]["real_minutes"],
            "inputs": inputs,
        }
        atomic_write_text(out / "adapt_results.json", json.dumps(result, indent=2))
    return result


def _refuse_changed_inputs(config: Path, now: dict) -> None:
    """A resume reads the inputs the run started with, or none: each one whose content changed is named (runs
    recorded before inputs were hashed are taken on trust)."""
    if not config.exists():
        return
    if "inputs" not in (recorded := json.loads(config.read_text())):
        log.warning(
            "%s predates recording inputs (content hashes); resuming on the assumption that they are unchanged", config
        )
        return
    if changed := changed_inputs(recorded["inputs"], now):
        raise ValueError(
            f"{'; '.join(changed)}: one run holds one robot's episodes from one model; use a new --out "
            f"(or restore the inputs to resume {config.parent})"
        )


def round_finetune(ft: FinetuneConfig, seed: int, j: int) -> FinetuneConfig:
    """Round j's finetune settings: its random numbers (initialisation draws, dropout) from (ft.seed, seed, j)."""
    return replace(ft, seed=int(np.random.SeedSequence([ft.seed, seed, j]).generate_state(1)[0]))


def _settings(
    cfg: AdaptConfig, mppi: MPPIConfig, ft: FinetuneConfig, pretrained, physics, corrections: CorrectionConfig
) -> dict:
    """What decides a run's result, recorded in adapt_config.json so that a resumed run cannot silently differ."""
    settings = {"adapt": asdict(cfg), "mppi": asdict(mppi), "finetune": asdict(ft), "pretrained": str(pretrained)}
    # a resumed run must face the same robot (runs written before physics was recorded are taken on trust)
    settings["physics"] = physics_setting(physics)
    if corrections.episodes_per_round:  # recorded only when used: plain runs keep their settings file
        settings["corrections"] = asdict(corrections)
        if "policy" not in ft.trainable or not ft.loss.bc:
            log.warning(
                "corrected episodes will train the dynamics only: the operator's actions are cloned when the "
                "finetune trains the policy head with the BC term (config.with_bc_head)"
            )
        elif not ft.policy_anchor:
            log.warning(
                "cloning corrections without FinetuneConfig.policy_anchor can move the BC head on the robot's "
                "own states and break a working gait (docs/real-robot.md §3)"
            )
    return settings


def _round_row(
    task, j: int, episodes: list, metrics: list[dict], ics: list, data_dir: Path, grid_labels: list[str] | None
) -> dict:
    """Round j's evaluation: success with its 95 % interval, the real-data budget so far, Fig. 6 throughput, the
    mean task metrics (per grid when `grid_labels`) and the per-trial outcomes over initial conditions (Fig. 7)."""
    period = task.spec.control_period_s
    wins = float(sum(m.get("success", 0.0) for m in metrics))
    so_far = _real_files_through(data_dir, j)
    row = {
        "round": j,
        "episodes": len(episodes),
        "real_episodes_total": len(so_far),
        "real_minutes": sum(file_steps(p) for p in so_far) * period / 60.0,
        "success_rate": wins / len(metrics),
        "success_ci95": wilson_interval(wins, len(metrics)),
        # Fig. 6 throughput: successes per minute of robot time in this round's rollouts
        "successes_per_minute": wins / max(1e-9, sum(len(e) for e in episodes) * period / 60.0),
        "metrics": {k: float(np.mean([m[k] for m in metrics])) for k in metrics[0]},
        "initial_conditions": [initial_condition_to_json(ic) for ic in ics],
        "successes": [bool(m.get("success", 0.0)) for m in metrics],
    }
    if grid_labels is not None:
        row["metrics_by_grid"] = _by_grid(grid_labels, metrics)
    return row


def _collect_round(task, env, model, mppi: MPPIConfig, ics: list, data_dir: Path, j: int, seed: int, progress: bool):
    """Deploy `model` on every initial condition not yet recorded in round j; write each episode at once."""
    info = read_info(data_dir)
    done = {p.stem: p for p in episode_files(data_dir) if p.stem.startswith(f"r{j:02d}_")}
    episodes, metrics = [None] * len(ics), [None] * len(ics)
    todo = []
    for i in range(len(ics)):
        path = done.get(f"r{j:02d}_e{i:03d}")
        if path is not None:
            (ep,) = read_episode_file(path, info)
            episodes[i], metrics[i] = ep, ep.metrics
        else:
            todo.append(i)
    if todo:
        agent = MPPIAgent(model, mppi)

        def save(k: int, ep, m) -> None:
            i = todo[k]
            write_episodes(data_dir, [ep], name=f"r{j:02d}_e{i:03d}")
            episodes[i], metrics[i] = ep, m

        rollout(
            task,
            env,
            agent,
            [ics[i] for i in todo],
            seed=(seed, j),
            first_index=todo[0],
            progress=progress,
            on_episode=save,
            source=f"mppi-round-{j}",
        )
    return episodes, metrics
