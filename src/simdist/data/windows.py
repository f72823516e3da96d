"""(H history, T future) training windows over episodes, gathered as whole batches from memory.

A window at step t of an episode [s, e) holds
    history   o_{t-H..t-1}, a_{t-H..t-1}  (before the episode start: the first observation and zero actions,
                                          as the robot's ring buffer is filled at reset)
    current   o_t (every group), g_t
    future    a_{t..t+T-1}, o_{t+1..t+T}, g_{t+1..t+T}, r_{t..t+T-1}, v_{t+1..t+T}, expert_{t..t+T-1},
              and the BC targets a*_{t..t+T-1}: the expert's labels where an episode has them (DAgger), else a
so t ranges over [s, e-1-T] and a window never crosses an episode. With `tail_windows`, t ranges over all of
[s, e-1] as well: a window that starts in an episode's last T steps repeats the last step past the end and says
so in `future_valid` (B, T: o_{t+i+1} exists), its expert flags are 0 past the end (no BC target there), and it
counts as unlabelled for reward and value, whose heads attend over the whole predicted trajectory. Those windows
are the last states before a fall, which a policy head must learn to recover from (docs/tasks/foam.md).
Two label masks per window: `labelled` (reward and value exist: simulation data) and `bc_labelled` (expert flags
exist: simulation data, demonstrations, and robot episodes with operator corrections, which carry no reward or
value). Batches are built with vectorised indexing (no worker processes), which keeps a 2-core trainer fed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from simdist.data.episodes import (
    DatasetError,
    DatasetInfo,
    Episode,
    episode_files,
    episode_lengths,
    read_episode_file,
    read_info,
)

STATS_CHUNK = 65_536  # rows per float64 chunk when computing normaliser statistics


@dataclass
class Stats:
    mean: np.ndarray
    std: np.ndarray


class WindowDataset:
    def __init__(
        self,
        info: DatasetInfo,
        episodes: list[Episode],
        history: int,
        horizon: int,
        device: torch.device | str = "cpu",
        tail_windows: bool = False,
    ):
        self.tail_windows = tail_windows
        usable = [e for e in episodes if len(e) > self._min_length(horizon)]
        self._fill(info, history, horizon, device, [len(e) for e in usable], iter(usable))

    def _min_length(self, horizon: int) -> int:
        """Episodes longer than this hold a window."""
        return 0 if self.tail_windows else horizon

    @classmethod
    def from_dir(
        cls,
        root: str | Path,
        history: int,
        horizon: int,
        device: torch.device | str = "cpu",
        tail_windows: bool = False,
    ) -> "WindowDataset":
        """Stream a dataset directory file by file into preallocated arrays: the peak memory is the dataset plus
        one file, not the episodes plus their concatenation (twice the dataset)."""
        data = cls.__new__(cls)
        data.tail_windows = tail_windows
        shortest = data._min_length(horizon)
        info = read_info(root)
        files = episode_files(root)
        lengths = [int(L) for p in files for L in episode_lengths(p) if L > shortest]

        def usable():
            for path in files:
                yield from (e for e in read_episode_file(path, info) if len(e) > shortest)

        data._fill(info, history, horizon, device, lengths, usable(), source=f" in {root}")
        return data

    def _fill(
        self,
        info: DatasetInfo,
        history: int,
        horizon: int,
        device: torch.device | str,
        lengths: list[int],
        episodes: Iterator[Episode],
        source: str = "",
    ) -> None:
        if not lengths:
            need = "has a step" if self.tail_windows else f"is longer than the horizon T={horizon}"
            raise DatasetError(f"no episode{source} {need}; nothing to train on")
        self.info, self.H, self.T, self.device = info, history, horizon, torch.device(device)
        n = self.n_steps = int(sum(lengths))
        self.n_episodes = len(lengths)
        obs = {g: np.empty((n, *shape), np.float32) for g, shape in info.obs_shapes.items()}
        action = np.empty((n, info.action_dim), np.float32)
        command = np.empty((n, info.command_dim), np.float32) if info.command_dim else None
        reward, value, expert = (np.zeros(n, np.float32) for _ in range(3))
        labelled, bc_labelled, success = (np.zeros(n, bool) for _ in range(3))
        bc_action = None  # BC targets, allocated at the first episode whose targets differ from its actions (DAgger)
        row = count = 0
        for e in episodes:
            if count == len(lengths) or len(e) != lengths[count]:
                raise DatasetError(f"episode files{source} changed while loading; load again")
            sl = slice(row, row + len(e))
            for g in obs:
                obs[g][sl] = e.obs[g]
            action[sl] = e.action
            if e.expert_action is not None and bc_action is None:
                bc_action = action.copy()  # the rows so far are their own targets
            if bc_action is not None:
                bc_action[sl] = e.action if e.expert_action is None else e.expert_action
            if command is not None:
                command[sl] = e.command
            if e.reward is not None and e.value is not None:
                reward[sl], value[sl], labelled[sl] = e.reward, e.value, True
            if e.expert is not None:
                expert[sl], bc_labelled[sl] = e.expert, True
            success[sl] = e.success
            row, count = row + len(e), count + 1
        if count != len(lengths):
            raise DatasetError(f"episode files{source} changed while loading; load again")
        tensor = lambda a: torch.from_numpy(a).to(self.device)  # noqa: E731  (no copy on the CPU)
        self.obs = {g: tensor(v) for g, v in obs.items()}
        self.action, self.reward, self.value, self.expert = map(tensor, (action, reward, value, expert))
        self.bc_action = self.action if bc_action is None else tensor(bc_action)
        self.command = tensor(command) if command is not None else None
        self.labelled_steps, self.bc_labelled_steps, self.step_success = labelled, bc_labelled, success
        self.labelled = torch.as_tensor(labelled, dtype=torch.float32, device=self.device)
        self.bc_labelled = torch.as_tensor(bc_labelled, dtype=torch.float32, device=self.device)
        # Per step: index of its episode's first step; valid window starts.
        lengths_arr = np.asarray(lengths)
        starts = np.concatenate([[0], np.cumsum(lengths_arr)[:-1]])
        self.episode_start = torch.as_tensor(np.repeat(starts, lengths_arr), device=self.device)
        self.episode_end = torch.as_tensor(np.repeat(starts + lengths_arr, lengths_arr), device=self.device)
        starts_per_episode = lengths_arr - self._min_length(horizon)
        self.window_episode = np.repeat(np.arange(len(lengths)), starts_per_episode)
        self.window_t = np.concatenate([np.arange(s, s + n) for s, n in zip(starts, starts_per_episode)])

    def keep_bc_labels_of_successes(self) -> None:
        """Success-filtered BC: drop the expert flags of failed episodes, so the BC term does not imitate the
        expert on its way to a fall (its actions there are not the gait to copy)."""
        self.bc_labelled_steps = self.bc_labelled_steps & self.step_success
        self.bc_labelled = torch.as_tensor(self.bc_labelled_steps, dtype=torch.float32, device=self.device)

    def __len__(self) -> int:
        return len(self.window_t)

    def split(self, val_fraction: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Window indices split by *episode*, so validation windows come from unseen episodes."""
        rng = np.random.default_rng(seed)
        n_val = int(round(self.n_episodes * val_fraction))
        if val_fraction > 0 and self.n_episodes > 1:
            n_val = max(1, min(n_val, self.n_episodes - 1))
        val_eps = rng.permutation(self.n_episodes)[:n_val]
        is_val = np.isin(self.window_episode, val_eps)
        return np.flatnonzero(~is_val), np.flatnonzero(is_val)

    def batch(self, window_ids: np.ndarray) -> dict:
        t = torch.as_tensor(self.window_t[window_ids], device=self.device)
        H, T = self.H, self.T
        s = self.episode_start[t]
        hist = t[:, None] + torch.arange(-H, 0, device=self.device)
        before = hist < s[:, None]
        hist_c = torch.maximum(hist, s[:, None])
        fut = t[:, None] + torch.arange(0, T, device=self.device)  # a_t..a_{t+T-1}
        nxt = fut + 1  # o_{t+1..t+T}
        hist_action = self.action[hist_c] * (~before).unsqueeze(-1)
        labelled = self.labelled[t]
        if self.tail_windows:  # past the episode's end: the last step again, masked
            end = self.episode_end[t][:, None]
            valid_action, valid_next = fut < end, nxt < end
            fut, nxt = torch.minimum(fut, end - 1), torch.minimum(nxt, end - 1)
            labelled = labelled * valid_next[:, -1]  # reward/value heads see the whole trajectory: full windows only
        expert = self.expert[fut] * valid_action if self.tail_windows else self.expert[fut]
        out = {
            "obs": {g: v[t] for g, v in self.obs.items()},
            "hist_proprio": self.obs["proprio"][hist_c],
            "hist_action": hist_action,
            "actions": self.action[fut],
            "future_obs": {g: v[nxt] for g, v in self.obs.items()},
            "rewards": self.reward[fut],
            "values": self.value[nxt],
            "expert": expert,
            "labelled": labelled,
            "bc_labelled": self.bc_labelled[t],
        }
        if self.tail_windows:
            out["future_valid"] = valid_next.float()
        if self.bc_action is not self.action:  # DAgger labels; otherwise the loss clones the executed actions
            out["bc_actions"] = self.bc_action[fut]
        if self.command is not None:
            out["commands"] = self.command[torch.cat((t[:, None], nxt), dim=1)]
        return out

    def statistics(self) -> dict[str, Stats]:
        """Per-dimension mean/std of every normalised field (labels from labelled steps only)."""

        def stats(x: torch.Tensor) -> Stats:  # float64 sums over row chunks: no float64 copy of the whole field
            total = torch.zeros(x.shape[1:], dtype=torch.float64, device=x.device)
            squares = torch.zeros_like(total)
            for chunk in torch.split(x, STATS_CHUNK):
                chunk = chunk.double()
                total += chunk.sum(0)
                squares += chunk.square().sum(0)
            mean = total / x.shape[0]
            std = (squares / x.shape[0] - mean.square()).clamp_min(0.0).sqrt()
            return Stats(mean.float().cpu().numpy(), std.float().cpu().numpy())

        out = {g: stats(v) for g, v in self.obs.items()}
        out["action"] = stats(self.action)
        if self.command is not None:
            out["command"] = stats(self.command)
        mask = torch.as_tensor(self.labelled_steps)
        if mask.any():
            out["reward"] = stats(self.reward[mask])
            out["value"] = stats(self.value[mask])
        return out
