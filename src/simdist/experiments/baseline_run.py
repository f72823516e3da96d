"""Run a baseline in a task's `real` domain under a real-data budget, with `simdist adapt`'s protocol.

Protocol (as `simdist.adaptation.adapt`): round j deploys the current policy on the task's M fixed evaluation initial
conditions; those episodes are both round j's evaluation point (success rate, cumulative real minutes) and
new real data. Online methods (IQL, RLPD, SGFT) update after every `episodes_per_update` episodes, so with
`episodes_per_update = M` the schedule is exactly SimDist's; with 1 it is the paper's "updated after every
episode". Offline methods (BC, Diffusion Policy) are deployed for one round: the paper's horizontal lines.

Settings (paper §8): a task with commands is "quadruped" (reward = SimDist's learned reward model, RL
starts from the single-step BC policy, no demonstrations); otherwise "manipulation" (sparse success reward,
20 teleoperated demonstrations, 100 for Diffusion Policy). Demonstrations come from the task's privileged
teleoperator stand-in in the real domain, on initial conditions disjoint from the evaluation ones.
"""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from simdist.adaptation.adapt import AdaptConfig, adapt
from simdist.adaptation.demonstrations import run_demonstrations, write_real_episodes
from simdist.adaptation.rounds import physics_setting, round_initial_conditions
from simdist.baselines.bc import BCLearner
from simdist.baselines.common import spec_of
from simdist.baselines.learners import LearnerSetup, label_key, reward_function
from simdist.baselines.replay import TransitionBuffer, observation_stats
from simdist.config import model_preset_for, with_steps
from simdist.data.episodes import Episode, load_episodes, read_info
from simdist.experiments.baseline_settings import (
    DEMO_METHODS,
    DIFFUSION_DEMOS,
    DIFFUSION_METHODS,
    MANIPULATION_DEMOS,
    METHODS,
    OFFLINE_METHODS,
    START_POLICY_METHODS,
    WORLD_MODEL_METHODS,
    BaselineRunConfig,
)
from simdist.experiments.memory import release_freed_memory
from simdist.experiments.simdist_bc import run_simdist_bc
from simdist.planning.settings import MPPIConfig, task_planner
from simdist.rollout import rollout
from simdist.tasks import get_task
from simdist.training.finetune import task_finetune

log = logging.getLogger(__name__)
RESULTS_FILE = "baseline_results.json"


def _setting(task) -> str:
    return "quadruped" if task.spec.command_dim else "manipulation"


def _default_demos(method: str, setting: str) -> int:
    """Only the methods that use demonstrations get them (BC and SGFT learn from simulation alone)."""
    if method in DIFFUSION_METHODS:
        return DIFFUSION_DEMOS
    return MANIPULATION_DEMOS if setting == "manipulation" and method in DEMO_METHODS else 0


def _minutes(episodes: list[Episode], period: float) -> float:
    return sum(len(e) for e in episodes) * period / 60.0


def _mean_metrics(metrics: list[dict]) -> dict[str, float]:
    """Each task metric (success, the quadruped's progress_m, ...) averaged over a round's episodes."""
    return {k: float(np.mean([m.get(k, 0.0) for m in metrics])) for k in sorted({k for m in metrics for k in m})}


def _finished(out: Path, settings: dict) -> dict | None:
    """The result of a run already completed in `out` with the same settings (so an interrupted `simdist compare`
    reruns only what is missing); an error if `out` holds a run with other settings."""
    path = out / RESULTS_FILE
    if not path.exists():
        return None
    previous = json.loads(path.read_text())
    differ = sorted(k for k, v in settings.items() if json.dumps(previous.get(k)) != json.dumps(v))
    if differ:
        raise ValueError(
            f"{out} holds a finished run with other settings ({', '.join(differ)}); choose another --out or remove it"
        )
    log.info("%s seed %d: reusing the finished run in %s", settings["method"], settings["seed"], out)
    return previous


def _rounds_result(rows: list[dict], extra: dict) -> dict:
    return {
        **extra,
        "rounds": rows,
        "zero_shot_success": rows[0]["success_rate"],
        "final_success": rows[-1]["success_rate"],
        "real_minutes": rows[-1]["real_minutes"],
    }


@dataclass(frozen=True)
class _Run:
    """What every phase of one baseline run needs (one method, one seed, one output folder)."""

    method: str
    task: Any
    out: Path
    meta: dict
    seed: int
    grid: str
    episodes_per_round: int
    rounds: int
    demo_eps: list
    progress: bool
    physics: Any

    def write(self, rows: list[dict]) -> dict:
        result = _rounds_result(rows, self.meta)
        (self.out / RESULTS_FILE).write_text(json.dumps(result, indent=2))
        return result

    def real_env_and_conditions(self):
        """The `real` environment and the round's fixed evaluation initial conditions (as `simdist adapt`)."""
        env = self.task.make_env("real", self.physics, seed=self.seed)
        return env, round_initial_conditions(self.task, self.grid, self.episodes_per_round, seed=self.seed)[0]

    def row(self, j: int, episodes: list[Episode], metrics: list[dict], minutes: float) -> dict:
        """Round j's evaluation point; `minutes` is all real data so far (this round's, earlier rounds', demos)."""
        return {
            "round": j,
            "episodes": len(episodes),
            "real_minutes": minutes + self.meta["demo_minutes"],
            "success_rate": float(np.mean([m.get("success", 0.0) for m in metrics])),
            "successes": [bool(m.get("success", 0.0)) for m in metrics],
            "metrics": _mean_metrics(metrics),
        }


def _check_arguments(
    method: str,
    real_episode_budget: int,
    episodes_per_update: int,
    episodes_per_round: int,
    start_policy: str | Path | None,
    seed: int,
) -> Path | None:
    """Refuse a bad request before anything runs; returns `start_policy` with its "{seed}" filled in."""
    if method not in METHODS:
        raise KeyError(f"unknown baseline {method!r}; valid methods: {list(METHODS)}")
    if episodes_per_update < 1 or episodes_per_round < 1 or real_episode_budget < 1:
        raise ValueError("real_episode_budget, episodes_per_update and episodes_per_round must be positive")
    if start_policy is None:
        return None
    start_policy = Path(str(start_policy).replace("{seed}", str(seed)))
    if method not in START_POLICY_METHODS:
        raise ValueError(
            f"start_policy is a single-step BC policy for {list(START_POLICY_METHODS)} to start "
            f"from; {method!r} does not take one"
        )
    if not (start_policy / "config.json").exists():
        raise FileNotFoundError(
            f"start_policy {start_policy} is not a saved policy (no config.json); "
            "`simdist compare --methods bc` and `simdist dagger` write them"
        )
    return start_policy


def _deciding(settings: dict, method: str) -> dict:
    """Only the settings that decide `method`'s result (a finished run with the same ones is reused): offline
    methods are trained and evaluated once (no real-data budget, no world model); only world-model methods plan."""
    drop = set()
    if method in OFFLINE_METHODS:
        drop |= {"real_episode_budget", "episodes_per_update", "checkpoint"}
    if method not in WORLD_MODEL_METHODS:
        drop |= {"prior_weight", "mppi", "mppi_set", "finetune_steps"}
    return {k: v for k, v in settings.items() if k not in drop}


def run_baseline(
    method: str,
    task,
    sim_data_dir: str | Path,
    out_dir: str | Path,
    cfg: BaselineRunConfig = BaselineRunConfig(),
    seed: int = 0,
    progress: bool = False,
) -> dict:
    """Train/adapt `method` and evaluate it per round in the real domain; writes `baseline_results.json`.

    `cfg.overrides` replaces config fields of the method (and of its BC initialisation) by name; the fields below
    are `cfg`'s.
    `checkpoint` (a SimDist model) is needed for SimDist, SimDist+BC and the quadruped's learned reward;
    `mppi` names their planner's MPPI preset (default: the model preset's), `prior_weight` its BC-chunk prior λ,
    `mppi_set` overrides further MPPIConfig fields ("FIELD=VALUE"), and `finetune_steps` their finetune preset's
    steps. `physics` overrides the real domain's physics (a
    file or a dict, as `simdist evaluate --physics`) for every episode of the run, demonstrations included.
    `start_policy` (BC, IQL, RLPD) is a saved single-step BC policy, e.g. `simdist dagger`'s output for a BC
    checkpoint ("{seed}" in it becomes the seed): BC deploys it as it is, IQL and RLPD start their actor from it
    instead of from a BC policy trained on the simulation data (or, in manipulation, a fresh actor).
    """
    real_episode_budget, episodes_per_update, episodes_per_round = (
        cfg.real_episode_budget,
        cfg.episodes_per_update,
        cfg.episodes_per_round,
    )
    grid, preset, demos, checkpoint, overrides = cfg.grid, cfg.preset, cfg.demos, cfg.checkpoint, cfg.overrides
    prior_weight, mppi, mppi_set, physics = cfg.prior_weight, cfg.mppi, cfg.mppi_set, cfg.physics
    start_policy = _check_arguments(
        method, real_episode_budget, episodes_per_update, episodes_per_round, cfg.start_policy, seed
    )
    task = get_task(task) if isinstance(task, str) else task
    torch.manual_seed(seed)
    out, overrides, spec = Path(out_dir), dict(overrides or {}), spec_of(task.spec)
    settings = {
        "method": method,
        "task": task.spec.name,
        "seed": seed,
        "preset": preset,
        "sim_data": str(Path(sim_data_dir)),
        "real_episode_budget": real_episode_budget,
        "episodes_per_update": episodes_per_update,
        "episodes_per_round": episodes_per_round,
        "grid": grid,
        "demos_asked": demos,
        "checkpoint": None if checkpoint is None else str(Path(checkpoint)),
        "overrides": overrides,
        "prior_weight": prior_weight,
        "mppi": mppi,
        "finetune_steps": cfg.finetune_steps,
        "physics": physics_setting(physics),
    }
    if start_policy is not None:  # recorded only when given: runs from before it existed stay reusable
        settings["start_policy"] = str(start_policy)
    if mppi_set:  # likewise
        settings["mppi_set"] = list(mppi_set)
    settings = _deciding(settings, method)
    previous = _finished(out, settings)
    if previous is not None:
        return previous
    out.mkdir(parents=True, exist_ok=True)
    if method not in WORLD_MODEL_METHODS and (out / "real_data").exists():  # (adapt resumes its own)
        aside = out / f"real_data.interrupted-{time.time_ns()}"
        (out / "real_data").rename(aside)
        log.warning(
            "%s seed %d: an interrupted run's episodes moved to %s; starting the seed again", method, seed, aside
        )
    info = read_info(sim_data_dir)
    if dict(info.obs_shapes) != dict(spec.obs_shapes) or info.action_dim != spec.action_dim:
        raise ValueError(f"simulation dataset {sim_data_dir} does not match task {task.spec.name!r}")
    setting = _setting(task)
    n_demos = demos if demos is not None else _default_demos(method, setting)
    demo_eps = run_demonstrations(task, n_demos, grid, seed, out / "demos", physics=physics)
    meta = {
        **settings,
        "setting": setting,
        "demos": len(demo_eps),
        "demo_minutes": _minutes(demo_eps, task.spec.control_period_s),
    }
    run = _Run(
        method,
        task,
        out,
        meta,
        seed,
        grid,
        episodes_per_round,
        max(1, math.ceil(real_episode_budget / episodes_per_round)),
        demo_eps,
        progress,
        physics,
    )
    if method in WORLD_MODEL_METHODS:
        return _run_world_model(run, sim_data_dir, cfg)
    learn = LearnerSetup(spec, preset, task.spec.gamma, seed, overrides, setting)
    if method in OFFLINE_METHODS:
        return _run_offline(run, learn, sim_data_dir, start_policy)
    return _run_online(run, learn, sim_data_dir, checkpoint, start_policy, real_episode_budget, episodes_per_update)


def world_model_planner(task, cfg: BaselineRunConfig) -> MPPIConfig:
    """The planner of SimDist and SimDist+BC's runs: `cfg.mppi` (default: the model preset's) with `cfg.mppi_set`
    and `cfg.prior_weight`, then the task's planner_overrides."""
    return task_planner(task, cfg.mppi or model_preset_for(task, cfg.preset), cfg.mppi_set, cfg.prior_weight)


def _run_world_model(run: _Run, sim_data_dir, cfg: BaselineRunConfig) -> dict:
    """SimDist and SimDist+BC: Alg. 1 under the same budget (J + 1 evaluation rounds of M episodes, J finetunes)."""
    checkpoint, finetune_steps = cfg.checkpoint, cfg.finetune_steps
    if checkpoint is None:
        raise ValueError(f"{run.method} needs a pretrained SimDist checkpoint (checkpoint=...)")
    name = model_preset_for(run.task, cfg.preset)
    planner = world_model_planner(run.task, cfg)
    cfg = AdaptConfig(rounds=run.rounds - 1, episodes_per_round=run.episodes_per_round, grid=run.grid, seed=run.seed)
    ft = task_finetune(run.task, name)
    if finetune_steps:
        ft = with_steps(ft, finetune_steps)
    if run.method == "simdist":
        adapted = adapt(
            run.task,
            checkpoint,
            run.out,
            cfg,
            planner,
            ft,
            physics=run.physics,
            progress=run.progress,
            sim_data=sim_data_dir,
        )
    else:
        adapted = run_simdist_bc(
            run.task,
            checkpoint,
            run.out,
            run.demo_eps,
            cfg,
            planner,
            ft,
            run.progress,
            sim_data=sim_data_dir,
            physics=run.physics,
        )
    result = {**run.meta, **adapted, "method": run.method}
    (run.out / RESULTS_FILE).write_text(json.dumps(result, indent=2))
    return result


def _run_offline(run: _Run, learn: LearnerSetup, sim_data_dir, start_policy) -> dict:
    """BC and Diffusion Policy: trained once, deployed for one round (the paper's horizontal lines)."""
    env, ics = run.real_env_and_conditions()
    if run.method == "bc" and start_policy is not None:  # deployed as it is: needs no simulation data
        learner = BCLearner.load(start_policy)
    else:
        _, sim_eps = load_episodes(sim_data_dir)
        sim_stats = observation_stats(sim_eps)
        learner = (
            learn.train_bc(sim_eps, sim_stats)
            if run.method == "bc"
            else learn.train_diffusion(sim_eps, sim_stats, run.demo_eps, run.method == "dp_cotrain")
        )
    res = rollout(run.task, env, learner.agent(), ics, seed=run.seed, progress=run.progress, source=run.method)
    write_real_episodes(run.out / "real_data", run.task, res.episodes, "r00_e", f"{run.method} evaluation")
    learner.save(run.out / "checkpoint")
    return run.write([run.row(0, res.episodes, res.metrics, _minutes(res.episodes, run.task.spec.control_period_s))])


def _run_online(
    run: _Run, learn: LearnerSetup, sim_data_dir, checkpoint, start_policy, budget: int, episodes_per_update: int
) -> dict:
    """IQL, RLPD, SGFT: deploy with exploration, update after every `episodes_per_update` episodes."""
    env, ics = run.real_env_and_conditions()
    _, sim_eps = load_episodes(sim_data_dir)
    reward_fn = reward_function(learn.setting, checkpoint)
    labels_key = None if learn.setting == "manipulation" else label_key(sim_data_dir, checkpoint)
    learner, sampler, shape = learn.online(
        run.method, sim_eps, observation_stats(sim_eps), run.demo_eps, reward_fn, start_policy, labels_key
    )
    del sim_eps  # the learner holds what it needs as transitions; the episodes are as large again
    release_freed_memory()
    rng, period = np.random.default_rng(run.seed), run.task.spec.control_period_s
    rows, real_eps, budget_left = [], [], budget
    for j in range(run.rounds):
        round_ics = ics[: min(run.episodes_per_round, budget_left)]
        round_eps, round_metrics = [], []
        for start in range(0, len(round_ics), episodes_per_update):
            chunk = round_ics[start : start + episodes_per_update]
            res = rollout(
                run.task,
                env,
                learner.agent(explore=True),
                chunk,
                seed=(run.seed, j),
                first_index=start,
                progress=run.progress,
                source=f"{run.method}-round-{j}",
            )
            write_real_episodes(
                run.out / "real_data", run.task, res.episodes, f"r{j:02d}_e{start:03d}", f"{run.method} rollouts"
            )
            round_eps += res.episodes
            round_metrics += res.metrics
            new = shape(TransitionBuffer.from_episodes(res.episodes, reward_fn))
            sampler.add_online(new)
            info = learner.train_round(sampler, len(new), rng)
            log.debug("%s round %d after %d episodes: %s", run.method, j, start + len(chunk), info)
        budget_left -= len(round_eps)
        real_eps += round_eps
        rows.append(run.row(j, round_eps, round_metrics, _minutes(real_eps, period)))
        log.info(
            "%s round %d: success %.2f after %.1f real minutes",
            run.method,
            j,
            rows[-1]["success_rate"],
            rows[-1]["real_minutes"],
        )
    learner.save(run.out / "checkpoint")
    return run.write(rows)
