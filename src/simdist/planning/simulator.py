"""Planning with the simulator in place of the learned dynamics: the decomposition `simdist diagnose` runs.

`simulator_rollouts` plays N action sequences from copies of a live environment and returns what each one
really led to: the observations, the true dense reward and the expert critic at the end. `SimulatorMPPIAgent`
is the task's own MPPI planner (same sampler, same settings, same random numbers) whose candidates are scored
from those rollouts, either with the model's learned reward and value heads on the encoded true observations
(`score="learned"`: perfect dynamics, learned return) or with the true return (`score="true"`: perfect model;
only the search can lose). A diagnostic only: it reads the simulator's state, which a robot cannot.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import mujoco
import numpy as np
import torch

from simdist.config import replace
from simdist.model.world_model import ACTION, PlanningContext
from simdist.planning.agent import MPPIAgent
from simdist.planning.mppi import MPPIPlanner
from simdist.planning.settings import MPPIConfig
from simdist.tasks.base import COMMAND_KEY

SCORES = ("learned", "true")


def simulator_copy(env):
    """A deep copy of a live environment that reports `dense_reward` and `privileged` in its infos: the copy's
    physics, latency queue and random state are the original's, only its reporting is `sim`'s."""
    clone = copy.deepcopy(env)
    if getattr(clone, "domain", "sim") != "sim":
        clone.domain = "sim"
    return clone


class _Copier:
    """Fast repeated deep copies of one environment: MuJoCo models are shared (a step never changes them) and
    each MjData is copied in C into a buffer of its own (mj_copyData: microseconds instead of deepcopy's 0.6 ms).
    MjData are found among the env's attributes and theirs; anything deeper is deep-copied as usual."""

    def __init__(self, env):
        self.env = env
        self.models: dict[int, mujoco.MjModel] = {}
        self.datas: list[tuple[mujoco.MjData, mujoco.MjData]] = []
        for obj in (env, *vars(env).values()):
            for value in vars(obj).values() if hasattr(obj, "__dict__") else ():
                if isinstance(value, mujoco.MjModel):
                    self.models[id(value)] = value
                elif isinstance(value, mujoco.MjData) and all(value is not d for d, _ in self.datas):
                    self.models[id(value.model)] = value.model
                    self.datas.append((value, mujoco.MjData(value.model)))

    def copy(self):
        memo = dict(self.models)
        for source, buffer in self.datas:
            mujoco.mj_copyData(buffer, source.model, source)
            memo[id(source)] = buffer
        return copy.deepcopy(self.env, memo)


@dataclass
class Rollouts:
    """What N action sequences of T steps did in the simulator."""

    obs: dict[str, np.ndarray]  # group -> (N, T, *shape): o_{t+1..t+T}
    rewards: np.ndarray  # (N, T) true dense rewards r_{t..t+T-1}
    terminal_value: np.ndarray  # (N,) expert critic V^e(s_{t+T}); 0 where the episode ended inside the horizon
    ended: np.ndarray  # (N,) bool: terminated or truncated before the T-th step

    def true_returns(self, discount: float) -> np.ndarray:
        T = self.rewards.shape[1]
        gammas = discount ** np.arange(T + 1)
        return self.rewards @ gammas[:T] + gammas[T] * self.terminal_value


def simulator_rollouts(env, critic, actions: np.ndarray) -> Rollouts:
    """Play each of `actions` (N, T, A; raw units) from a copy of `env`'s current state. A sequence whose episode
    ends early repeats its last observation and earns no further reward or terminal value."""
    copier = _Copier(simulator_copy(env))
    N, T = actions.shape[:2]
    obs_seq: dict[str, list] = {}
    rewards = np.zeros((N, T))
    terminal = np.zeros(N)
    ended = np.zeros(N, bool)
    for n in range(N):
        sim = copier.copy()
        seq = []
        obs = None
        for k in range(T):
            if not ended[n]:
                obs, _, terminated, truncated, info = sim.step(actions[n, k])
                rewards[n, k] = info["dense_reward"]
                ended[n] = (terminated or truncated) and k < T - 1
                if k == T - 1 and not terminated:
                    terminal[n] = critic.value(info["privileged"])
            seq.append(obs)
        for group in seq[0]:
            obs_seq.setdefault(group, []).append(np.stack([o[group] for o in seq]))
    return Rollouts({g: np.stack(v).astype(np.float32) for g, v in obs_seq.items()}, rewards, terminal, ended)


@torch.no_grad()
def learned_return_parts(
    model, ctx: PlanningContext, rollouts: Rollouts, actions_n: torch.Tensor, discount: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """(Σ γ^k r̂, v̂_{t+T}) in raw units from the model's reward and value heads over the *encoded true*
    observations of each rollout: what the learned return says when the dynamics are perfect."""
    device = actions_n.device
    obs = {g: torch.as_tensor(v, device=device) for g, v in rollouts.obs.items() if g != COMMAND_KEY}
    N, T = actions_n.shape[:2]
    flat = {g: v.reshape(N * T, *v.shape[2:]) for g, v in obs.items() if g in model.spec.obs_shapes}
    z_true = model.encode(flat).reshape(N, T, -1)
    return model.return_parts_n(ctx, z_true, actions_n, discount)


class SimulatorMPPIPlanner(MPPIPlanner):
    """The task's MPPI with candidates scored from simulator rollouts of `env` (set before each plan)."""

    def __init__(self, model, cfg: MPPIConfig, critic, score: str):
        if score not in SCORES:
            raise ValueError(f"unknown score {score!r}; valid: {list(SCORES)}")
        super().__init__(model, replace(cfg, compile=False))
        self.critic, self.score, self.env = critic, score, None

    def _returns(self, ctx: PlanningContext, candidates: torch.Tensor, policy_chunk: torch.Tensor) -> torch.Tensor:
        actions = self.model.normalizer.denormalize(ACTION, candidates)
        if self.low is not None:
            actions = torch.maximum(torch.minimum(actions, self.high), self.low)
        rollouts = simulator_rollouts(self.env, self.critic, actions.cpu().numpy())
        if self.score == "true":
            return torch.as_tensor(
                rollouts.true_returns(self.cfg.discount), dtype=torch.float32, device=candidates.device
            )
        rewards, terminal = learned_return_parts(self.model, ctx, rollouts, candidates, self.cfg.discount)
        gamma_T = self.cfg.discount ** candidates.shape[1]
        return rewards + self.cfg.value_weight * gamma_T * terminal


class SimulatorMPPIAgent(MPPIAgent):
    """MPPIAgent whose planner rolls candidates out in a copy of `env` (the env this agent acts in)."""

    def __init__(self, model, cfg: MPPIConfig, env, critic, score: str):
        super().__init__(model, replace(cfg, compile=False))
        self.planner = SimulatorMPPIPlanner(model, cfg, critic, score)
        self.planner.env = env


__all__ = [
    "SCORES",
    "Rollouts",
    "SimulatorMPPIAgent",
    "SimulatorMPPIPlanner",
    "learned_return_parts",
    "simulator_copy",
    "simulator_rollouts",
]
