"""Planner rounds in simulation: the world model trained on the states its own planner visits.

Alg. 2's data covers what the expert and the weaker policies do. MPPI queries the model elsewhere: on the
candidates it prefers, which are, by construction, where the model's errors flatter a plan. A round here runs the
model's planner in `sim` (the domain randomisation of Alg. 2), labels every step as Alg. 2 does (the dense reward,
the expert critic at the true state) with the expert flag off, so the BC head's targets do not change, and then
trains on, warm-started, over Alg. 2's data plus every round's planner episodes. The model learns the consequences
of the actions its planner favours, the states where its errors cost a plan: DAgger for the model (Ross and
Bagnell, 2012, "Agnostic system identification for model-based reinforcement learning"). Pretraining stays
simulation only, and Alg. 1 on the robot is unchanged. Findings: docs/findings.md, "Planning".

With `branches` > 0 a round also trains the reward and value heads (and the dynamics) where the planner *looks*, not
only where it goes: at every `branch_every`-th step, that many of the candidate sequences the planner scored (half
its best, half drawn from all) are played in a copy of the simulator from the true state and labelled as Alg. 2
labels (dense reward, expert critic at each true state). Each is kept as a short episode: the H executed steps
before it, then the candidate (`branch_episode`).
"""

from __future__ import annotations

import json
import logging
import shutil
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import torch

from simdist.config import train_preset, with_steps
from simdist.data.episodes import (
    DatasetInfo,
    Episode,
    atomic_write_text,
    create_dataset,
    merge_datasets,
    read_info,
    write_episodes,
)
from simdist.model.world_model import ACTION
from simdist.planning.agent import MPPIAgent
from simdist.planning.mppi import MPPIPlanner
from simdist.planning.settings import MPPIConfig
from simdist.planning.simulator import Rollouts, simulator_rollouts
from simdist.progress import progress_bar
from simdist.rollout import episode_seed, reseed_agent
from simdist.tasks.base import COMMAND_KEY
from simdist.training.checkpoint import check_fits_task, load_model, read_model_config
from simdist.training.train import pretrain

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RefineConfig:
    rounds: int = 1
    episodes: int = 200  # planner episodes per round
    steps: int = 1500  # training steps per round, warm-started from the previous round's model
    train_preset: str = "cpu"  # its learning-rate schedule and batch, shortened to `steps`
    seed: int = 0
    branches: int = 0  # candidate sequences played and labelled per branching step (0: executed actions only)
    branch_every: int = 2  # control steps between branching steps

    def __post_init__(self) -> None:
        if min(self.rounds, self.episodes, self.steps, self.branch_every) < 1 or self.branches < 0:
            raise ValueError(
                f"refine needs at least one round, episode and step, branch_every >= 1 and branches >= 0, got {self}"
            )


def pick_branches(planner: MPPIPlanner, count: int, rng: np.random.Generator) -> np.ndarray:
    """(count, T, A) raw actions among the last iteration's candidates: the best half by the planner's own score
    (where its errors flatter a plan) and the rest uniformly from all of them (where it searched)."""
    cands, scores = planner.last_candidates, planner.last_scores
    best = torch.topk(torch.nan_to_num(scores, nan=-torch.inf), min(count // 2, len(scores))).indices.cpu().numpy()
    rest = rng.choice(len(scores), size=min(count - len(best), len(scores)), replace=False)
    raw = planner.model.normalizer.denormalize(ACTION, cands[np.concatenate((best, rest))])
    if planner.low is not None:
        raw = torch.maximum(torch.minimum(raw, planner.high), planner.low)
    return raw.cpu().numpy().astype(np.float32)


def branch_episode(prefix: dict, t: int, history: int, actions: np.ndarray, rollouts: Rollouts, n: int) -> Episode:
    """The H executed steps before step t (`prefix`: the planner episode's records so far, o_0..o_t), then candidate
    n: a_t..a_{t+T-1} from o_t, its observations, rewards and critic values, and o_{t+T} last (its action a copy of
    the one before, never a window's target: windows end at T steps)."""
    s, A = max(0, t - history), actions.shape[-1]
    obs = {
        g: np.concatenate((np.asarray(v[s : t + 1], np.float32), rollouts.obs[g][n])) for g, v in prefix["obs"].items()
    }
    executed = np.asarray(prefix["action"][s:t], np.float32).reshape(-1, A)
    action = np.concatenate((executed, actions[n], actions[n, -1:]))
    reward = np.concatenate((np.asarray(prefix["reward"][s:t], np.float32), rollouts.rewards[n], [0.0]))
    value = np.concatenate((np.asarray(prefix["value"][s : t + 1], np.float32), rollouts.values[n]))
    command = None
    if prefix["command"]:
        now = np.asarray(prefix["command"][t], np.float32)
        command = np.concatenate(
            (np.asarray(prefix["command"][s : t + 1], np.float32), np.repeat(now[None], len(actions[n]), 0))
        )
    return Episode(
        obs=obs,
        action=action.astype(np.float32),
        command=command,
        reward=reward.astype(np.float32),
        value=value.astype(np.float32),
        expert=np.zeros(len(action), bool),
        source_policy="planner_branch",
    )


def planner_episode(
    task,
    env,
    agent: MPPIAgent,
    critic,
    seed: int,
    branches: int = 0,
    branch_every: int = 2,
    branch_out: list[Episode] | None = None,
) -> Episode:
    """One `sim` episode driven by the planner, labelled as Alg. 2 labels its episodes: the dense reward and the
    expert critic V^e(s_t) at the true state of o_t; every expert flag off (the planner's actions are no BC
    targets). With `branches`, the candidate branches of every `branch_every`-th step go to `branch_out`."""
    spec = task.spec
    obs, info = env.reset(seed=seed)
    reseed_agent(agent, seed)
    agent.reset()
    rng = np.random.default_rng([seed, 1])
    seen: dict[str, list] = {g: [] for g in spec.obs_shapes}
    rec: dict[str, list] = {k: [] for k in ("action", "command", "reward", "value", "infos")}
    for t in range(spec.episode_steps):
        for g in spec.obs_shapes:
            seen[g].append(obs[g])
        if spec.command_dim:
            rec["command"].append(obs[COMMAND_KEY])
        rec["value"].append(critic.value(info["privileged"]))
        rec["action"].append(np.asarray(agent.act(obs), np.float32))
        if branches and t % branch_every == 0:
            actions = pick_branches(agent.planner, branches, rng)
            rollouts = simulator_rollouts(env, critic, actions, step_values=True)
            prefix = {"obs": seen, **rec}
            branch_out.extend(
                branch_episode(prefix, t, agent.H, actions, rollouts, n) for n in np.flatnonzero(~rollouts.ended)
            )
        obs, reward, terminated, truncated, info = env.step(rec["action"][-1])
        rec["reward"].append(reward)
        rec["infos"].append(info)
        if terminated or truncated:
            break
    metrics = task.episode_metrics(rec["infos"])
    return Episode(
        obs={g: np.asarray(v, np.float32) for g, v in seen.items()},
        action=np.asarray(rec["action"], np.float32),
        command=np.asarray(rec["command"], np.float32) if spec.command_dim else None,
        reward=np.asarray(rec["reward"], np.float32),
        value=np.asarray(rec["value"], np.float32),
        expert=np.zeros(len(rec["action"]), bool),
        success=bool(metrics.get("success", 0.0)),
        source_policy="planner",
        metrics=metrics,
    )


def collect_planner_episodes(
    task,
    model_dir: str | Path,
    out: str | Path,
    episodes: int,
    planner: MPPIConfig,
    seed: tuple[int, ...],
    progress: bool = True,
    files_of: int = 50,
    branches: int = 0,
    branch_every: int = 2,
) -> dict:
    """`episodes` planner episodes of the model in `model_dir` (and their candidate branches) into the dataset
    `out` (written once complete: `stats.json` marks it); returns their statistics."""
    spec, out = task.spec, Path(out)
    if (out / "stats.json").exists():
        return json.loads((out / "stats.json").read_text())
    if out.exists():  # an interrupted collection: its seeds are fixed, so it starts again
        shutil.rmtree(out)
    create_dataset(out, DatasetInfo.of_task(spec, "sim", f"planner episodes of {model_dir}"))
    env = task.make_env("sim", seed=episode_seed(seed, 0))
    agent, critic = MPPIAgent(load_model(model_dir), replace(planner, compile=False)), task.critic()
    agent.planner.keep_candidates = bool(branches)
    buffer, branched, successes, steps, branch_count = [], [], [], 0, 0
    for i in progress_bar(range(episodes), disable=not progress, desc=f"planner episodes {spec.name}", unit="ep"):
        buffer.append(
            planner_episode(task, env, agent, critic, episode_seed(seed, i + 1), branches, branch_every, branched)
        )
        successes.append(buffer[-1].success)
        steps += len(buffer[-1].action)
        if len(buffer) == files_of or i == episodes - 1:
            write_episodes(out, buffer, name=f"planner_{i // files_of:05d}")
            buffer = []
        while len(branched) >= 20 * files_of or (branched and i == episodes - 1):
            write_episodes(out, branched[: 20 * files_of], name=f"branches_{branch_count // (20 * files_of):05d}")
            branch_count += len(branched[: 20 * files_of])
            branched = branched[20 * files_of :]
    stats = {
        "episodes": episodes,
        "steps": steps,
        "planner_success": float(np.mean(successes)),
        "branches": branch_count,
    }
    atomic_write_text(out / "stats.json", json.dumps(stats, indent=2))
    return stats


def refine(
    task,
    checkpoint: str | Path,
    sim_data: str | Path,
    out: str | Path,
    cfg: RefineConfig,
    planner: MPPIConfig,
    progress: bool = True,
) -> dict:
    """`cfg.rounds` planner rounds from `checkpoint`, pretrained on `sim_data`. Round k writes OUT/round_k/
    planner_data, OUT/round_k/data (Alg. 2's data and every round's planner episodes so far, linked) and
    OUT/round_k/model; the last round's model and data are the result. Resumes where it stopped; a rerun with more
    rounds continues from the last one."""
    check_fits_task(checkpoint, task)
    read_info(sim_data)  # a missing or unreadable dataset fails before any work
    out = Path(out)
    settings = {
        "task": task.spec.name,
        "checkpoint": str(checkpoint),
        "sim_data": str(sim_data),
        "refine": asdict(cfg),
        "mppi": asdict(planner),
    }
    recorded = out / "refine_config.json"
    if recorded.exists():  # more rounds continue a run; any other change would mix two refinements
        before = json.loads(recorded.read_text())
        before["refine"]["rounds"] = cfg.rounds
        if before != settings:
            raise ValueError(f"{out} holds a refinement with other settings ({recorded}); use a new --out")
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(recorded, json.dumps(settings, indent=2))
    train_cfg = with_steps(train_preset(cfg.train_preset), cfg.steps)
    train_cfg = replace(train_cfg, decay_steps=cfg.steps, checkpoint_every=max(1, cfg.steps // 2))
    model, planner_sets, rounds = Path(checkpoint), [], []
    for k in range(1, cfg.rounds + 1):
        here = out / f"round_{k:02d}"
        stats = collect_planner_episodes(
            task,
            model,
            here / "planner_data",
            cfg.episodes,
            planner,
            (cfg.seed, k),
            progress,
            branches=cfg.branches,
            branch_every=cfg.branch_every,
        )
        log.info(
            "round %d: the planner succeeded in %.2f of %d sim episodes", k, stats["planner_success"], cfg.episodes
        )
        planner_sets.append(here / "planner_data")
        data = here / "data"
        if not (data / "merged").exists():  # links only: an interrupted merge is redone
            shutil.rmtree(data, ignore_errors=True)
            merge_datasets(data, [Path(sim_data), *planner_sets])
            (data / "merged").write_text("ok\n")
        trained = here / "model"
        if not (trained / "refine_done").exists():
            pretrain(data, trained, read_model_config(model), train_cfg, progress=progress, init_from=model)
            (trained / "refine_done").write_text("ok\n")
        rounds.append({"round": k, **stats, "model": str(trained)})
        model = trained
    result = {
        "task": task.spec.name,
        "checkpoint": str(model),
        "sim_data": str(out / f"round_{cfg.rounds:02d}" / "data"),
        "rounds": rounds,
    }
    atomic_write_text(out / "refine_results.json", json.dumps(result, indent=2))
    return result


__all__ = ["RefineConfig", "branch_episode", "collect_planner_episodes", "pick_branches", "planner_episode", "refine"]
