"""Transitions (o, a, r, o′, done) built from `Episode`s, reward labelling, and symmetric sampling.

An episode records o_0 … o_{L-1} and a_0 … a_{L-1}; the observation after the last action is not stored, so
that action has no successor. We drop it and give its outcome to transition L-2, which becomes the
episode's last transition: L-1 transitions per episode.

Rewards: real episodes carry no reward labels, so a `RewardFn(episode) -> (rewards, terminals)` (both of
length L-1) labels them:
  * `sparse_success`: 1 on the last transition of a successful episode, else 0; a success is terminal
    (done = 1, no bootstrap). A failure that hits the time limit is *not* terminal (RLPD's mask rule).
  * `sim_labels`: the dense reward recorded in simulation (never terminal).
  * `world_model_reward(model)`: SimDist's learned reward head (the quadruped baselines' reward).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np
import torch

from simdist.data.episodes import Episode
from simdist.model.world_model import ACTION, COMMAND, PROPRIO, REWARD
from simdist.tasks.base import COMMAND_KEY

RewardFn = Callable[[Episode], tuple[np.ndarray, np.ndarray]]
OFFLINE_FLAG = "is_offline"  # batch key marking where each sample came from (for tests and logging)


def sparse_success(episode: Episode) -> tuple[np.ndarray, np.ndarray]:
    n = len(episode) - 1
    rewards, terminals = np.zeros(n, np.float32), np.zeros(n, np.float32)
    if n > 0 and episode.success:
        rewards[-1] = terminals[-1] = 1.0
    return rewards, terminals


def sim_labels(episode: Episode) -> tuple[np.ndarray, np.ndarray]:
    if episode.reward is None:
        raise ValueError("episode has no reward labels (a real episode?); pass a reward function")
    n = len(episode) - 1
    return episode.reward[:n].astype(np.float32), np.zeros(n, np.float32)


# (simulation dataset, reward checkpoint) -> per-episode reward labels. Labelling 3.3 M quadruped steps with the
# world model takes ~10 min on a CPU core; every seed and method of one `simdist compare` needs the same labels.
_LABEL_CACHE: dict[tuple, list[tuple[np.ndarray, np.ndarray]]] = {}


def cached_transitions(episodes: list[Episode], reward_fn: RewardFn, key: tuple | None) -> "TransitionBuffer":
    """`TransitionBuffer.from_episodes(episodes, reward_fn)`, reusing the labels of an earlier call with the same
    `key` and the same number of episodes (the labels of one key at a time are kept; None: no caching)."""
    cached = _LABEL_CACHE.get(key) if key is not None else None
    if cached is not None and len(cached) == sum(len(e) > 1 for e in episodes):
        labels = iter(cached)
        return TransitionBuffer.from_episodes(episodes, lambda e: next(labels))
    recorded: list[tuple[np.ndarray, np.ndarray]] = []

    def recording(e: Episode) -> tuple[np.ndarray, np.ndarray]:
        recorded.append(reward_fn(e))
        return recorded[-1]

    buffer = TransitionBuffer.from_episodes(episodes, recording)
    if key is not None:
        _LABEL_CACHE.clear()
        _LABEL_CACHE[key] = recorded
    return buffer


def world_model_reward(model) -> RewardFn:
    """Label each transition with SimDist's reward head r̂_t (first step of a T-step window).

    The window's remaining actions are the logged ones, padded with the last action at the episode's end;
    the history buffer starts filled with o_0 and zero actions, as during training.
    """

    @torch.no_grad()
    def label(episode: Episode) -> tuple[np.ndarray, np.ndarray]:
        H, T, L = model.cfg.history, model.cfg.horizon, len(episode)
        n = L - 1
        t = np.arange(n)
        hist = np.maximum(t[:, None] + np.arange(-H, 0), 0)
        fut = np.minimum(t[:, None] + np.arange(T), L - 1)
        as_t = lambda x: torch.as_tensor(np.asarray(x, np.float32))
        norm = model.normalizer.normalize
        obs = {g: as_t(v[:n]) for g, v in episode.obs.items()}
        hist_a = as_t(episode.action[hist]) * as_t(t[:, None] + np.arange(-H, 0) >= 0).unsqueeze(-1)
        z = model.encode(obs)
        ctx = model.context_n(z, norm(PROPRIO, as_t(episode.obs[PROPRIO][hist])), norm(ACTION, hist_a))
        actions_n = norm(ACTION, as_t(episode.action[fut]))
        command_n = None
        if model.spec.command_dim:
            command_n = norm(COMMAND, as_t(episode.command[np.minimum(t[:, None] + np.arange(T + 1), L - 1)]))
        zhat = model.latents_n(model.dynamics["decoder"].cache(ctx), actions_n)
        r = model.normalizer.denormalize(REWARD, model.rewards_n(z, zhat, actions_n, command_n))[:, 0]
        return r.numpy().astype(np.float32), np.zeros(n, np.float32)

    return label


@dataclass
class TransitionBuffer:
    """Flat transitions over shared observation rows: o_t = rows[obs_row], o′ = rows[next_row], so an episode's
    observations are stored once, not twice (the quadruped's 3.3 M steps: 4.7 GB instead of 9.3). Observation
    dicts include the command under "command" if the task has one; `obs` and `next_obs` gather copies."""

    rows: dict[str, np.ndarray]
    obs_row: np.ndarray  # int64 index into rows: o_t
    next_row: np.ndarray  # int64 index into rows: o_{t+1}
    action: np.ndarray  # raw units
    reward: np.ndarray
    done: np.ndarray  # 1 = terminal (no bootstrap)
    expert: np.ndarray  # bool: the action is the uncorrupted expert's (sim) or a demonstration's
    value: np.ndarray  # V^e(s_t) labels from simulation, NaN where absent (real data)

    def __len__(self) -> int:
        return int(self.action.shape[0])

    @property
    def obs(self) -> dict[str, np.ndarray]:
        return {g: v[self.obs_row] for g, v in self.rows.items()}

    @property
    def next_obs(self) -> dict[str, np.ndarray]:
        return {g: v[self.next_row] for g, v in self.rows.items()}

    @classmethod
    def from_arrays(
        cls,
        obs: Mapping[str, np.ndarray],
        action: np.ndarray,
        reward: np.ndarray,
        next_obs: Mapping[str, np.ndarray],
        done: np.ndarray,
        expert: np.ndarray,
        value: np.ndarray,
    ) -> "TransitionBuffer":
        """Transitions given as separate o and o′ arrays (both stored)."""
        n = len(action)
        rows = {g: np.concatenate([obs[g], next_obs[g]]) for g in obs}
        return cls(rows, np.arange(n), np.arange(n, 2 * n), action, reward, done, expert, value)

    @classmethod
    def empty(cls, obs_shapes: Mapping[str, tuple[int, ...]], action_dim: int) -> "TransitionBuffer":
        z = np.zeros(0, np.float32)
        index = np.zeros(0, np.int64)
        return cls(
            {g: np.zeros((0, *s), np.float32) for g, s in obs_shapes.items()},
            index,
            index.copy(),
            np.zeros((0, action_dim), np.float32),
            z,
            z.copy(),
            np.zeros(0, bool),
            z.copy(),
        )

    @classmethod
    def from_episodes(
        cls, episodes: list[Episode], reward_fn: RewardFn, expert_default: bool = False, expert_only: bool = False
    ) -> "TransitionBuffer":
        """`expert_default` flags steps of episodes without expert labels (True for demonstrations).
        `expert_only` keeps only the expert-flagged transitions and the observation rows they use (BC).
        Each kept row is copied once, straight into the buffer's arrays."""
        usable = [e for e in episodes if len(e) > 1]
        if not usable:
            raise ValueError("no episode has two or more steps; nothing to build transitions from")
        kept, used, labels = [], [], []
        for e in usable:
            n = len(e) - 1
            rewards, terminals = reward_fn(e)
            if rewards.shape != (n,) or terminals.shape != (n,):
                raise ValueError(f"reward function returned {rewards.shape}/{terminals.shape}, expected ({n},)")
            expert = e.expert[:n].astype(bool) if e.expert is not None else np.full(n, expert_default)
            value = e.value[:n].astype(np.float32) if e.value is not None else np.full(n, np.nan, np.float32)
            t = np.flatnonzero(expert) if expert_only else np.arange(n)
            kept.append(t)
            used.append(np.union1d(t, t + 1) if expert_only else np.arange(n + 1))
            labels.append((e.action[t], rewards[t], terminals[t], expert[t], value[t]))
        first = usable[0]
        groups = lambda e: {**e.obs, **({COMMAND_KEY: e.command} if e.command is not None else {})}  # noqa: E731
        rows = {g: np.empty((sum(map(len, used)), *v.shape[1:]), v.dtype) for g, v in groups(first).items()}
        obs_row, next_row, offset = [], [], 0
        for e, t, u in zip(usable, kept, used):
            for g, v in groups(e).items():
                rows[g][offset : offset + len(u)] = v[u]
            obs_row.append(offset + np.searchsorted(u, t))
            next_row.append(offset + np.searchsorted(u, t + 1))
            offset += len(u)
        cat = lambda k: np.concatenate([part[k] for part in labels])  # noqa: E731
        return cls(
            rows,
            np.concatenate(obs_row),
            np.concatenate(next_row),
            cat(0).astype(np.float32, copy=False),
            cat(1).astype(np.float32, copy=False),
            cat(2).astype(np.float32, copy=False),
            cat(3),
            cat(4),
        )

    def extend(self, *others: "TransitionBuffer") -> "TransitionBuffer":
        """A new buffer with `others` appended (online data grows in place of the replay ring: budgets are small)."""
        parts = (self, *others)
        offsets = np.cumsum([0] + [len(next(iter(p.rows.values()))) for p in parts[:-1]])
        cat = lambda get: np.concatenate([get(p) for p in parts])  # noqa: E731
        shifted = lambda name: np.concatenate([getattr(p, name) + o for p, o in zip(parts, offsets)])  # noqa: E731
        return TransitionBuffer(
            {g: cat(lambda p: p.rows[g]) for g in self.rows},  # noqa: B023 (called at once)
            shifted("obs_row"),
            shifted("next_row"),
            cat(lambda p: p.action),
            cat(lambda p: p.reward),
            cat(lambda p: p.done),
            cat(lambda p: p.expert),
            cat(lambda p: p.value),
        )

    def subset(self, mask: np.ndarray) -> "TransitionBuffer":
        """The transitions where `mask` holds, with only the observation rows they use (copied)."""
        obs_row, next_row = self.obs_row[mask], self.next_row[mask]
        used = np.union1d(obs_row, next_row)
        return TransitionBuffer(
            {g: v[used] for g, v in self.rows.items()},
            np.searchsorted(used, obs_row),
            np.searchsorted(used, next_row),
            self.action[mask],
            self.reward[mask],
            self.done[mask],
            self.expert[mask],
            self.value[mask],
        )

    def batch(self, idx: np.ndarray, device: torch.device | str = "cpu") -> dict:
        t = lambda x: torch.as_tensor(x, dtype=torch.float32, device=device)  # noqa: E731
        rows_at = lambda index: {g: t(v[index]) for g, v in self.rows.items()}  # noqa: E731
        return {
            "obs": rows_at(self.obs_row[idx]),
            "action": t(self.action[idx]),
            "reward": t(self.reward[idx]),
            "next_obs": rows_at(self.next_row[idx]),
            "done": t(self.done[idx]),
            "expert": t(self.expert[idx]),
            "value": t(self.value[idx]),
        }

    def sample(self, batch_size: int, rng: np.random.Generator, device: torch.device | str = "cpu") -> dict:
        if len(self) == 0:
            raise ValueError("cannot sample from an empty buffer")
        return self.batch(rng.integers(0, len(self), batch_size), device)


def concat_batches(a: dict, b: dict) -> dict:
    return {k: concat_batches(v, b[k]) if isinstance(v, dict) else torch.cat((v, b[k])) for k, v in a.items()}


class SymmetricSampler:
    """RLPD's symmetric sampling: each batch is `offline_ratio` offline data and the rest online data.

    The split is exact (round(B·ratio) offline rows) rather than a per-row coin flip, so every batch holds
    the ratio. Until online data exist the whole batch is offline, and with no offline data it is all online.
    """

    def __init__(self, offline: TransitionBuffer | None, online: TransitionBuffer, offline_ratio: float = 0.5):
        if not 0.0 <= offline_ratio <= 1.0:
            raise ValueError(f"offline_ratio must be in [0, 1], got {offline_ratio}")
        self.offline, self.online, self.offline_ratio = offline, online, offline_ratio

    def add_online(self, transitions: TransitionBuffer) -> None:
        self.online = self.online.extend(transitions)

    def sample(self, batch_size: int, rng: np.random.Generator, device: torch.device | str = "cpu") -> dict:
        has_offline = self.offline is not None and len(self.offline) > 0
        n_off = round(batch_size * self.offline_ratio) if has_offline else 0
        if len(self.online) == 0:
            if not has_offline:
                raise ValueError("no offline and no online data to sample from")
            n_off = batch_size
        parts = []
        if n_off:
            b = self.offline.sample(n_off, rng, device)
            b[OFFLINE_FLAG] = torch.ones(n_off, device=device)
            parts.append(b)
        if batch_size - n_off:
            b = self.online.sample(batch_size - n_off, rng, device)
            b[OFFLINE_FLAG] = torch.zeros(batch_size - n_off, device=device)
            parts.append(b)
        return parts[0] if len(parts) == 1 else concat_batches(*parts)


def observation_stats(episodes: list[Episode]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per-dimension mean and std of every observation group (and the command) over all steps of `episodes`:
    the normaliser's statistics, accumulated episode by episode in float64 (stacking 2.7 M quadruped height maps
    and converting them to float64 needed about 10 GB)."""
    first = episodes[0]
    groups = {**first.obs, **({COMMAND_KEY: first.command} if first.command is not None else {})}
    n = 0
    sums = {g: np.zeros(v.shape[1:]) for g, v in groups.items()}
    squares = {g: np.zeros(v.shape[1:]) for g, v in groups.items()}
    for e in episodes:
        arrays = {**e.obs, **({COMMAND_KEY: e.command} if e.command is not None else {})}
        for g in groups:
            x = arrays[g].astype(np.float64)
            sums[g] += x.sum(0)
            squares[g] += np.square(x).sum(0)
        n += len(e)
    out = {}
    for g in groups:
        mean = sums[g] / n
        out[g] = (mean, np.sqrt(np.maximum(squares[g] / n - mean**2, 0.0)))
    return out
