"""DAgger's data: the BC head drives in `sim`, the privileged expert labels every state it reaches; one file per
round and grid. Also the head's own `sim` evaluation, on episodes no round collects."""

from __future__ import annotations

import logging
import multiprocessing as mp
import shutil
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import torch

from simdist.adaptation.dagger.config import DaggerConfig
from simdist.baselines.checkpoints import baseline_method, load_baseline_agent
from simdist.data.episodes import (
    DatasetError,
    Episode,
    episode_files,
    episode_lengths,
    read_episode_file,
    read_info,
    write_episodes,
)
from simdist.planning.agent import PolicyAgent
from simdist.progress import progress_bar
from simdist.rollout import PrivilegedAgent, episode_seed, rollout
from simdist.tasks import get_task
from simdist.training import checkpoint as ckpt

log = logging.getLogger(__name__)


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
    return Episode(
        obs={g: np.asarray(v, np.float32) for g, v in seen.items()},
        action=np.asarray(actions),
        command=np.asarray(commands, np.float32) if spec.command_dim else None,
        expert=np.ones(len(labels), bool),
        expert_action=np.asarray(labels, np.float32),
        success=bool(metrics.get("success", 0.0)),
        source_policy="dagger",
        metrics=metrics,
    )


def driving_agent(checkpoint: str | Path):
    """The policy DAgger refines: the BC head of a SimDist model, or a single-step BC baseline's policy."""
    if baseline_method(checkpoint):
        return load_baseline_agent(checkpoint)
    return PolicyAgent(ckpt.load_model(checkpoint))


def _collect_grid(
    task_name: str,
    head: str,
    data_dir: str,
    cfg: DaggerConfig,
    round_: int,
    k: int,
    physics,
    progress: bool,
    threads: int | None = None,
) -> None:
    """Round `round_`'s episodes on grid k, written as one file (also the body of a worker process)."""
    if threads:
        torch.set_num_threads(threads)
    task, grid = get_task(task_name), cfg.grids[k]
    stream = (cfg.seed, round_, k)  # independent of every other round and grid
    env_seed, expert_seed, ic_seed = (episode_seed((*stream, part), 0) for part in (1, 2, 3))
    env = task.make_env("sim", physics, seed=env_seed)
    head_agent = driving_agent(head)
    expert = PrivilegedAgent(task.expert(), env, seed=expert_seed)
    ics = task.initial_conditions(grid, cfg.episodes_per_grid, seed=ic_seed)
    episodes = [
        dagger_episode(task, env, head_agent, expert, ic, episode_seed((*stream, 0), i))
        for i, ic in enumerate(progress_bar(ics, desc=f"DAgger round {round_}, {grid}", disable=not progress))
    ]
    write_episodes(data_dir, episodes, name=_grid_file(round_, k, grid))


def _grid_file(round_: int, k: int, grid: str) -> str:
    return f"r{round_:02d}_{k}_{grid}"


def collect_round(
    task,
    head: str | Path,
    data_dir: Path,
    cfg: DaggerConfig,
    round_: int,
    physics=None,
    progress: bool = True,
    workers: int = 1,
) -> dict[str, float]:
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
        log.info(
            "round %d, %s: %d episodes, %d steps, head success in sim %.2f",
            round_,
            grid,
            len(episodes),
            sum(len(e) for e in episodes),
            success[grid],
        )
    return success


def import_labels(source: str | Path, data_dir: Path) -> None:
    """Round 1's labels from another driver's DAgger data (e.g. `simdist dagger` on the single-step BC baseline,
    its OUT/dagger_data): each episode file is copied in as a round-1 file (atomically; a resumed run copies only
    what is missing), and the head's own rounds follow."""
    src, own = read_info(source), read_info(data_dir)
    key = lambda i: (i.task, i.obs_shapes, i.action_dim, i.command_dim)  # noqa: E731
    if key(src) != key(own):
        raise DatasetError(
            f"initial labels {source} are for task/observations/actions {key(src)}, this DAgger run for {key(own)}"
        )
    files = episode_files(source)
    if not files:
        raise DatasetError(f"initial labels {source} hold no episode files")
    for f in files:
        target = data_dir / "episodes" / (f.name if f.name.startswith("r01_") else f"r01_{f.name}")
        if not target.exists():
            shutil.copy2(f, target.with_name(target.name + ".tmp"))
            target.with_name(target.name + ".tmp").rename(target)
    log.info("round 1: %d episodes of DAgger labels from %s", sum(len(episode_lengths(f)) for f in files), source)


def evaluate_head(
    task, checkpoint: str | Path, cfg: DaggerConfig, physics=None, progress: bool = True
) -> dict[str, float]:
    """Success of `checkpoint`'s BC head alone in `sim` (`physics`) on every grid, on episodes no collection round
    uses; every candidate head meets the same episodes."""
    head, success = driving_agent(checkpoint), {}
    for k, grid in enumerate(cfg.grids):
        stream = (cfg.seed, 0, k)  # round 0: never collected
        env = task.make_env("sim", physics, seed=episode_seed((*stream, 1), 0))
        ics = task.initial_conditions(grid, cfg.eval_episodes_per_grid, seed=episode_seed((*stream, 3), 0))
        success[grid] = rollout(task, env, head, ics, seed=(*stream, 0), progress=progress).summary(
            task.spec.control_period_s
        )["success_rate"]
        log.info("the DAgger head alone in sim, %s: success %.2f", grid, success[grid])
    return success
