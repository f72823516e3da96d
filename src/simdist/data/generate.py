"""Diverse simulation data (paper Alg. 2 / Appendix A), for any task implementing the Task protocol.

Each episode is run by the privileged expert with probability `expert_prob`, otherwise by a uniformly chosen
sub-optimal policy. Gaussian action noise is switched on for U[on] steps and off for U[off] steps, in
alternation; its per-dimension std is drawn from U[noise_std_range] (action units) once per environment
instance — here every episode is a fresh instance, so the dataset spans the whole range even with few
worker processes. Every step records o_t, a_t (after noise), g_t, the dense reward r_t, the expert critic
V^e(s_t) at the state of o_t, and whether a_t is the uncorrupted expert's.
"""

from __future__ import annotations

import json
import logging
import multiprocessing as mp
import os
import signal
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch

from simdist.data.episodes import DatasetError, DatasetInfo, Episode, create_dataset, load_episodes, write_episodes
from simdist.data.ray_generate import generate_on_ray, ray_cluster
from simdist.data.regime import (  # noqa: F401 (re-exported: the generator's public names)
    DATA_REGISTRY,
    GENERATION_PRESETS,
    GenerationConfig,
    NoiseWindows,
    act,
    expert_only,
    generation_preset,
    noised_action,
    starter,
    teacher,
)
from simdist.data.resets import MidTaskStarts
from simdist.progress import progress_bar
from simdist.tasks import get_task
from simdist.tasks.base import COMMAND_KEY

log = logging.getLogger(__name__)


def critic_values(critic, states: list[np.ndarray]) -> np.ndarray:
    """V^e of each privileged state: in one batch where the critic has `values` (one network call per episode
    instead of one per step, 8 % of a Peg Insertion worker's time), else state by state."""
    if hasattr(critic, "values"):
        return np.asarray(critic.values(np.stack(states)), np.float64).reshape(len(states))
    return np.array([critic.value(s) for s in states], np.float64)


def run_episode(
    task, env, policy, is_expert: bool, critic, cfg: GenerationConfig, rng: np.random.Generator, starts=None
) -> Episode:
    """One Alg. 2 episode by `policy`; with `starts` (:class:`simdist.data.resets.MidTaskStarts`), a share
    `cfg.mid_task_prob` of them start mid-task, on a copy of the env (its time limit counts the steps before)."""
    spec = task.spec
    low, high = np.array(spec.action_low), np.array(spec.action_high)
    noise = NoiseWindows(cfg, spec.action_dim, rng, spec)
    seed = int(rng.integers(1 << 31))
    steps = spec.episode_steps
    if starts is not None and cfg.mid_task_prob > 0 and rng.random() < cfg.mid_task_prob:
        env, obs, info = starts.next(seed)
        if cfg.mid_task_s is not None:
            steps = max(1, round(cfg.mid_task_s / spec.control_period_s))
    else:
        obs, info = env.reset(seed=seed)
    policy.reset(rng)
    rec: dict[str, list] = {k: [] for k in ("action", "command", "reward", "state", "expert", "infos")}
    rec_obs: dict[str, list] = {g: [] for g in spec.obs_shapes}
    for _ in range(steps):
        state = info["privileged"]
        action, noised = noised_action(np.asarray(act(policy, obs, state), np.float64), noise, low, high, rng)
        for g in spec.obs_shapes:
            rec_obs[g].append(obs[g])
        if spec.command_dim:
            rec["command"].append(obs[COMMAND_KEY])
        rec["state"].append(np.array(state, np.float32))  # a copy: an env may reuse its buffer
        rec["expert"].append(is_expert and not noised)
        rec["action"].append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        rec["reward"].append(reward)
        rec["infos"].append(info)
        if terminated or truncated:
            break
    metrics = task.episode_metrics(rec["infos"])
    return Episode(
        obs={g: np.asarray(v, np.float32) for g, v in rec_obs.items()},
        action=np.asarray(rec["action"], np.float32),
        command=np.asarray(rec["command"], np.float32) if spec.command_dim else None,
        reward=np.asarray(rec["reward"], np.float32),
        value=critic_values(critic, rec["state"]).astype(np.float32),
        expert=np.asarray(rec["expert"], bool),
        success=bool(metrics.get("success", 0.0)),
        source_policy=policy.name,
        metrics=metrics,
    )


def _worker(
    task_name: str,
    out: str,
    n_episodes: int,
    seed: int,
    worker: int,
    cfg: GenerationConfig,
    physics,
    queue,
    parent_pid: int | None = None,
    setup=None,
) -> None:
    """Episodes are written in files of `cfg.episodes_per_file`. A worker whose parent is gone (killed, so it
    could not stop its workers) stops before its next episode rather than writing on as an orphan."""

    torch.set_num_threads(1)
    if mp.parent_process() is not None:  # a worker process: Ctrl-C is the parent's to handle (it stops the workers)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    task = get_task(task_name)
    rng = np.random.default_rng([seed, worker])
    env = task.make_env("sim", physics, seed=seed * 1000 + worker)
    expert, others, critic = teacher(task, cfg.teacher), list(task.suboptimal_policies()), task.critic()
    if setup is not None:
        env, expert, others = setup(task, env)
    starting = expert if cfg.mid_task_starter is None else starter(task, cfg.mid_task_starter)
    starts = MidTaskStarts(task, env, starting, cfg, rng) if cfg.mid_task_prob > 0 else None
    buffer: list[Episode] = []
    for i in range(n_episodes):
        if parent_pid is not None and os.getppid() != parent_pid:
            return
        use_expert = not others or rng.random() < cfg.expert_prob
        policy = expert if use_expert else others[int(rng.integers(len(others)))]
        buffer.append(run_episode(task, env, policy, use_expert, critic, cfg, rng, starts=starts))
        if len(buffer) == cfg.episodes_per_file or i == n_episodes - 1:
            write_episodes(out, buffer, name=f"s{seed}_w{worker}_{i // cfg.episodes_per_file:05d}")
            buffer = []
        if queue is not None:
            queue.put(1)


def generate(
    task,
    out: str | Path,
    episodes: int,
    workers: int = 1,
    seed: int = 0,
    cfg: GenerationConfig | None = None,
    physics=None,
    progress: bool = True,
    setup=None,
    notes: str = "",
    ray: str | None = None,
) -> dict:
    """Generate `episodes` episodes with `workers` processes into the dataset `out`; returns its statistics. With
    `ray` (a cluster address, "auto" or "local") the workers run as Ray tasks (data/ray_generate.py): the same
    episodes in the same files.

    `setup(task, env) -> (env, expert, suboptimal_policies)`, if given, replaces each worker's environment and
    policies (e.g. policies acting on what the robot perceives, benchmarks/peg_perceiving_teacher_data.py at commit
    28cbc45); it must be picklable (a module-level function or a partial of one) to reach the worker processes.
    `notes` are added to the dataset's own."""
    if episodes < 1 or workers < 1:
        raise ValueError(f"generate needs at least one episode and one worker, got {episodes} and {workers}")
    # A bad physics file, or physics the env refuses (a latency above its cap), fail here, before anything is written.
    task.make_env("sim", physics, seed=seed)
    cfg = cfg or generation_preset(getattr(task, "generation_preset", "manipulation"))
    teacher(task, cfg.teacher)  # an unknown teacher or starter fails here, before anything is written
    if cfg.mid_task_starter is not None:
        starter(task, cfg.mid_task_starter)
    with ray_cluster(ray):  # a cluster that cannot be reached fails here too
        return _generate(task, out, episodes, workers, seed, cfg, physics, progress, setup, notes, ray is not None)


def _generate(
    task,
    out,
    episodes: int,
    workers: int,
    seed: int,
    cfg: GenerationConfig,
    physics,
    progress: bool,
    setup,
    notes: str,
    on_ray: bool,
) -> dict:
    spec = task.spec
    create_dataset(out, DatasetInfo.of_task(spec, "sim", f"Alg. 2 generation {asdict(cfg)}{notes}"))
    task.critic()  # fail early, before starting workers, if the critic is missing
    clash = sorted(Path(out, "episodes").glob(f"s{seed}_w*.h5"))
    if clash:
        raise DatasetError(
            f"{out} already holds {len(clash)} episode file(s) generated with seed {seed} (e.g. "
            f"{clash[0].name}); generation does not resume, and recorded data is never overwritten: "
            f"use a new --out, another --seed to add episodes to this dataset, or delete them first"
        )
    shares = [episodes // workers + (w < episodes % workers) for w in range(workers)]
    start = time.perf_counter()
    bar = progress_bar(total=episodes, disable=not progress, desc=f"generate {spec.name}", unit="ep")
    if on_ray:
        generate_on_ray(out, shares, seed, cfg, physics, setup, bar, _worker)
    elif workers == 1:

        class _Bar:
            put = staticmethod(lambda n: bar.update(n))

        _worker(spec.name, str(out), episodes, seed, 0, cfg, physics, _Bar, setup=setup)
    else:
        ctx = mp.get_context("spawn")
        queue = ctx.Queue()
        procs = [
            ctx.Process(target=_worker, args=(spec.name, str(out), n, seed, w, cfg, physics, queue, os.getpid(), setup))
            for w, n in enumerate(shares)
            if n
        ]
        for p in procs:
            p.start()
        try:
            _follow(procs, queue, episodes, bar)
        except BaseException:  # an interrupt: no worker writes on after the command has ended
            for p in procs:
                p.terminate()
            raise
        finally:
            for p in procs:
                p.join()
        failed = [p.exitcode for p in procs if p.exitcode]
        if failed:
            raise RuntimeError(f"{len(failed)} generation worker(s) failed (exit codes {failed}); see the log above")
    bar.close()
    stats = dataset_statistics(out)
    stats["wall_s"] = time.perf_counter() - start
    stats["episodes_per_s"] = episodes / stats["wall_s"]
    stats["transitions_per_s"] = stats["steps_generated"] / stats["wall_s"] if "steps_generated" in stats else None
    Path(out, "stats.json").write_text(json.dumps(stats, indent=2))
    return stats


def _follow(procs: list, queue, episodes: int, bar) -> None:
    """Count the workers' finished episodes on the bar until all are done or every worker has ended."""
    done = 0
    while done < episodes:
        if not any(p.is_alive() for p in procs) and queue.empty():
            break
        try:
            queue.get(timeout=1.0)
        except Exception:
            continue
        done += 1
        bar.update(1)


def dataset_statistics(root: str | Path) -> dict:
    """Episode count, steps, success by source policy, share of uncorrupted expert actions, reward."""
    info, episodes = load_episodes(root)
    steps = sum(len(e) for e in episodes)
    by_source: dict[str, list[bool]] = {}
    for e in episodes:
        by_source.setdefault(e.source_policy, []).append(e.success)
    labelled = [e for e in episodes if e.expert is not None]
    return {
        "task": info.task,
        "domain": info.domain,
        "episodes": len(episodes),
        "steps": steps,
        "steps_generated": steps,
        "robot_minutes": steps * info.control_period_s / 60.0,
        "expert_action_share": float(np.mean(np.concatenate([e.expert for e in labelled]))) if labelled else None,
        "mean_step_reward": float(np.mean(np.concatenate([e.reward for e in labelled]))) if labelled else None,
        "success_rate": float(np.mean([e.success for e in episodes])) if episodes else 0.0,
        "success_by_source": {
            k: {"episodes": len(v), "success_rate": float(np.mean(v))} for k, v in sorted(by_source.items())
        },
    }
