"""`simdist run`: every stage in order, each skipped when its output already exists (so a rerun resumes).

    generate (Alg. 2) → pretrain (Eq. 2) → [planner rounds in sim] → zero-shot eval in sim → adaptation rounds
    in real (Alg. 1) → report

With ``train_expert`` the task's privileged expert is first (re)built through its own training entry point
(``Task.train_expert``, only where the expert is learned); with ``video`` the report gets one short rollout GIF per
evaluation stage where offscreen rendering works (simdist.eval.video).
"""

from __future__ import annotations

import json
import logging
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

from simdist.adaptation.adapt import AdaptConfig, adapt
from simdist.adaptation.rounds import refuse_other_settings
from simdist.config import model_preset, model_preset_for, replace, train_preset, with_steps
from simdist.data.episodes import atomic_write_text
from simdist.data.generate import generate
from simdist.data.records import run_inputs
from simdist.eval.report import write_report
from simdist.eval.selection import candidate_checkpoints, select_checkpoint
from simdist.eval.video import VideoConfig, record_run_videos
from simdist.planning.agent import MPPIAgent, PolicyAgent
from simdist.planning.refine import RefineConfig, refine
from simdist.planning.settings import task_planner
from simdist.presets import Registry
from simdist.rollout import rollout
from simdist.tasks import get_task, task_names
from simdist.training.checkpoint import check_fits_task, check_model_fits_task, load_model
from simdist.training.finetune import task_finetune
from simdist.training.train import pretrain

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PipelineConfig:
    episodes: int  # simulation episodes to generate
    workers: int
    pretrain_steps: int | None  # None: the preset's
    rounds: int
    episodes_per_round: int  # per grid, for tasks adapted one grid at a time (manipulation)
    sim_eval_trials: int
    # Command-conditioned (legged) tasks adapt one model over every speed at once, as the paper's quadruped:
    # each round is `legged_trials_per_grid` trials at each speed.
    legged_trials_per_grid: int = 5
    grids: tuple[str, ...] | None = None  # evaluated and adapted grids (None: all of the task's)
    mppi: str | None = None  # planner preset (None: the model preset's)
    mppi_set: tuple[str, ...] = ()  # FIELD=VALUE overrides of that preset, e.g. ("init_std=0.1",)
    finetune_steps: int | None = None  # None: the finetune preset's
    video_seconds: float = VideoConfig().max_seconds  # robot time filmed per stage
    # > 0: keep every pretraining checkpoint and deploy the best of the last N by the BC head's `sim` success
    # (simdist.eval.selection), on trials of their own seed; 0: the last. Closed-loop success can swing between
    # checkpoints whose losses barely differ (Peg Insertion: 0-0.5 within 1,000 steps; docs/tasks/peg-insertion.md).
    select_checkpoints: int = 0
    # Planner rounds in sim after pretraining (simdist.planning.refine, `simdist refine`): the model trained on
    # the states its own planner visits. 0: the paper's pipeline.
    refine_rounds: int = 0

    def __post_init__(self) -> None:
        if self.refine_rounds < 0:
            raise ValueError(f"refine_rounds is a number of planner rounds (0: none), got {self.refine_rounds}")
        if self.select_checkpoints < 0:
            raise ValueError(
                f"select_checkpoints is a number of checkpoints (0: the last), got {self.select_checkpoints}"
            )


SIM_EVAL_SEED, SELECTION_SEED = 1, 2  # the selection's trials are not the reported evaluation's

PIPELINE_PRESETS = {
    "cpu": PipelineConfig(
        episodes=500, workers=2, pretrain_steps=None, rounds=2, episodes_per_round=20, sim_eval_trials=20
    ),
    "paper": PipelineConfig(
        episodes=100_000, workers=16, pretrain_steps=None, rounds=5, episodes_per_round=20, sim_eval_trials=20
    ),
}
RUN_REGISTRY: Registry[PipelineConfig] = Registry("run", PIPELINE_PRESETS)

# `simdist demo --task peg-insertion`: Peg Insertion on 2 cores in about 10 minutes (9 min 13 s measured on an
# idle machine). A world model that grasps and inserts needs ~35k pretraining steps (hours on a CPU), so the demo
# starts from the shipped one (checkpoints/peg-insertion) and generates a small dataset only for Alg. 2 and the
# finetuning's simulation replay. The planner is the one that inserts with that model
# (docs/tasks/peg-insertion.md): the paper's sampler held near the BC chunk.
DEMO_TASK, DEMO_CHECKPOINT = "peg-insertion", "peg-insertion"
DEMO = PipelineConfig(
    episodes=200,
    workers=2,
    pretrain_steps=None,
    rounds=2,
    episodes_per_round=20,
    sim_eval_trials=10,
    grids=("narrow",),
    mppi="manipulation-prior",
    finetune_steps=1000,
    video_seconds=45.0,
)  # the whole episode: an insertion takes 9-45 s, so each clip shows its end


def _train_expert(task, out: Path, budget: int | None) -> None:
    if not hasattr(task, "train_expert"):
        able = [n for n in task_names() if hasattr(get_task(n), "train_expert")]
        raise ValueError(
            f"--train-expert: task {task.spec.name!r} has no expert training entry point: its privileged "
            f"expert is a hand-written controller (scripted or analytic, see docs/tasks/), so there is "
            f"nothing to train. Tasks with a trainable expert: {able}"
        )
    log.info("training the privileged expert of %s in %s", task.spec.name, out)
    task.train_expert(out, budget)


def _sim_evaluation(
    task, model_dir: Path, planner, grids, trials: int, path: Path, progress: bool, device="cpu"
) -> dict:
    """The planner's success in `sim` per grid before any real data (kept in `path`; a rerun reads it back)."""
    if path.exists():
        log.info("reusing the sim evaluation in %s", path)
    else:
        model = load_model(model_dir, device)
        check_model_fits_task(model, task, model_dir)
        per_grid = {}
        for grid in grids:
            res = rollout(
                task,
                task.make_env("sim", seed=SIM_EVAL_SEED),
                MPPIAgent(model, planner),
                task.initial_conditions(grid, trials, seed=SIM_EVAL_SEED),
                progress=progress,
            )
            per_grid[grid] = res.summary(task.spec.control_period_s)
        atomic_write_text(path, json.dumps(per_grid, indent=2))
    return json.loads(path.read_text())


def _selected_checkpoint(task, run_dir: Path, last: int, grids, trials: int, path: Path, progress: bool) -> dict:
    """The best of the run's last `last` kept checkpoints by the BC head's `sim` success (kept in `path`)."""
    if not path.exists():
        candidates = candidate_checkpoints([run_dir])[-last:]
        result = select_checkpoint(
            task, candidates, PolicyAgent, "sim", tuple(grids), trials, SELECTION_SEED, progress=progress
        )
        atomic_write_text(path, json.dumps(result, indent=2))
    return json.loads(path.read_text())


def run_pipeline(
    task_name: str,
    preset: str,
    out: str | Path,
    progress: bool = True,
    video: bool = True,
    train_expert: bool = False,
    expert_budget: int | None = None,
    checkpoint: str | Path | None = None,
    sizing: PipelineConfig | None = None,
    planner_device="cpu",
) -> dict:
    """``checkpoint``: a pretrained world model to start from (pretraining is skipped); ``sizing``: the stage
    sizes (default: the preset's); ``planner_device``: where the evaluations and adaptation rounds plan."""
    cfg, task, out = sizing or RUN_REGISTRY.get(preset), get_task(task_name), Path(out)
    grids = cfg.grids or task.grids
    unknown = sorted(set(grids) - set(task.grids))
    if unknown:
        raise ValueError(f"unknown grid(s) {unknown} for task {task_name!r}; valid grids: {list(task.grids)}")
    if checkpoint is not None:
        check_fits_task(checkpoint, task)  # before any work
        if cfg.select_checkpoints:
            raise ValueError(
                "select_checkpoints chooses among the run's own pretraining checkpoints; to choose "
                "among a given run's, use `simdist select` and pass the best as the checkpoint"
            )
    model_name = model_preset_for(task, preset)  # a bad planner override is refused before any work
    planner = task_planner(task, cfg.mppi or model_name, cfg.mppi_set)
    inputs = run_inputs(None, planner)  # the task's own real domain: no physics override
    settings = {
        "task": task_name,
        "preset": preset,
        **asdict(cfg),
        "checkpoint": str(checkpoint) if checkpoint else None,
        "inputs": inputs,
    }
    refuse_other_settings(
        out / "pipeline.json",
        settings,
        may_change=("rounds", "video_seconds"),
        recorded_since=("mppi_set", "select_checkpoints", "inputs", "refine_rounds"),
    )
    finetune_cfg = task_finetune(task, model_name)
    if cfg.finetune_steps:
        finetune_cfg = with_steps(finetune_cfg, cfg.finetune_steps)
    out.mkdir(parents=True, exist_ok=True)
    if train_expert:
        _train_expert(task, out / "expert", expert_budget)
    atomic_write_text(out / "pipeline.json", json.dumps(settings, indent=2))

    sim_data = out / "sim_data"
    if not (sim_data / "stats.json").exists():
        if sim_data.exists():  # an interrupted generation: its seeds are fixed, so it starts again
            log.info("%s: an interrupted generation; generating it again", sim_data)
            shutil.rmtree(sim_data)
        log.info("generating %d simulation episodes", cfg.episodes)
        generate(task, sim_data, cfg.episodes, cfg.workers, progress=progress)
    else:
        log.info(
            "reusing %s from an earlier run of this command (%d episodes)",
            sim_data,
            json.loads((sim_data / "stats.json").read_text())["episodes"],
        )
    sim_stats = json.loads((sim_data / "stats.json").read_text())

    model_dir = Path(checkpoint) if checkpoint is not None else out / "pretrained"
    train_cfg = train_preset(model_name)
    if cfg.pretrain_steps:  # as `simdist pretrain --steps`: at least four checkpoints over the run
        train_cfg = replace(
            train_cfg,
            steps=cfg.pretrain_steps,
            checkpoint_every=min(train_cfg.checkpoint_every, max(1, cfg.pretrain_steps // 4)),
        )
    if cfg.select_checkpoints:
        train_cfg = replace(train_cfg, keep_checkpoints=True)
    if checkpoint is None and not (model_dir / "pretrain_done").exists():
        pretrain(sim_data, model_dir, model_preset(model_name), train_cfg, progress=progress)
        (model_dir / "pretrain_done").write_text("ok\n")
    elif checkpoint is None:
        log.info("reusing the world model pretrained in %s", model_dir)
    selection = None
    if cfg.select_checkpoints:
        selection = _selected_checkpoint(
            task, model_dir, cfg.select_checkpoints, grids, cfg.sim_eval_trials, out / "selection.json", progress
        )
        model_dir = Path(selection["best"])
        log.info(
            "deploying %s: BC head success %.2f in sim (its candidates %.2f-%.2f)",
            model_dir,
            selection["best_success"],
            selection["success_min"],
            selection["success_max"],
        )

    refined = None
    if cfg.refine_rounds:
        refined = refine(
            task,
            model_dir,
            sim_data,
            out / "refine",
            RefineConfig(rounds=cfg.refine_rounds, train_preset=model_name),
            planner,
            progress,
        )
        model_dir, sim_data = Path(refined["checkpoint"]), Path(refined["sim_data"])

    sim_eval = _sim_evaluation(
        task, model_dir, planner, grids, cfg.sim_eval_trials, out / "sim_eval.json", progress, planner_device
    )

    results = {}
    legged = bool(task.spec.command_dim)
    for grid in ("all",) if legged else grids:
        n = cfg.legged_trials_per_grid * len(task.grids) if legged else cfg.episodes_per_round
        adapt_cfg = AdaptConfig(rounds=cfg.rounds, episodes_per_round=n, grid=grid)
        results[grid] = adapt(
            task,
            model_dir,
            out / f"adapt_{grid}",
            adapt_cfg,
            planner,
            finetune_cfg,
            progress=progress,
            sim_data=sim_data,
            planner_device=planner_device,
        )
    summary = {
        "task": task_name,
        "preset": preset,
        "out": str(out),
        "world_model": str(model_dir),
        "zero_shot_success": sum(r["zero_shot_success"] for r in results.values()) / len(results),
        "final_success": sum(r["final_success"] for r in results.values()) / len(results),
        "real_minutes": sum(r["real_minutes"] for r in results.values()),
        "sim_success": {g: v["success_rate"] for g, v in sim_eval.items()},
        "sim_dataset": {k: sim_stats[k] for k in ("episodes", "steps", "expert_action_share", "success_rate")},
        "inputs": inputs,
    }
    if refined is not None:
        summary["refine"] = [{k: r[k] for k in ("round", "episodes", "planner_success")} for r in refined["rounds"]]
    if selection is not None:
        summary["checkpoint_selection"] = {
            k: selection[k] for k in ("best", "best_success", "success_min", "success_max")
        }
    videos = None
    if video:
        videos = record_run_videos(
            task,
            out,
            model_dir,
            out / f"adapt_{next(iter(results))}",
            cfg.rounds,
            grids[0],
            planner,
            VideoConfig(max_seconds=cfg.video_seconds),
        )
    write_report(out, summary, results, videos, cfg.video_seconds)
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=2))
    return summary
