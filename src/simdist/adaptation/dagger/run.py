"""The DAgger loop: rounds of collection and head-only training, the sensor-noise stage, the choice among candidate
heads (the `simdist dagger` command: simdist.cli.adaptation_commands)."""

from __future__ import annotations

import functools
import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from simdist.adaptation.dagger.collect import collect_round, evaluate_head, import_labels
from simdist.adaptation.dagger.config import DaggerConfig
from simdist.adaptation.rounds import physics_setting, refuse_other_settings
from simdist.baselines.bc import BCLearner, dagger_labels, retrain_on_labels, sim_expert_transitions
from simdist.baselines.checkpoints import baseline_method
from simdist.config import replace
from simdist.data.episodes import DatasetInfo, create_dataset, episode_files, episode_lengths, load_episodes
from simdist.data.records import run_inputs
from simdist.training import checkpoint as ckpt
from simdist.training.finetune import finetune
from simdist.training.train import default_device, load_windows

log = logging.getLogger(__name__)


def _write_final(source: Path, out: Path, checkpoint: str | Path, extra: dict) -> None:
    """The deployable head: the last stage's weights under the input checkpoint's sensor_noise_scale (the DAgger
    noise stage's augmentation was for the head; later dynamics finetunes keep the checkpoint's own setting)."""
    if baseline_method(source):
        learner = BCLearner.load(source)
        learner.cfg = replace(learner.cfg, sensor_noise_scale=BCLearner.load(checkpoint).cfg.sensor_noise_scale)
        learner.save(out, extra)
        return
    model = ckpt.load_model(source)
    model.cfg = replace(model.cfg, sensor_noise_scale=ckpt.load_model(checkpoint).cfg.sensor_noise_scale)
    ckpt.save_model(out, model, extra)


@dataclass
class _HeadTrainer:
    """Trains the BC head on all DAgger labels so far, half of each batch replayed from the simulation dataset: a
    SimDist model's policy head (encoder, dynamics, reward, value frozen) or the single-step BC baseline."""

    method: str | None  # "bc" for the baseline, None for a SimDist model
    data_dir: Path
    sim_data: Path
    cfg: DaggerConfig
    checkpoint: Path  # the input head, whose model config cuts SimDist's replay windows
    device: torch.device
    progress: bool

    @functools.cached_property
    def replay(self):  # built at the first training only
        if self.method:
            return sim_expert_transitions(self.sim_data)
        return load_windows(self.sim_data, ckpt.load_model(self.checkpoint).cfg, self.device, self.cfg.tail_windows)

    def train(self, start: Path, model_dir: Path, steps: int, seed: int, **overrides) -> Path:
        """`start`'s head trained `steps` steps into `model_dir` (kept if already done: runs resume)."""
        if (model_dir / "done").exists():
            return model_dir
        cfg = self.cfg
        log.info(
            "training the BC head %d steps (seed %d%s) on %d DAgger files",
            steps,
            seed,
            ", with the sensor noise on its inputs" if "sensor_noise_scale" in overrides else "",
            len(episode_files(self.data_dir)),
        )
        if self.method:  # the single-step BC baseline, with the same replay share, steps and learning rates
            retrain_on_labels(
                start,
                dagger_labels(load_episodes(self.data_dir)[1]),
                self.replay,
                model_dir,
                steps=steps,
                lr=cfg.lr,
                lr_end=cfg.lr_end,
                batch_size=cfg.batch_size,
                replay_fraction=cfg.sim_replay_fraction,
                seed=seed,
                **overrides,
            )
        else:
            finetune(
                start,
                self.data_dir,
                model_dir,
                replace(cfg.head_finetune(steps), seed=seed),
                device=self.device,
                progress=self.progress,
                sim_data=self.replay,
                model_overrides=overrides,
            )
        (model_dir / "done").write_text("ok\n")
        return model_dir


def _round_one_overrides(checkpoint: str | Path, method: str | None, cfg: DaggerConfig) -> dict:
    """Model overrides of round 1's training (a single-step head beside the chunk head), after checking that
    DAgger applies to `checkpoint`."""
    if method not in (None, "bc"):
        raise ValueError(
            f"simdist dagger refines a SimDist model's BC head or the single-step BC baseline ('bc'); "
            f"{checkpoint} holds a {method!r} checkpoint"
        )
    if method and cfg.step_head_width:
        raise ValueError(
            "step_head_width adds a single-step head to a SimDist model's BC head; the single-step BC "
            f"baseline {checkpoint} is one already"
        )
    if method or cfg.step_head_width in (0, ckpt.load_model(checkpoint).cfg.policy_step_width):
        return {}
    return {"policy_step_width": cfg.step_head_width}


def _start_run(task, out: Path, settings: dict, checkpoint: str | Path) -> Path:
    """Refuse a resumed run with other settings, record them, and create the DAgger dataset (its folder)."""
    spec = task.spec
    out.mkdir(parents=True, exist_ok=True)
    refuse_other_settings(
        out / "dagger_config.json",
        settings,
        may_change=("dagger.rounds",),
        recorded_since=(
            "dagger.train_seed",
            "dagger.eval_episodes_per_grid",
            "dagger.candidates",
            "dagger.step_head_width",
            "dagger.tail_windows",
            "eval_physics",
            "initial_labels",
        ),
    )
    (out / "dagger_config.json").write_text(json.dumps(settings, indent=2))
    data_dir = out / "dagger_data"
    create_dataset(
        data_dir,
        DatasetInfo.of_task(
            spec,
            "sim",
            f"DAgger: the BC head of {checkpoint} (then of each round's model) "
            "drives in sim; `action` is what it executed, `expert_action` the "
            "privileged expert's label (simdist dagger)",
        ),
    )
    return data_dir


def _choose_head(
    task,
    candidates: list[Path],
    cfg: DaggerConfig,
    eval_physics,
    progress: bool,
    checkpoint: str | Path,
    input_success: float | None,
) -> tuple[Path, dict]:
    """The candidate head with the best `sim` success (the first of equals: candidate 0 is the single-head
    recipe), and what to report about the choice; warns when it does worse than the input head `checkpoint` did
    (`input_success`: measured in the same physics, or None)."""
    if not cfg.eval_episodes_per_grid:
        return candidates[0], {}
    scores = [_cached_evaluation(task, h, cfg, eval_physics, progress) for h in candidates]
    means = [float(np.mean(list(sc.values()))) for sc in scores]
    best = int(np.argmax(means))
    if input_success is not None and means[best] < input_success:
        log.warning(
            "the DAgger head succeeds in %.2f of its sim episodes, the input head in %.2f: it is worse here; "
            "keep %s (docs/tasks/slippery-slope.md: DAgger on Peg Insertion)",
            means[best],
            input_success,
            checkpoint,
        )
    return candidates[best], {
        "final_head_sim_success": scores[best],
        "final_head_sim_success_mean": means[best],
        "candidates": [{"head": str(h), "sim_success_mean": m} for h, m in zip(candidates, means)],
    }


def dagger_inputs(physics, eval_physics) -> dict:
    """DAgger's `inputs`: the physics the head drives in, and the one its output is evaluated in (`eval_physics`,
    `eval_physics_file`); no planner: the BC head drives."""
    return {**run_inputs(physics), **{f"eval_{k}": v for k, v in run_inputs(eval_physics).items()}}


def dagger(
    task,
    checkpoint: str | Path,
    sim_data: str | Path,
    out: str | Path,
    cfg: DaggerConfig = DaggerConfig(),
    physics=None,
    device: torch.device | None = None,
    progress: bool = True,
    workers: int = 1,
    eval_physics=None,
    initial_labels: str | Path | None = None,
) -> dict:
    """Run (or resume) DAgger for `checkpoint`'s BC head; the result is the checkpoint OUT/model. `workers`
    processes collect the grids of a round in parallel; `eval_physics` (default: `physics`) is the `sim` physics in
    which the output head, or each candidate head, is evaluated (e.g. with the robot's sensor noise switched on).
    `initial_labels` (a DAgger dataset) replaces round 1's collection: the head first learns the states another
    driver reached (Foam: single-step BC's, docs/tasks/foam.md), then drives itself from round 2."""
    out, method = Path(out), baseline_method(checkpoint)
    add_step = _round_one_overrides(checkpoint, method, cfg)
    if not cfg.grids:
        cfg = replace(cfg, grids=tuple(task.grids))
    eval_physics = physics if eval_physics is None else eval_physics
    settings = {
        "dagger": asdict(cfg),
        "checkpoint": str(checkpoint),
        "sim_data": str(sim_data),
        "physics": physics_setting(physics),
        "eval_physics": physics_setting(eval_physics),
        "initial_labels": None if initial_labels is None else str(initial_labels),
    }
    data_dir = _start_run(task, out, settings, checkpoint)
    trainer = _HeadTrainer(
        method, data_dir, Path(sim_data), cfg, Path(checkpoint), device or default_device(), progress
    )

    head, rounds, candidates = Path(checkpoint), [], []
    for r in range(1, cfg.rounds + 1):
        if r == 1 and initial_labels is not None:
            import_labels(initial_labels, data_dir)
            rounds.append({"round": r, "initial_labels": str(initial_labels)})
        else:
            success = collect_round(task, head, data_dir, cfg, r, physics, progress, workers)
            rounds.append(
                {
                    "round": r,
                    "driving_head": str(head),
                    "head_sim_success": success,
                    "head_sim_success_mean": float(np.mean(list(success.values()))),
                }
            )
        n = cfg.candidates if r == cfg.rounds else 1  # the last round trains every candidate head
        candidates = [
            trainer.train(
                head,
                out / f"round_{r:02d}{f'_c{c}' if c else ''}",
                cfg.steps,
                cfg.train_seed + c,
                **(add_step if r == 1 else {}),
            )
            for c in range(n)
        ]
        head = candidates[0]
    if cfg.sensor_noise_steps and not task.spec.sensor_noise_std:
        log.info("%s documents no sensor noise: no sensor-noise stage", task.spec.name)
    elif cfg.sensor_noise_steps:  # named by its round: more rounds later make a new stage on the new head
        candidates = [
            trainer.train(
                h,
                h.with_name(h.name.replace(f"round_{cfg.rounds:02d}", f"round_{cfg.rounds:02d}_sensor_noise")),
                cfg.sensor_noise_steps,
                cfg.train_seed + c,
                sensor_noise_scale=1.0,
            )
            for c, h in enumerate(candidates)
        ]
    # round 1 measured the input head in the evaluation's physics, unless it imported another driver's labels
    comparable = settings["eval_physics"] == settings["physics"] and "head_sim_success_mean" in rounds[0]
    chosen, choice = _choose_head(
        task,
        candidates,
        cfg,
        eval_physics,
        progress,
        checkpoint,
        rounds[0]["head_sim_success_mean"] if comparable else None,
    )
    _write_final(
        chosen, out / "model", checkpoint, {"stage": "dagger", "dagger": settings, "trained_head": str(chosen)}
    )
    result = {
        "task": task.spec.name,
        "checkpoint": str(out / "model"),
        "rounds": rounds,
        "dagger_episodes": sum(len(episode_lengths(p)) for p in episode_files(data_dir)),
        **choice,
        "inputs": dagger_inputs(physics, eval_physics),
    }
    (out / "dagger_results.json").write_text(json.dumps(result, indent=2))
    return result


def _cached_evaluation(task, head: Path, cfg: DaggerConfig, physics, progress: bool) -> dict[str, float]:
    """evaluate_head, kept in HEAD/dagger_eval.json so that a resumed run does not evaluate again."""
    path = head / "dagger_eval.json"
    if not path.exists():
        path.write_text(json.dumps(evaluate_head(task, head, cfg, physics, progress)))
    return json.loads(path.read_text())
