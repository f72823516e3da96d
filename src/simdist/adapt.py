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
and finetune, so a kill -9 loses at most the episode in progress.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from simdist import checkpoint as ckpt
from simdist.config import CorrectionConfig, FinetuneConfig
from simdist.corrections import collect_corrections, operator_share
from simdist.data.episodes import (DatasetInfo, atomic_write_text, create_dataset, episode_files, file_steps,
                                   read_episode_file, read_info, write_episodes)
from simdist.eval.metrics import latent_prediction_error
from simdist.eval.rollout import rollout, wilson_interval
from simdist.planning.agent import MPPIAgent
from simdist.planning.settings import MPPIConfig
from simdist.train import default_device, finetune, load_windows

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AdaptConfig:
    rounds: int = 2  # J finetuning rounds (J + 1 evaluation points)
    episodes_per_round: int = 20  # M
    grid: str = "default"  # or "all": the M episodes of a round are split evenly over the task's grids
    seed: int = 0
    initial_data: str | None = None  # optional offline real episodes or demonstrations (Alg. 1, line 1)


def initial_condition_to_json(ic):
    """Initial conditions of any task (tuples, arrays, dicts, dataclasses) as JSON-ready values."""
    if dataclasses.is_dataclass(ic):
        ic = dataclasses.asdict(ic)
    if isinstance(ic, dict):
        return {k: initial_condition_to_json(v) for k, v in ic.items()}
    if isinstance(ic, (list, tuple, np.ndarray)):
        return [initial_condition_to_json(v) for v in ic]
    return float(ic) if isinstance(ic, (int, float, np.number)) else str(ic)


def physics_setting(physics) -> str | dict | None:
    """How a physics override (file path or dict) is recorded in a run's settings."""
    return physics if physics is None or isinstance(physics, dict) else str(physics)


def refuse_other_settings(path: Path, settings: dict, may_change: tuple[str, ...] = (),
                          recorded_since: tuple[str, ...] = ()) -> None:
    """A rerun into an existing folder resumes only the same experiment (its real episodes were collected under
    those settings); anything but `may_change` (section.field) differing is refused, naming it. A setting in
    `recorded_since` (a section, or one section.field) that the file does not hold at all (written before it was
    recorded) is taken on trust, with a warning."""
    if not path.exists():
        return

    def flat(d: dict) -> dict:  # {"mppi": {"samples": 8}} → {"mppi.samples": 8}
        out = {}
        for key, value in d.items():
            out.update({f"{key}.{k}": v for k, v in value.items()} if isinstance(value, dict) else {key: value})
        return out

    a, b = flat(json.loads(path.read_text())), flat(json.loads(json.dumps(settings)))
    differ = sorted(k for k in set(a) | set(b) if k not in may_change and json.dumps(a.get(k)) != json.dumps(b.get(k)))
    def predates(k: str) -> bool:  # a whole section (e.g. "physics") or one field recorded since
        top = k.split(".")[0]
        if k in recorded_since:
            return k not in a
        return top in recorded_since and not any(key == top or key.startswith(top + ".") for key in a)

    unrecorded = [k for k in differ if predates(k)]
    for k in unrecorded:
        log.warning("%s predates recording %s; resuming on the assumption that it was %s", path, k, b.get(k))
    differ = [k for k in differ if k not in unrecorded]
    if differ:
        raise ValueError(f"{path.parent} holds a run with other settings ({', '.join(differ)}); rerun with the same "
                         "settings to resume it, or choose another --out")


def round_initial_conditions(task, grid: str, n: int, seed: int) -> tuple[list, list[str]]:
    """The fixed initial conditions of every round and the grid each belongs to. `grid="all"` splits the n
    episodes evenly over the task's grids (the quadruped's 5 trials × 3 speeds is n = 15)."""
    if grid != "all":
        return task.initial_conditions(grid, n, seed=seed), [grid] * n
    grids = list(task.grids)
    if n % len(grids):
        raise ValueError(f"{n} episodes do not split evenly over the {len(grids)} grids {grids} of --grid all: "
                         f"give --episodes-per-round (and --demos) a multiple of {len(grids)}")
    ics, labels = [], []
    for g in grids:
        ics += task.initial_conditions(g, n // len(grids), seed=seed)
        labels += [g] * (n // len(grids))
    return ics, labels


def _by_grid(labels: list[str], metrics: list[dict]) -> dict[str, dict[str, float]]:
    out = {}
    for g in dict.fromkeys(labels):
        rows = [m for m, lab in zip(metrics, labels) if lab == g]
        out[g] = {k: float(np.mean([m[k] for m in rows])) for k in rows[0]}
    return out


def _round_model(out: Path, j: int, pretrained: str | Path, has_initial_data: bool) -> Path:
    if j == 0 and not has_initial_data:
        return Path(pretrained)
    return out / f"round_{j:02d}" / "model"


def round_progress(row: dict) -> float | None:
    """Mean forward progress (m) of a round's episodes, for tasks that report it (the quadruped); else None."""
    return row.get("metrics", {}).get("progress_m")


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


def adapt(task, pretrained: str | Path, out: str | Path, cfg: AdaptConfig, mppi: MPPIConfig,
          ft: FinetuneConfig, physics=None, progress: bool = True, device: torch.device | None = None,
          sim_data: str | Path | None = None, corrections: CorrectionConfig = CorrectionConfig(),
          planner_device: torch.device | str = "cpu") -> dict:
    """Run (or resume) Alg. 1 in the task's `real` domain; returns the per-round results. `device` finetunes
    (default: a GPU where there is one), `planner_device` plans."""
    out = Path(out)
    spec = task.spec
    if cfg.rounds and ft.sim_replay_fraction > 0 and sim_data is None:  # refused now, not after round 0's episodes
        raise ValueError(f"finetuning replays simulation data (sim_replay_fraction {ft.sim_replay_fraction}): "
                         "give --sim-data, or --sim-replay 0 to finetune on real data alone")
    pretrained_model = ckpt.load_model(pretrained)  # a wrong checkpoint is refused before anything is written
    ckpt.check_model_fits_task(pretrained_model, task, pretrained)
    data_dir = out / "real_data"
    create_dataset(data_dir, DatasetInfo(task=spec.name, domain="real", control_period_s=spec.control_period_s,
                                         obs_shapes=spec.obs_shapes, action_dim=spec.action_dim,
                                         command_dim=spec.command_dim, action_low=spec.action_low,
                                         action_high=spec.action_high, notes="collected by simdist adapt"))
    settings = _settings(cfg, mppi, ft, pretrained, physics, corrections)
    refuse_other_settings(out / "adapt_config.json", settings, may_change=("adapt.rounds",),
                          recorded_since=("physics", "finetune.replay_labels", "finetune.policy_anchor",
                                          "finetune.tail_windows"))
    (out / "adapt_config.json").write_text(json.dumps(settings, indent=2))
    env = task.make_env("real", physics, seed=cfg.seed)
    ics, grid_labels = round_initial_conditions(task, cfg.grid, cfg.episodes_per_round, cfg.seed)
    if cfg.initial_data:
        _import_initial_data(cfg.initial_data, data_dir)
    rounds = []
    device = device or default_device()
    replay = None  # the simulation windows, loaded at the first finetune and kept for every later round
    for j in range(cfg.rounds + 1):
        model_dir = _round_model(out, j, pretrained, bool(cfg.initial_data))
        if model_dir != Path(pretrained) and not (model_dir / "done").exists():
            log.info("round %d: finetuning %s on all real data so far", j, "+".join(ft.trainable))
            if replay is None and sim_data is not None and ft.sim_replay_fraction > 0:
                replay = load_windows(sim_data, pretrained_model.cfg, device, ft.tail_windows)
            finetune(pretrained, data_dir, model_dir, ft, device=device, progress=progress,
                     sim_data=sim_data if replay is None else replay)
            (model_dir / "done").write_text("ok\n")
        model = ckpt.load_model(model_dir, planner_device)
        episodes, metrics = _collect_round(task, env, model, mppi, ics, data_dir, j, cfg.seed, progress)
        corrected = []
        if corrections.episodes_per_round and j < cfg.rounds:  # the last round's model is only evaluated
            corrected = collect_corrections(task, env, MPPIAgent(model, mppi), corrections, data_dir, j, cfg.seed,
                                            cfg.grid, progress)
        row = _round_row(task, j, episodes, metrics, ics, data_dir, grid_labels if cfg.grid == "all" else None)
        if corrected:
            row["corrected_episodes"], row["operator_share"] = len(corrected), operator_share(corrected)
        if model_dir != Path(pretrained):  # episodes not in model_j's finetuning data: a held-out test (Fig. 8a)
            row["latent_error_pretrained"] = latent_prediction_error(pretrained_model, episodes).tolist()
            row["latent_error_finetuned"] = latent_prediction_error(model, episodes).tolist()
        walked = round_progress(row)
        log.info("round %d: success %.2f%s after %.1f real minutes", j, row["success_rate"],
                 "" if walked is None else f", progress {walked:.2f} m", row["real_minutes"])
        rounds.append(row)
        # rewritten after every round, so that a long (robot) run can be watched and a crash keeps its rounds
        result = {"task": spec.name, "rounds": rounds, "rounds_planned": cfg.rounds,
                  "zero_shot_success": rounds[0]["success_rate"], "final_success": rounds[-1]["success_rate"],
                  "real_minutes": rounds[-1]["real_minutes"]}
        atomic_write_text(out / "adapt_results.json", json.dumps(result, indent=2))
    return result


def _settings(cfg: AdaptConfig, mppi: MPPIConfig, ft: FinetuneConfig, pretrained, physics,
              corrections: CorrectionConfig) -> dict:
    """What decides a run's result, recorded in adapt_config.json so that a resumed run cannot silently differ."""
    settings = {"adapt": asdict(cfg), "mppi": asdict(mppi), "finetune": asdict(ft), "pretrained": str(pretrained)}
    # a resumed run must face the same robot (runs written before physics was recorded are taken on trust)
    settings["physics"] = physics_setting(physics)
    if corrections.episodes_per_round:  # recorded only when used: plain runs keep their settings file
        settings["corrections"] = asdict(corrections)
        if "policy" not in ft.trainable or not ft.loss.bc:
            log.warning("corrected episodes will train the dynamics only: the operator's actions are cloned when the "
                        "finetune trains the policy head with the BC term (config.with_bc_head)")
        elif not ft.policy_anchor:
            log.warning("cloning corrections without FinetuneConfig.policy_anchor can move the BC head on the robot's "
                        "own states and break a working gait (docs/real-robot.md §3)")
    return settings


def _round_row(task, j: int, episodes: list, metrics: list[dict], ics: list, data_dir: Path,
               grid_labels: list[str] | None) -> dict:
    """Round j's evaluation: success with its 95 % interval, the real-data budget so far, Fig. 6 throughput, the
    mean task metrics (per grid when `grid_labels`) and the per-trial outcomes over initial conditions (Fig. 7)."""
    period = task.spec.control_period_s
    wins = float(sum(m.get("success", 0.0) for m in metrics))
    so_far = _real_files_through(data_dir, j)
    row = {
        "round": j, "episodes": len(episodes), "real_episodes_total": len(so_far),
        "real_minutes": sum(file_steps(p) for p in so_far) * period / 60.0,
        "success_rate": wins / len(metrics), "success_ci95": wilson_interval(wins, len(metrics)),
        # Fig. 6 throughput: successes per minute of robot time in this round's rollouts
        "successes_per_minute": wins / max(1e-9, sum(len(e) for e in episodes) * period / 60.0),
        "metrics": {k: float(np.mean([m[k] for m in metrics])) for k in metrics[0]},
        "initial_conditions": [initial_condition_to_json(ic) for ic in ics],
        "successes": [bool(m.get("success", 0.0)) for m in metrics],
    }
    if grid_labels is not None:
        row["metrics_by_grid"] = _by_grid(grid_labels, metrics)
    return row


def _collect_round(task, env, model, mppi: MPPIConfig, ics: list, data_dir: Path, j: int, seed: int,
                   progress: bool):
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

        rollout(task, env, agent, [ics[i] for i in todo], seed=(seed, j), first_index=todo[0], progress=progress,
                on_episode=save, source=f"mppi-round-{j}")
    return episodes, metrics
