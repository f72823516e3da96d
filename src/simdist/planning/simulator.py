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
from simdist.data.generate import critic_values as episode_values
from simdist.model.world_model import ACTION, PlanningContext
from simdist.planning.agent import MPPIAgent
from simdist.planning.mppi import MPPIPlanner
from simdist.planning.settings import MPPIConfig
from simdist.tasks.base import COMMAND_KEY
from simdist.tasks.sequences import Sequences

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
    values: np.ndarray | None = None  # (N, T) V^e(s_{t+1..t+T}), 0 after an end (with `step_values`)

    def true_returns(self, discount: float) -> np.ndarray:
        T = self.rewards.shape[1]
        gammas = discount ** np.arange(T + 1)
        return self.rewards @ gammas[:T] + gammas[T] * self.terminal_value


def critic_values(critic, states: np.ndarray) -> np.ndarray:
    """V^e of a stack of privileged states (..., P), batched as Alg. 2 labels its episodes."""
    flat = states.reshape(-1, states.shape[-1])
    return episode_values(critic, list(flat)).reshape(states.shape[:-1])


def simulator_rollouts(env, critic, actions: np.ndarray, step_values: bool = False) -> Rollouts:
    """Play each of `actions` (N, T, A; raw units) from a copy of `env`'s current state. A sequence whose episode
    ends early repeats its last observation and earns no further reward or terminal value. Envs that offer
    `simulate_sequences` (simdist.tasks.sequences) play all of them at once in native threads. `step_values`: also
    the critic at every step's state (the labels of `refine`'s candidate branches)."""
    batched = getattr(env, "simulate_sequences", None)
    played = batched(actions) if batched is not None else None
    if played is not None:
        return _masked(played, critic, step_values)
    return stepped_rollouts(env, critic, actions, step_values)


def stepped_rollouts(env, critic, actions: np.ndarray, step_values: bool = False) -> Rollouts:
    """`simulator_rollouts` for any env: each sequence stepped in its own copy of `env`."""
    copier = _Copier(simulator_copy(env))
    N, T = actions.shape[:2]
    obs_seq: dict[str, list] = {}
    rewards = np.zeros((N, T))
    terminal = np.zeros(N)
    ended = np.zeros(N, bool)
    states, reached = None, np.zeros((N, T), bool)
    for n in range(N):
        sim = copier.copy()
        seq = []
        obs = None
        for k in range(T):
            if not ended[n]:
                obs, _, terminated, truncated, info = sim.step(actions[n, k])
                rewards[n, k] = info["dense_reward"]
                ended[n] = (terminated or truncated) and k < T - 1
                if step_values:
                    states = np.zeros((N, T, len(info["privileged"]))) if states is None else states
                    states[n, k], reached[n, k] = info["privileged"], True
                if k == T - 1 and not terminated:
                    terminal[n] = critic.value(info["privileged"])
            seq.append(obs)
        for group in seq[0]:
            obs_seq.setdefault(group, []).append(np.stack([o[group] for o in seq]))
    values = None
    if step_values:
        values = np.where(reached, critic_values(critic, states), 0.0)  # 0 after an end: never reached
    return Rollouts({g: np.stack(v).astype(np.float32) for g, v in obs_seq.items()}, rewards, terminal, ended, values)


def _masked(played: Sequences, critic, step_values: bool = False) -> Rollouts:
    """`Sequences` as `Rollouts`: cut where the episode is truncated inside the horizon (the env never terminates
    early), as a copy of the env stepped one sequence at a time would be."""
    N, T = played.dense_reward.shape
    obs, rewards = {g: v.astype(np.float32) for g, v in played.obs.items()}, played.dense_reward.astype(float)
    values = critic_values(critic, played.privileged if step_values else played.privileged[:, -1:])
    if played.steps_left >= T:
        return Rollouts(obs, rewards, values[:, -1], np.zeros(N, bool), values if step_values else None)
    last = max(played.steps_left, 1) - 1  # the truncating step: its reward counts, nothing after it
    rewards[:, last + 1 :] = 0.0
    for v in obs.values():
        v[:, last + 1 :] = v[:, last : last + 1]
    if step_values:
        values[:, last + 1 :] = 0.0
    return Rollouts(obs, rewards, np.zeros(N), np.ones(N, bool), values if step_values else None)


@torch.no_grad()
def learned_return_parts(
    model, ctx: PlanningContext, rollouts: Rollouts, actions_n: torch.Tensor, discount: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """(Σ γ^k r̂, v̂_{t+T}) in raw units from the model's reward and value heads over the *encoded true*
    observations of each rollout: what the learned return says when the dynamics are perfect."""
    return model.return_parts_n(ctx, encoded_rollouts(model, rollouts, actions_n.device), actions_n, discount)


def encoded_rollouts(model, rollouts: Rollouts, device) -> torch.Tensor:
    """(N, T, D) latents of each rollout's true observations, from the model's encoder."""
    obs = {g: torch.as_tensor(v, device=device) for g, v in rollouts.obs.items() if g != COMMAND_KEY}
    N, T = rollouts.rewards.shape
    flat = {g: v.reshape(N * T, *v.shape[2:]) for g, v in obs.items() if g in model.spec.obs_shapes}
    return model.encode(flat).reshape(N, T, -1)


class SimPhysicsCritic:
    """The expert critic as a `sim`-trained value head could at best know it: each privileged state's gap entries
    (those where `real`, at the same initial condition, lies outside the spread of `resets` randomised `sim` resets)
    set to their `sim` mean. Found by comparison, so no task has to say which entries are its physics."""

    def __init__(self, critic, task, physics, initial_condition, resets: int = 16, seed: int = 0):
        def privileged(domain: str, phys, s: int) -> np.ndarray:
            env = task.make_env(domain, phys, seed=s)
            env.reset(seed=s, options={"initial_condition": initial_condition})
            return np.asarray(env.oracle_privileged_state(), np.float64)

        sims = np.stack([privileged("sim", None, seed + i) for i in range(resets)])
        real = privileged("real", physics, seed)
        self.nominal, spread = sims.mean(0), sims.std(0)
        self.gap = np.abs(real - self.nominal) > 3 * spread + 1e-6 * (1 + np.abs(self.nominal))
        self.critic = critic

    def _as_sim(self, privileged: np.ndarray) -> np.ndarray:
        out = np.array(privileged, np.float32, copy=True)
        out[..., self.gap] = self.nominal[self.gap]
        return out

    def value(self, privileged: np.ndarray) -> float:
        return self.critic.value(self._as_sim(privileged))

    def values(self, privileged: np.ndarray) -> np.ndarray:
        if hasattr(self.critic, "values"):
            return self.critic.values(self._as_sim(privileged))
        return np.array([self.critic.value(p) for p in self._as_sim(privileged)])


class SimulatorMPPIPlanner(MPPIPlanner):
    """The task's MPPI with candidates scored from simulator rollouts of `env` (set before each plan)."""

    def __init__(self, model, cfg: MPPIConfig, critic, score: str):
        if score not in SCORES:
            raise ValueError(f"unknown score {score!r}; valid: {list(SCORES)}")
        super().__init__(model, replace(cfg, compile=False))
        self.critic, self.score, self.env = critic, score, None

    def _returns(self, ctx: PlanningContext, candidates: torch.Tensor, policy_chunk: torch.Tensor) -> torch.Tensor:
        """The learned planner's objective with only the return estimate swapped: the same ensemble pessimism
        around the same BC reference (and, in `_iteration`, the same prior), so that `diagnose` compares one part."""
        estimate = self._estimate(ctx, candidates)
        kappa = self.cfg.pessimism
        if not (kappa and self.model.cfg.dynamics_ensemble):
            return estimate
        spread = self.model.return_spread_n(ctx, candidates, self.cfg.discount, self.cfg.value_weight, policy_chunk)
        return estimate - kappa * spread

    def _estimate(self, ctx: PlanningContext, candidates: torch.Tensor) -> torch.Tensor:
        """Each candidate's return from its simulator rollout: true, or the learned heads on true observations."""
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
    "SimPhysicsCritic",
    "SimulatorMPPIAgent",
    "SimulatorMPPIPlanner",
    "learned_return_parts",
    "simulator_copy",
    "simulator_rollouts",
    "stepped_rollouts",
]
