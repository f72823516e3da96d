"""A privileged critic V^e(s) fitted on discounted returns of the expert, for tasks without a PPO critic.

States come from expert rollouts whose actions are perturbed in random windows, so the critic also sees
the off-expert states that the dataset will contain; returns are those of the *expert* continuing from
each state (rollouts run past the episode length so late states still see a long discounted tail).
Saved as `critic.safetensors` + `critic.json`; nothing is pickled.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import logging
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from torch import nn

from simdist.model.layers import MLP

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CriticFitConfig:
    episodes: int = 200
    rollout_factor: float = 2.0  # roll out this many episode lengths; label the first one
    perturb_prob: float = 0.5  # share of episodes with random-action windows before the expert takes over
    hidden: tuple[int, ...] = (128, 128)
    epochs: int = 300
    lr: float = 3e-3
    val_fraction: float = 0.2
    seed: int = 0


class MLPCritic(nn.Module):
    """z-scored privileged state → MLP → return (de-normalised)."""

    def __init__(self, state_dim: int, hidden: tuple[int, ...]):
        super().__init__()
        self.hidden = tuple(hidden)
        self.net = MLP(state_dim, self.hidden, 1)
        self.register_buffer("state_mean", torch.zeros(state_dim))
        self.register_buffer("state_std", torch.ones(state_dim))
        self.register_buffer("return_mean", torch.zeros(()))
        self.register_buffer("return_std", torch.ones(()))

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        x = (states - self.state_mean) / self.state_std
        return self.net(x).squeeze(-1) * self.return_std + self.return_mean

    @torch.no_grad()
    def value(self, privileged: np.ndarray) -> float:
        return float(self(torch.as_tensor(np.asarray(privileged, np.float32))[None])[0])

    @torch.no_grad()
    def values(self, privileged: np.ndarray) -> np.ndarray:
        """(N,) values of a stack of privileged states."""
        return self(torch.as_tensor(np.asarray(privileged, np.float32))).numpy().astype(np.float64)

    def save(self, directory: str | Path, meta: dict) -> None:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        save_file({k: v.contiguous() for k, v in self.state_dict().items()}, str(directory / "critic.safetensors"))
        payload = {"state_dim": int(self.state_mean.shape[0]), "hidden": list(self.hidden), **meta}
        (directory / "critic.json").write_text(json.dumps(payload, indent=2))

    @classmethod
    def load(cls, directory: str | Path) -> "MLPCritic":
        directory = Path(directory)
        meta = json.loads((directory / "critic.json").read_text())
        critic = cls(meta["state_dim"], tuple(meta["hidden"]))
        critic.load_state_dict(load_file(str(directory / "critic.safetensors")))
        return critic.eval()


def discounted_returns(rewards: np.ndarray, gamma: float) -> np.ndarray:
    out = np.zeros_like(rewards, dtype=np.float64)
    acc = 0.0
    for i in range(len(rewards) - 1, -1, -1):
        acc = rewards[i] + gamma * acc
        out[i] = acc
    return out


def collect_expert_returns(task, cfg: CriticFitConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(privileged states, expert discounted returns, episode index) from perturbed-then-expert rollouts."""
    rng = np.random.default_rng(cfg.seed)
    spec, expert = task.spec, task.expert()
    env = task.make_env("sim", seed=cfg.seed)
    low, high = np.array(spec.action_low), np.array(spec.action_high)
    L = spec.episode_steps
    states, returns, episode_ids = [], [], []
    for ep in range(cfg.episodes):
        _, info = env.reset(seed=int(rng.integers(1 << 31)))
        expert.reset(rng)
        perturb_until = int(rng.integers(0, L)) if rng.random() < cfg.perturb_prob else 0
        ep_states, ep_rewards, labelled = [], [], []
        for t in range(int(L * cfg.rollout_factor)):
            s = info["privileged"]
            if t < perturb_until:
                action = rng.uniform(low, high)
            else:
                action = expert.act(s)
            ep_states.append(s)
            labelled.append(t >= perturb_until and t < L)  # returns are the expert's from here on
            _, reward, terminated, _, info = env.step(action)
            ep_rewards.append(reward)
            if terminated:
                break
        g = discounted_returns(np.array(ep_rewards), spec.gamma)
        mask = np.array(labelled)
        states.append(np.array(ep_states)[mask])
        returns.append(g[mask])
        episode_ids.append(np.full(int(mask.sum()), ep))
    return (
        np.concatenate(states).astype(np.float32),
        np.concatenate(returns).astype(np.float32),
        np.concatenate(episode_ids),
    )


def r_squared(pred: torch.Tensor, target: torch.Tensor) -> float:
    return float(1 - ((pred - target) ** 2).sum() / ((target - target.mean()) ** 2).sum().clamp_min(1e-12))


def near_goal_rmse(pred: torch.Tensor, target: torch.Tensor, quantile: float = 0.75) -> float:
    """RMS error (return units) among the states whose return is in the top quartile. The overall R² is dominated by
    the spread between failing and succeeding states (0.999 for a critic whose value near the goal slopes the wrong
    way); a planner compares candidates that all end near the goal, where the returns differ by hundredths."""
    top = target >= torch.quantile(target, quantile)
    return float((pred[top] - target[top]).pow(2).mean().sqrt())


def fit_critic(
    states: np.ndarray, returns: np.ndarray, episode_ids: np.ndarray, cfg: CriticFitConfig
) -> tuple[MLPCritic, dict[str, float]]:
    """Fit the MLP critic; returns it and its R² on held-out *episodes* (states of one episode are
    correlated, so a per-state split would overstate the fit), overall and near the goal."""
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    episodes = np.unique(episode_ids)
    val_eps = rng.permutation(episodes)[: max(1, int(len(episodes) * cfg.val_fraction))]
    is_val = np.isin(episode_ids, val_eps)
    val, train = np.flatnonzero(is_val), np.flatnonzero(~is_val)
    critic = MLPCritic(states.shape[1], cfg.hidden)
    x, y = torch.as_tensor(states), torch.as_tensor(returns)
    critic.state_mean.copy_(x[train].mean(0))
    critic.state_std.copy_(x[train].std(0).clamp_min(1e-3))
    critic.return_mean.copy_(y[train].mean())
    critic.return_std.copy_(y[train].std().clamp_min(1e-3))
    opt = torch.optim.Adam(critic.parameters(), lr=cfg.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, cfg.epochs)
    batch = 1024
    for _ in range(cfg.epochs):
        for chunk in torch.randperm(len(train)).split(batch):
            ids = train[chunk.numpy()]
            loss = ((critic(x[ids]) - y[ids]) / critic.return_std).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
    with torch.no_grad():
        pred = critic(x[val])
    r2, rmse_top = r_squared(pred, y[val]), near_goal_rmse(pred, y[val])
    log.info(
        "critic fitted on %d states; held-out R² %.4f, RMS error near the goal (top quartile of returns) %.3f",
        len(train),
        r2,
        rmse_top,
    )
    return critic.eval(), {"r2_heldout": r2, "rmse_heldout_near_goal": rmse_top}


def fit_and_save(
    task, directory: str | Path, cfg: CriticFitConfig = CriticFitConfig(), fitted_on: str | None = None
) -> float:
    """Fit the critic and save it in `directory`; `fitted_on` (`definition_hash`) records what it was fitted on."""
    states, returns, episode_ids = collect_expert_returns(task, cfg)
    critic, quality = fit_critic(states, returns, episode_ids, cfg)
    meta = {"task": task.spec.name, "gamma": task.spec.gamma, **quality, "states": int(len(states)), "fit": asdict(cfg)}
    critic.save(directory, {**meta, **({"fitted_on": fitted_on} if fitted_on else {})})
    return quality["r2_heldout"]


def _described(value: Any) -> Any:
    """A JSON-able description of what a critic depends on: a function by its source code, a dataclass by its
    fields (but those marked `metadata={"critic": False}`: settings of what uses the critic, not of what it values),
    containers element by element, anything else by its repr."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = [f for f in dataclasses.fields(value) if f.metadata.get("critic", True)]
        return {f.name: _described(getattr(value, f.name)) for f in fields}
    if isinstance(value, dict):
        return {str(k): _described(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [_described(v) for v in value]
    if callable(value) and not isinstance(value, type):
        try:
            return inspect.getsource(value).strip()
        except (OSError, TypeError):
            return getattr(value, "__qualname__", repr(value))
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))  # no memory address: the same definition, the same hash


def definition_hash(*parts: Any) -> str:
    """A hash of everything a fitted critic depends on (the task's reward, success, state, physics, spec, expert and
    the fit's settings): a change to any of them changes it, and the critic is fitted again."""
    text = json.dumps([_described(p) for p in parts], sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def recorded_definition(directory: str | Path) -> str | None:
    """The `fitted_on` hash a saved critic recorded ("" for one saved before critics recorded it; None: none)."""
    path = Path(directory) / "critic.json"
    if not (Path(directory) / "critic.safetensors").exists() or not path.exists():
        return None
    return json.loads(path.read_text()).get("fitted_on", "")
