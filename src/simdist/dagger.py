"""DAgger for the BC head, in simulation: the head drives, the privileged expert labels every state it reaches.

A head trained on expert data alone meets, under its own control, states the expert's data never shows (a slower
walk, a slipping foot) and its small errors compound there. Each round the current head drives in the task's `sim`
domain, the privileged expert, on the true state, says at every step what it would do, and the head alone is
retrained on all labels so far, half of each batch replayed from the simulation dataset so that it keeps the gait
it had. A last stage adds the task's documented sensor noise to the head's inputs (the authors' augmentation), so
that the head also copes with the robot's noisy sensors. On Slippery Slope (μ = 0.19) one round plus that stage
took the BC head alone from 0.80 to 0.87 in `real` (docs/results.md, session 17).

Only the policy head changes: encoder, dynamics, reward and value stay bit-identical. Episodes record the actions
the head executed (the history it sees when deployed) and the expert's labels as BC targets (`Episode.expert_action`):
a head that attends to past actions must not learn from a history of labels it never executed. Every stage
resumes: a rerun of the same command continues from the last written episode file and the last checkpoint.

The same loop refines the single-step BC baseline (a `simdist compare` BC checkpoint, `baselines.bc`): it drives,
the expert labels, it is retrained on the labels with the same simulation replay and the same two stages, so that
SimDist's DAgger head can be compared with a baseline given the same simulation-side help.
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from simdist import checkpoint as ckpt
from simdist.adapt import physics_setting, refuse_other_settings
from simdist.baselines.bc import BCLearner, dagger_labels, retrain_on_labels, sim_expert_transitions
from simdist.baselines.checkpoints import baseline_method, load_baseline_agent
from simdist.config import FinetuneConfig, LossConfig, parse_overrides, replace
from simdist.data.episodes import (DatasetError, DatasetInfo, Episode, create_dataset, episode_files,
                                   episode_lengths, load_episodes, read_episode_file, read_info, write_episodes)
from simdist.eval.rollout import PrivilegedAgent, episode_seed, rollout
from simdist.planning.agent import PolicyAgent
from simdist.progress import progress_bar
from simdist.train import default_device, finetune, load_windows

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DaggerConfig:
    """Defaults: the recipe of `checkpoints/quadruped-lowfric-dagger` (docs/results.md, sessions 17-18)."""

    rounds: int = 1
    episodes_per_grid: int = 40  # per round, on each of `grids`
    grids: tuple[str, ...] = ()  # the task's grids (the quadruped's speeds) when empty
    steps: int = 5000  # head-only training steps per round, on all DAgger labels so far
    sensor_noise_steps: int = 5000  # then with the task's sensor noise on the head's inputs; 0 = no such stage
    batch_size: int = 128
    lr: float = 1e-4
    lr_end: float = 5e-5
    warmup_steps: int = 100
    sim_replay_fraction: float = 0.5  # share of each batch from the simulation dataset
    # Episodes per grid on which the output head alone is evaluated in `sim` (same physics as the collection),
    # beside the input head's success that round 1's collection measures; 0 = no evaluation.
    eval_episodes_per_grid: int = 20
    seed: int = 100  # episodes: initial conditions, domain randomisation, expert noise
    train_seed: int = 0  # head training: batches and validation split
    # Heads trained in the last round (and its sensor-noise stage), with training seeds train_seed, train_seed + 1, …;
    # the one with the best `sim` evaluation becomes the output. The recipe's `real` score varies with its seed
    # (0.62-0.98 on the slope) and `sim` with the robot's sensor noise ranks the seeds (docs/results.md, session 18).
    candidates: int = 1
    # Width of a single-step BC head that round 1 adds beside a SimDist model's chunk head (ModelConfig.
    # policy_step_width; 0 = none): its action is the one deployed. On Foam an MLP on the frozen latent transfers
    # where the chunk head does not (docs/results.md, sessions 19-20).
    step_head_width: int = 0
    # Also train the head on windows that start in each DAgger episode's last T steps (TrainConfig.tail_windows):
    # the states before a fall. On Foam they lifted the step head alone from 0.18 to 0.62 (docs/results.md,
    # session 22). Off by default: the shipped slope head was trained without them.
    tail_windows: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "grids", tuple(self.grids))
        if min(self.rounds, self.episodes_per_grid, self.steps, self.candidates) < 1 or min(
                self.sensor_noise_steps, self.eval_episodes_per_grid) < 0:
            raise ValueError("DAgger needs rounds, episodes_per_grid, steps and candidates >= 1 and "
                             f"sensor_noise_steps, eval_episodes_per_grid >= 0: {self}")
        if self.step_head_width < 0:
            raise ValueError(f"step_head_width must be >= 0 (0: no single-step head), got {self.step_head_width}")
        if self.candidates > 1 and not self.eval_episodes_per_grid:
            raise ValueError("choosing among candidate heads needs their sim evaluation: eval_episodes_per_grid > 0")

    def head_finetune(self, steps: int) -> FinetuneConfig:
        """The policy head alone, on the BC term alone (the DAgger data has no reward or value)."""
        return FinetuneConfig(steps=steps, batch_size=self.batch_size, lr=self.lr, lr_end=self.lr_end,
                              warmup_steps=self.warmup_steps, trainable=("policy",),
                              loss=LossConfig(latent=0.0, reward=0.0, value=0.0, bc=1.0),
                              sim_replay_fraction=self.sim_replay_fraction, tail_windows=self.tail_windows)


def dagger_episode(task, env, head: PolicyAgent, expert: PrivilegedAgent, initial_condition, seed: int) -> Episode:
    """One episode driven by `head`: its executed actions (what the history and the dynamics see) and, at every
    step, the expert's action as the BC target (`Episode.expert_action`)."""
    spec = task.spec
    obs, _ = env.reset(seed=seed, options={"initial_condition": initial_condition})
    head.reset()
    expert.reset()
    seen: dict[str, list] = {g: [] for g in spec.obs_shapes}
    commands, actions, labels, infos = [], [], [], []
    for _ in range(spec.episode_steps):
        for g in spec.obs_shapes:
            seen[g].append(obs[g])
        if spec.command_dim:
            commands.append(obs["command"])
        labels.append(expert.act(obs))
        actions.append(np.asarray(head.act(obs), np.float32))
        obs, _, terminated, truncated, info = env.step(actions[-1])
        infos.append(info)
        if terminated or truncated:
            break
    metrics = task.episode_metrics(infos)
    return Episode(obs={g: np.asarray(v, np.float32) for g, v in seen.items()}, action=np.asarray(actions),
                   command=np.asarray(commands, np.float32) if spec.command_dim else None,
                   expert=np.ones(len(labels), bool), expert_action=np.asarray(labels, np.float32),
                   success=bool(metrics.get("success", 0.0)), source_policy="dagger", metrics=metrics)


def driving_agent(checkpoint: str | Path):
    """The policy DAgger refines: the BC head of a SimDist model, or a single-step BC baseline's policy."""
    if baseline_method(checkpoint):
        return load_baseline_agent(checkpoint)
    return PolicyAgent(ckpt.load_model(checkpoint))


def _collect_grid(task_name: str, head: str, data_dir: str, cfg: DaggerConfig, round_: int, k: int, physics,
                  progress: bool, threads: int | None = None) -> None:
    """Round `round_`'s episodes on grid k, written as one file (also the body of a worker process)."""
    from simdist.tasks import get_task

    if threads:
        torch.set_num_threads(threads)
    task, grid = get_task(task_name), cfg.grids[k]
    stream = (cfg.seed, round_, k)  # independent of every other round and grid
    env_seed, expert_seed, ic_seed = (episode_seed((*stream, part), 0) for part in (1, 2, 3))
    env = task.make_env("sim", physics, seed=env_seed)
    head_agent = driving_agent(head)
    expert = PrivilegedAgent(task.expert(), env, seed=expert_seed)
    ics = task.initial_conditions(grid, cfg.episodes_per_grid, seed=ic_seed)
    episodes = [dagger_episode(task, env, head_agent, expert, ic, episode_seed((*stream, 0), i))
                for i, ic in enumerate(progress_bar(ics, desc=f"DAgger round {round_}, {grid}", disable=not progress))]
    write_episodes(data_dir, episodes, name=_grid_file(round_, k, grid))


def _grid_file(round_: int, k: int, grid: str) -> str:
    return f"r{round_:02d}_{k}_{grid}"


def collect_round(task, head: str | Path, data_dir: Path, cfg: DaggerConfig, round_: int, physics=None,
                  progress: bool = True, workers: int = 1) -> dict[str, float]:
    """Round `round_`'s DAgger episodes, driven by the BC head of checkpoint `head`: one file per grid (a grid
    already written is kept), grids in up to `workers` processes. Returns the driving head's success per grid,
    an on-policy measure in `sim` that each round gets for free."""
    written = {p.stem for p in episode_files(data_dir)}
    todo = [k for k, grid in enumerate(cfg.grids) if _grid_file(round_, k, grid) not in written]
    args = (task.spec.name, str(head), str(data_dir), cfg, round_)
    if workers > 1 and len(todo) > 1:
        with ProcessPoolExecutor(min(workers, len(todo)), mp_context=mp.get_context("spawn")) as pool:
            for job in [pool.submit(_collect_grid, *args, k, physics, False, 1) for k in todo]:
                job.result()  # a worker's error surfaces here
    else:
        for k in todo:
            _collect_grid(*args, k, physics, progress)
    info, success = read_info(data_dir), {}
    for k, grid in enumerate(cfg.grids):
        episodes = read_episode_file(data_dir / "episodes" / f"{_grid_file(round_, k, grid)}.h5", info)
        success[grid] = float(np.mean([e.success for e in episodes]))
        log.info("round %d, %s: %d episodes, %d steps, head success in sim %.2f", round_, grid, len(episodes),
                 sum(len(e) for e in episodes), success[grid])
    return success


def import_labels(source: str | Path, data_dir: Path) -> None:
    """Round 1's labels from another driver's DAgger data (e.g. `simdist dagger` on the single-step BC baseline,
    its OUT/dagger_data): each episode file is copied in as a round-1 file (atomically; a resumed run copies only
    what is missing), and the head's own rounds follow."""
    import shutil

    src, own = read_info(source), read_info(data_dir)
    key = lambda i: (i.task, i.obs_shapes, i.action_dim, i.command_dim)  # noqa: E731
    if key(src) != key(own):
        raise DatasetError(f"initial labels {source} are for task/observations/actions {key(src)}, this DAgger run "
                           f"for {key(own)}")
    files = episode_files(source)
    if not files:
        raise DatasetError(f"initial labels {source} hold no episode files")
    for f in files:
        target = data_dir / "episodes" / (f.name if f.name.startswith("r01_") else f"r01_{f.name}")
        if not target.exists():
            shutil.copy2(f, target.with_name(target.name + ".tmp"))
            target.with_name(target.name + ".tmp").rename(target)
    log.info("round 1: %d episodes of DAgger labels from %s", sum(len(episode_lengths(f)) for f in files), source)


def evaluate_head(task, checkpoint: str | Path, cfg: DaggerConfig, physics=None,
                  progress: bool = True) -> dict[str, float]:
    """Success of `checkpoint`'s BC head alone in `sim` (`physics`) on every grid, on episodes no collection round
    uses; every candidate head meets the same episodes."""
    head, success = driving_agent(checkpoint), {}
    for k, grid in enumerate(cfg.grids):
        stream = (cfg.seed, 0, k)  # round 0: never collected
        env = task.make_env("sim", physics, seed=episode_seed((*stream, 1), 0))
        ics = task.initial_conditions(grid, cfg.eval_episodes_per_grid, seed=episode_seed((*stream, 3), 0))
        success[grid] = rollout(task, env, head, ics, seed=(*stream, 0), progress=progress).summary(
            task.spec.control_period_s)["success_rate"]
        log.info("the DAgger head alone in sim, %s: success %.2f", grid, success[grid])
    return success


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


def dagger(task, checkpoint: str | Path, sim_data: str | Path, out: str | Path, cfg: DaggerConfig = DaggerConfig(),
           physics=None, device: torch.device | None = None, progress: bool = True, workers: int = 1,
           eval_physics=None, initial_labels: str | Path | None = None) -> dict:
    """Run (or resume) DAgger for `checkpoint`'s BC head; the result is the checkpoint OUT/model. `workers`
    processes collect the grids of a round in parallel; `eval_physics` (default: `physics`) is the `sim` physics in
    which the output head, or each candidate head, is evaluated (e.g. with the robot's sensor noise switched on).
    `initial_labels` (a DAgger dataset) replaces round 1's collection: the head first learns the states another
    driver reached (Foam: single-step BC's, docs/results.md session 23), then drives itself from round 2."""
    out, device = Path(out), device or default_device()
    spec, method = task.spec, baseline_method(checkpoint)
    if method not in (None, "bc"):
        raise ValueError(f"simdist dagger refines a SimDist model's BC head or the single-step BC baseline ('bc'); "
                         f"{checkpoint} holds a {method!r} checkpoint")
    base = None if method else ckpt.load_model(checkpoint)
    if method and cfg.step_head_width:
        raise ValueError("step_head_width adds a single-step head to a SimDist model's BC head; the single-step BC "
                         f"baseline {checkpoint} is one already")
    add_step = {} if method or cfg.step_head_width in (0, base.cfg.policy_step_width) else \
        {"policy_step_width": cfg.step_head_width}
    if not cfg.grids:
        cfg = replace(cfg, grids=tuple(task.grids))
    eval_physics = physics if eval_physics is None else eval_physics
    settings = {"dagger": asdict(cfg), "checkpoint": str(checkpoint), "sim_data": str(sim_data),
                "physics": physics_setting(physics), "eval_physics": physics_setting(eval_physics),
                "initial_labels": None if initial_labels is None else str(initial_labels)}
    out.mkdir(parents=True, exist_ok=True)
    refuse_other_settings(out / "dagger_config.json", settings, may_change=("dagger.rounds",),
                          recorded_since=("dagger.train_seed", "dagger.eval_episodes_per_grid", "dagger.candidates",
                                          "dagger.step_head_width", "dagger.tail_windows", "eval_physics",
                                          "initial_labels"))
    (out / "dagger_config.json").write_text(json.dumps(settings, indent=2))
    data_dir = out / "dagger_data"
    create_dataset(data_dir, DatasetInfo(task=spec.name, domain="sim", control_period_s=spec.control_period_s,
                                         obs_shapes=spec.obs_shapes, action_dim=spec.action_dim,
                                         command_dim=spec.command_dim, action_low=spec.action_low,
                                         action_high=spec.action_high,
                                         notes=f"DAgger: the BC head of {checkpoint} (then of each round's model) "
                                               "drives in sim; `action` is what it executed, `expert_action` the "
                                               "privileged expert's label (simdist dagger)"))
    replay = functools.cache(  # built at the first training only
        lambda: (sim_expert_transitions(sim_data) if method
                 else load_windows(sim_data, base.cfg, device, cfg.tail_windows)))

    def train(start: Path, model_dir: Path, steps: int, seed: int, **overrides) -> Path:
        if not (model_dir / "done").exists():
            log.info("training the BC head %d steps (seed %d%s) on %d DAgger files", steps, seed,
                     ", with the sensor noise on its inputs" if "sensor_noise_scale" in overrides else "",
                     len(episode_files(data_dir)))
            if method:  # the single-step BC baseline, with the same replay share, steps and learning rates
                retrain_on_labels(start, dagger_labels(load_episodes(data_dir)[1]), replay(), model_dir, steps=steps,
                                  lr=cfg.lr, lr_end=cfg.lr_end, batch_size=cfg.batch_size,
                                  replay_fraction=cfg.sim_replay_fraction, seed=seed, **overrides)
            else:
                finetune(start, data_dir, model_dir, replace(cfg.head_finetune(steps), seed=seed), device=device,
                         progress=progress, sim_data=replay(), model_overrides=overrides)
            (model_dir / "done").write_text("ok\n")
        return model_dir

    head, rounds, candidates = Path(checkpoint), [], []
    for r in range(1, cfg.rounds + 1):
        if r == 1 and initial_labels is not None:
            import_labels(initial_labels, data_dir)
            rounds.append({"round": r, "initial_labels": str(initial_labels)})
        else:
            success = collect_round(task, head, data_dir, cfg, r, physics, progress, workers)
            rounds.append({"round": r, "driving_head": str(head), "head_sim_success": success,
                           "head_sim_success_mean": float(np.mean(list(success.values())))})
        n = cfg.candidates if r == cfg.rounds else 1  # the last round trains every candidate head
        candidates = [train(head, out / f"round_{r:02d}{f'_c{c}' if c else ''}", cfg.steps, cfg.train_seed + c,
                            **(add_step if r == 1 else {}))
                      for c in range(n)]
        head = candidates[0]
    if cfg.sensor_noise_steps and not spec.sensor_noise_std:
        log.info("%s documents no sensor noise: no sensor-noise stage", spec.name)
    elif cfg.sensor_noise_steps:  # named by its round: more rounds later make a new stage on the new head
        candidates = [train(h, h.with_name(h.name.replace(f"round_{cfg.rounds:02d}",
                                                          f"round_{cfg.rounds:02d}_sensor_noise")),
                            cfg.sensor_noise_steps, cfg.train_seed + c, sensor_noise_scale=1.0)
                      for c, h in enumerate(candidates)]
    result = {"task": spec.name, "checkpoint": str(out / "model"), "rounds": rounds,
              "dagger_episodes": sum(len(episode_lengths(p)) for p in episode_files(data_dir))}
    chosen = candidates[0]
    if cfg.eval_episodes_per_grid:
        scores = [_cached_evaluation(task, h, cfg, eval_physics, progress) for h in candidates]
        means = [float(np.mean(list(sc.values()))) for sc in scores]
        best = int(np.argmax(means))  # the first of equals: candidate 0 is the single-head recipe
        chosen = candidates[best]
        result.update(final_head_sim_success=scores[best], final_head_sim_success_mean=means[best],
                      candidates=[{"head": str(h), "sim_success_mean": m} for h, m in zip(candidates, means)])
        # round 1 measured the input head there, unless it imported another driver's labels
        comparable = settings["eval_physics"] == settings["physics"] and "head_sim_success_mean" in rounds[0]
        if comparable and means[best] < rounds[0]["head_sim_success_mean"]:
            log.warning("the DAgger head succeeds in %.2f of its sim episodes, the input head in %.2f: it is worse "
                        "here; keep %s (docs/results.md, session 18: DAgger on Peg Insertion)",
                        means[best], rounds[0]["head_sim_success_mean"], checkpoint)
    _write_final(chosen, out / "model", checkpoint,
                 {"stage": "dagger", "dagger": settings, "trained_head": str(chosen)})
    (out / "dagger_results.json").write_text(json.dumps(result, indent=2))
    return result


def _cached_evaluation(task, head: Path, cfg: DaggerConfig, physics, progress: bool) -> dict[str, float]:
    """evaluate_head, kept in HEAD/dagger_eval.json so that a resumed run does not evaluate again."""
    path = head / "dagger_eval.json"
    if not path.exists():
        path.write_text(json.dumps(evaluate_head(task, head, cfg, physics, progress)))
    return json.loads(path.read_text())


def cmd_dagger(args) -> dict:
    from simdist.tasks import get_task

    cfg = DaggerConfig(**parse_overrides(DaggerConfig, args.set or []))
    if args.rounds is not None:
        cfg = replace(cfg, rounds=args.rounds)
    if args.episodes_per_grid is not None:
        cfg = replace(cfg, episodes_per_grid=args.episodes_per_grid)
    if args.grid:
        cfg = replace(cfg, grids=tuple(args.grid))
    return dagger(get_task(args.task), args.checkpoint, args.sim_data, args.out, cfg, physics=args.physics,
                  progress=not args.quiet, workers=args.workers, eval_physics=args.eval_physics,
                  initial_labels=args.initial_labels)


def add_dagger_command(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add `simdist dagger TASK --checkpoint CKPT --sim-data SIM --out DIR` to the CLI's subparsers."""
    help_text = ("DAgger for the BC head in sim (the head drives, the privileged expert labels), then the task's "
                 "sensor-noise augmentation; writes OUT/model; resumable")
    sp = subparsers.add_parser("dagger", help=help_text, description=help_text)
    sp.set_defaults(fn=cmd_dagger)
    sp.add_argument("task")
    sp.add_argument("--checkpoint", required=True, help="pretrained world model whose BC head is refined, or a "
                    "single-step BC baseline checkpoint (simdist compare writes METHOD/seed_S/checkpoint)")
    sp.add_argument("--sim-data", required=True, help="its simulation dataset, replayed in every head update")
    sp.add_argument("--out", required=True)
    sp.add_argument("--rounds", type=int, help=f"DAgger rounds (default {DaggerConfig.rounds})")
    sp.add_argument("--episodes-per-grid", type=int, help=f"per round and grid (default {DaggerConfig.episodes_per_grid})")
    sp.add_argument("--grid", action="append", help="collect on this grid only (repeatable; default: every grid)")
    sp.add_argument("--physics", help="JSON/YAML override of the sim physics the head drives in")
    sp.add_argument("--eval-physics", help="sim physics of the output head's evaluation (default: --physics), e.g. "
                    "with the robot's sensor noise on; with --set candidates=N it chooses the head")
    sp.add_argument("--workers", type=int, default=1, help="processes collecting a round's grids in parallel")
    sp.add_argument("--initial-labels", metavar="DIR", help="round 1 is this DAgger dataset (e.g. a `simdist dagger` "
                    "run on the single-step BC baseline, its OUT/dagger_data) instead of the head's own collection")
    sp.add_argument("--set", action="append", metavar="FIELD=VALUE",
                    help="override a DaggerConfig field (repeatable), e.g. sensor_noise_steps=0")
    sp.add_argument("--json", action="store_true", help="print one JSON object as the last line of stdout")
    sp.add_argument("--quiet", action="store_true", help="no progress bars")
    return sp
