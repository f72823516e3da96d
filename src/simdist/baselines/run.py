"""Run a baseline in a task's `real` domain under a real-data budget, with `simdist adapt`'s protocol.

Protocol (as `simdist.adapt`): round j deploys the current policy on the task's M fixed evaluation initial
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
from pathlib import Path
from typing import Any

import numpy as np
import torch

from simdist.baselines.bc import BCConfig, BCLearner
from simdist.baselines.common import set_normalizer_stats, spec_of
from simdist.baselines.diffusion_policy import ChunkDataset, DiffusionConfig, DiffusionLearner
from simdist.baselines.iql import IQLConfig, IQLLearner
from simdist.baselines.replay import (SymmetricSampler, TransitionBuffer, cached_transitions, concat_batches,
                                      observation_stats, sparse_success, world_model_reward)
from simdist.baselines.rlpd import SACConfig, SACLearner
from simdist.baselines.sgft import SGFTConfig, SGFTLearner, SimValue
from simdist.baselines.demonstrations import run_demonstrations, write_real_episodes
from simdist.data.episodes import Episode, load_episodes, read_info
from simdist.eval.rollout import rollout
from simdist.memory import release_freed_memory
from simdist.tasks.base import COMMAND_KEY

log = logging.getLogger(__name__)
ONLINE_METHODS = ("iql", "rlpd", "sgft")
DIFFUSION_METHODS = ("dp", "dp_cotrain")  # Diffusion Policy, without and with sim co-training
OFFLINE_METHODS = ("bc", *DIFFUSION_METHODS)
WORLD_MODEL_METHODS = ("simdist", "simdist_bc")  # Alg. 1 from a pretrained SimDist checkpoint
METHODS = (*WORLD_MODEL_METHODS, *OFFLINE_METHODS, *ONLINE_METHODS)
DEMO_METHODS = ("iql", "rlpd", "simdist_bc")  # paper §8: the 20 teleoperated demonstrations
DEMO_USERS = (*DEMO_METHODS, *DIFFUSION_METHODS)  # Diffusion Policy learns from demonstrations alone
START_POLICY_METHODS = ("bc", "iql", "rlpd")  # single-step BC, and the RL methods that start from it
MANIPULATION_DEMOS, DIFFUSION_DEMOS = 20, 100  # paper §8
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
        raise ValueError(f"{out} holds a finished run with other settings ({', '.join(differ)}); "
                         "choose another --out or remove it")
    log.info("%s seed %d: reusing the finished run in %s", settings["method"], settings["seed"], out)
    return previous


def _rounds_result(rows: list[dict], extra: dict) -> dict:
    return {**extra, "rounds": rows, "zero_shot_success": rows[0]["success_rate"],
            "final_success": rows[-1]["success_rate"], "real_minutes": rows[-1]["real_minutes"]}


def _preset(cls, preset: str, gamma: float, seed: int, overrides: dict[str, Any]):
    fields = {k: v for k, v in overrides.items() if k in cls.__dataclass_fields__}
    return cls.preset(preset, gamma=gamma, seed=seed, **fields)


def _train_bc(spec, sim_eps: list[Episode], sim_stats: dict, preset: str, gamma: float, seed: int,
              overrides: dict) -> BCLearner:
    bc = BCLearner(spec, _preset(BCConfig, preset, gamma, seed, overrides))
    set_normalizer_stats([bc.actor], sim_stats)
    bc.train(TransitionBuffer.from_episodes(sim_eps, sparse_success, expert_only=True))
    return bc


def run_baseline(method: str, task, sim_data_dir: str | Path, out_dir: str | Path, real_episode_budget: int = 40,
                 episodes_per_update: int = 1, seed: int = 0, preset: str = "cpu", *, episodes_per_round: int = 20,
                 grid: str = "default", demos: int | None = None, checkpoint: str | Path | None = None,
                 overrides: dict[str, Any] | None = None, progress: bool = False,
                 prior_weight: float | None = None, mppi: str | None = None,
                 finetune_steps: int | None = None, physics: str | Path | dict | None = None,
                 start_policy: str | Path | None = None) -> dict:
    """Train/adapt `method` and evaluate it per round in the real domain; writes `baseline_results.json`.

    `overrides` replaces config fields of the method (and of its BC initialisation) by name.
    `checkpoint` (a SimDist model) is needed for SimDist, SimDist+BC and the quadruped's learned reward;
    `mppi` names their planner's MPPI preset (default: the model preset's), `prior_weight` its BC-chunk prior λ, and
    `finetune_steps` overrides their finetune preset's steps. `physics` overrides the real domain's physics (a
    file or a dict, as `simdist evaluate --physics`) for every episode of the run, demonstrations included.
    `start_policy` (BC, IQL, RLPD) is a saved single-step BC policy, e.g. `simdist dagger`'s output for a BC
    checkpoint ("{seed}" in it becomes the seed): BC deploys it as it is, IQL and RLPD start their actor from it
    instead of from a BC policy trained on the simulation data (or, in manipulation, a fresh actor).
    """
    from simdist.adapt import physics_setting, round_initial_conditions
    from simdist.tasks import get_task

    if method not in METHODS:
        raise KeyError(f"unknown baseline {method!r}; valid methods: {list(METHODS)}")
    if episodes_per_update < 1 or episodes_per_round < 1 or real_episode_budget < 1:
        raise ValueError("real_episode_budget, episodes_per_update and episodes_per_round must be positive")
    if start_policy is not None:
        start_policy = Path(str(start_policy).replace("{seed}", str(seed)))
        if method not in START_POLICY_METHODS:
            raise ValueError(f"start_policy is a single-step BC policy for {list(START_POLICY_METHODS)} to start "
                             f"from; {method!r} does not take one")
        if not (start_policy / "config.json").exists():
            raise FileNotFoundError(f"start_policy {start_policy} is not a saved policy (no config.json); "
                                    "`simdist compare --methods bc` and `simdist dagger` write them")
    task = get_task(task) if isinstance(task, str) else task
    torch.manual_seed(seed)
    out, overrides, spec, period = Path(out_dir), dict(overrides or {}), spec_of(task.spec), task.spec.control_period_s
    settings = {"method": method, "task": task.spec.name, "seed": seed, "preset": preset,
                "sim_data": str(Path(sim_data_dir)),
                "real_episode_budget": real_episode_budget, "episodes_per_update": episodes_per_update,
                "episodes_per_round": episodes_per_round, "grid": grid, "demos_asked": demos,
                "checkpoint": None if checkpoint is None else str(Path(checkpoint)), "overrides": overrides,
                "prior_weight": prior_weight, "mppi": mppi, "finetune_steps": finetune_steps,
                "physics": physics_setting(physics)}
    if start_policy is not None:  # recorded only when given: runs from before it existed stay reusable
        settings["start_policy"] = str(start_policy)
    # Only what decides the result: offline methods are trained once and evaluated once (no real-data budget,
    # no world model); only the world-model methods plan (prior weight).
    if method in OFFLINE_METHODS:
        del settings["real_episode_budget"], settings["episodes_per_update"], settings["checkpoint"]
    if method not in WORLD_MODEL_METHODS:
        del settings["prior_weight"], settings["mppi"], settings["finetune_steps"]
    previous = _finished(out, settings)
    if previous is not None:
        return previous
    out.mkdir(parents=True, exist_ok=True)
    if method not in WORLD_MODEL_METHODS and (out / "real_data").exists():  # (adapt resumes its own)
        aside = out / f"real_data.interrupted-{time.time_ns()}"
        (out / "real_data").rename(aside)
        log.warning("%s seed %d: an interrupted run's episodes moved to %s; starting the seed again", method, seed,
                    aside)
    info = read_info(sim_data_dir)
    if dict(info.obs_shapes) != dict(spec.obs_shapes) or info.action_dim != spec.action_dim:
        raise ValueError(f"simulation dataset {sim_data_dir} does not match task {task.spec.name!r}")
    setting, gamma = _setting(task), task.spec.gamma
    n_demos = demos if demos is not None else _default_demos(method, setting)
    demo_eps = run_demonstrations(task, n_demos, grid, seed, out / "demos", physics=physics)
    rounds = max(1, math.ceil(real_episode_budget / episodes_per_round))
    meta = {**settings, "setting": setting, "demos": len(demo_eps), "demo_minutes": _minutes(demo_eps, period)}

    if method in WORLD_MODEL_METHODS:  # the same budget: J + 1 evaluation rounds of M episodes, J finetunes
        from simdist.adapt import AdaptConfig, adapt
        from simdist.baselines.simdist_bc import run_simdist_bc
        from simdist.config import finetune_preset, model_preset_for, mppi_preset, replace, with_steps

        if checkpoint is None:
            raise ValueError(f"{method} needs a pretrained SimDist checkpoint (checkpoint=...)")
        name = model_preset_for(task, preset)
        cfg = AdaptConfig(rounds=rounds - 1, episodes_per_round=episodes_per_round, grid=grid, seed=seed)
        planner = mppi_preset(mppi or name)
        if prior_weight is not None:
            planner = replace(planner, prior_weight=prior_weight)
        ft = finetune_preset(name)
        if finetune_steps:
            ft = with_steps(ft, finetune_steps)
        if method == "simdist":
            adapted = adapt(task, checkpoint, out, cfg, planner, ft, physics=physics, progress=progress,
                            sim_data=sim_data_dir)
        else:
            adapted = run_simdist_bc(task, checkpoint, out, demo_eps, cfg, planner, ft, progress, sim_data=sim_data_dir,
                                     physics=physics)
        result = {**meta, **adapted, "method": method}
        (out / RESULTS_FILE).write_text(json.dumps(result, indent=2))
        return result
    env = task.make_env("real", physics, seed=seed)
    ics, _ = round_initial_conditions(task, grid, episodes_per_round, seed=seed)
    deployed_as_is = method == "bc" and start_policy is not None  # needs no simulation data
    _, sim_eps = ([], []) if deployed_as_is else load_episodes(sim_data_dir)
    sim_stats = None if deployed_as_is else observation_stats(sim_eps)

    if method in OFFLINE_METHODS:
        learner = (BCLearner.load(start_policy) if deployed_as_is
                   else _train_bc(spec, sim_eps, sim_stats, preset, gamma, seed, overrides) if method == "bc"
                   else _train_diffusion(spec, sim_eps, sim_stats, demo_eps, method == "dp_cotrain", preset, gamma,
                                         seed, overrides))
        res = rollout(task, env, learner.agent(), ics, seed=seed, progress=progress, source=method)
        write_real_episodes(out / "real_data", task, res.episodes, "r00_e", f"{method} evaluation")
        row = {"round": 0, "episodes": len(ics), "real_minutes": _minutes(res.episodes, period) + meta["demo_minutes"],
               "success_rate": float(np.mean([m.get("success", 0.0) for m in res.metrics])),
               "successes": [bool(m.get("success", 0.0)) for m in res.metrics], "metrics": _mean_metrics(res.metrics)}
        learner.save(out / "checkpoint")
        result = _rounds_result([row], meta)
        (out / RESULTS_FILE).write_text(json.dumps(result, indent=2))
        return result

    # ---------------------------------------------------------------------------------- online methods
    reward_fn = _reward_fn(setting, checkpoint)
    label_key = None if setting == "manipulation" else _label_key(sim_data_dir, checkpoint)
    learner, sampler, shape = _online_learner(method, spec, sim_eps, sim_stats, demo_eps, reward_fn, setting, preset,
                                              gamma, seed, overrides, start_policy, label_key)
    del sim_eps  # the learner holds what it needs as transitions; the episodes are as large again
    release_freed_memory()
    rng = np.random.default_rng(seed)
    rows, real_eps, budget_left = [], [], real_episode_budget
    for j in range(rounds):
        round_ics = ics[:min(episodes_per_round, budget_left)]
        round_eps, round_metrics = [], []
        for start in range(0, len(round_ics), episodes_per_update):
            chunk = round_ics[start:start + episodes_per_update]
            res = rollout(task, env, learner.agent(explore=True), chunk, seed=(seed, j), first_index=start,
                          progress=progress, source=f"{method}-round-{j}")
            write_real_episodes(out / "real_data", task, res.episodes, f"r{j:02d}_e{start:03d}", f"{method} rollouts")
            round_eps += res.episodes
            round_metrics += res.metrics
            new = shape(TransitionBuffer.from_episodes(res.episodes, reward_fn))
            sampler.add_online(new)
            info = learner.train_round(sampler, len(new), rng)
            log.debug("%s round %d after %d episodes: %s", method, j, start + len(chunk), info)
        budget_left -= len(round_eps)
        real_eps += round_eps
        rows.append({"round": j, "episodes": len(round_eps),
                     "real_minutes": _minutes(real_eps, period) + meta["demo_minutes"],
                     "success_rate": float(np.mean([m.get("success", 0.0) for m in round_metrics])),
                     "successes": [bool(m.get("success", 0.0)) for m in round_metrics],
                     "metrics": _mean_metrics(round_metrics)})
        log.info("%s round %d: success %.2f after %.1f real minutes", method, j, rows[-1]["success_rate"],
                 rows[-1]["real_minutes"])
    learner.save(out / "checkpoint")
    result = _rounds_result(rows, meta)
    (out / RESULTS_FILE).write_text(json.dumps(result, indent=2))
    return result


def _label_key(sim_data_dir, checkpoint) -> tuple:
    """What the learned-reward labels of the simulation data depend on (the files as they are now)."""
    stamp = lambda path: (str(path.resolve()), path.stat().st_mtime_ns, path.stat().st_size)  # noqa: E731
    return stamp(Path(sim_data_dir) / "dataset.json"), stamp(Path(checkpoint) / "model.safetensors")


def _reward_fn(setting: str, checkpoint: str | Path | None):
    """Sparse success in manipulation; SimDist's learned reward model in the quadruped setting."""
    if setting == "manipulation":
        return sparse_success
    if checkpoint is None:
        raise ValueError("quadruped baselines use SimDist's learned reward: pass checkpoint=...")
    from simdist.checkpoint import load_model

    return world_model_reward(load_model(checkpoint))


class _UniformSampler:
    """IQL's single buffer: offline data followed by the online data, sampled uniformly over the union (CORL). The
    online part grows on its own, so the offline data (7.6 GB of quadruped transitions) is never copied."""

    def __init__(self, buffer: TransitionBuffer):
        self.offline, self.online = buffer, None

    def add_online(self, transitions: TransitionBuffer) -> None:
        self.online = transitions if self.online is None else self.online.extend(transitions)

    def sample(self, batch_size: int, rng: np.random.Generator, device="cpu") -> dict:
        n_online = 0 if self.online is None else int(rng.binomial(
            batch_size, len(self.online) / (len(self.offline) + len(self.online))))
        parts = [buffer.sample(n, rng, device) for buffer, n in ((self.offline, batch_size - n_online),
                                                                  (self.online, n_online)) if n]
        return parts[0] if len(parts) == 1 else concat_batches(*parts)


def _start_from_bc(learner, spec, sim_eps, sim_stats, preset, gamma, seed, overrides, start_policy=None) -> None:
    """The RL actor becomes the single-step BC policy (trained here on the simulation data, or `start_policy`),
    exploring around it with `bc_start_std`."""
    bc = _train_bc(spec, sim_eps, sim_stats, preset, gamma, seed, overrides) if start_policy is None \
        else BCLearner.load(start_policy)
    try:
        learner.actor.load_state_dict(bc.actor.state_dict())
    except RuntimeError as e:  # another encoder preset or head width than this learner's
        raise ValueError(f"the start policy's actor does not fit the {type(learner).__name__} actor (train it with the "
                         f"same preset and hidden widths): {e}") from None
    learner.actor.set_constant_std(learner.cfg.bc_start_std)


def _online_learner(method, spec, sim_eps, sim_stats, demo_eps, reward_fn, setting, preset, gamma, seed, overrides,
                    start_policy=None, label_key=None):
    """The learner, its sampler, and the per-transition reward transform (identity except SGFT)."""
    rng = np.random.default_rng(seed)
    sim = cached_transitions(sim_eps, reward_fn, label_key)
    demo = TransitionBuffer.from_episodes(demo_eps, reward_fn, expert_default=True) if demo_eps else None
    identity = lambda transitions: transitions
    if method == "iql":  # value (and policy) pretrained offline in sim, plus the demonstrations
        learner = IQLLearner(spec, _preset(IQLConfig, preset, gamma, seed, overrides))
        set_normalizer_stats(list(learner.modules().values()), sim_stats)
        if setting == "quadruped" or start_policy:  # the paper's quadruped baselines start from single-step BC
            _start_from_bc(learner, spec, sim_eps, sim_stats, preset, gamma, seed, overrides, start_policy)
        offline = sim if demo is None else sim.extend(demo)
        learner.pretrain(offline, rng)
        return learner, _UniformSampler(offline), identity
    if method == "rlpd":  # prior data: the demonstrations, or the simulation data where there are none
        learner = SACLearner(spec, _preset(SACConfig, preset, gamma, seed, overrides))
        set_normalizer_stats(list(learner.modules().values()), sim_stats)
        if setting == "quadruped" or start_policy:
            _start_from_bc(learner, spec, sim_eps, sim_stats, preset, gamma, seed, overrides, start_policy)
        offline = demo if demo is not None else sim
        return learner, SymmetricSampler(offline, _empty(spec), learner.cfg.offline_ratio), identity
    # SGFT: a fresh SAC learner on shaped online rewards; V_sim fitted to the simulation critic labels
    cfg = _preset(SGFTConfig, preset, gamma, seed, overrides)
    learner, value = SGFTLearner(spec, cfg), SimValue(spec, cfg)
    set_normalizer_stats([*learner.modules().values(), value.net], sim_stats)
    loss = value.fit(sim, cfg.value_fit_steps, rng)
    log.info("SGFT: V_sim fitted to the simulation value labels, final MSE %.4f", loss)
    return learner, SymmetricSampler(None, _empty(spec), 0.0), lambda transitions: learner.shape(transitions, value)


def _empty(spec) -> TransitionBuffer:
    groups = dict(spec.obs_shapes, **({COMMAND_KEY: (spec.command_dim,)} if spec.command_dim else {}))
    return TransitionBuffer.empty(groups, spec.action_dim)


def _train_diffusion(spec, sim_eps, sim_stats, demo_eps, cotrain, preset, gamma, seed,
                     overrides) -> DiffusionLearner:
    if not demo_eps:
        raise ValueError("Diffusion Policy needs demonstrations (demos > 0)")
    cfg = _preset(DiffusionConfig, preset, gamma, seed, {**overrides, "cotrain_sim": cotrain})
    learner = DiffusionLearner(spec, cfg)
    set_normalizer_stats([learner.policy], sim_stats)
    sim = ChunkDataset(sim_eps, cfg.chunk, expert_only=True) if cotrain else None
    learner.train(ChunkDataset(demo_eps, cfg.chunk), sim)
    return learner
