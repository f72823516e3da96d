"""Agents that act in an environment from raw observation dicts: MPPI with the world model, or its BC head.

The agent keeps the robot-side history buffer: at reset it is filled with the first observation and zero
actions (the same convention as the training windows), then each `act` appends (o_t, a_t).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import numpy as np
import torch

from simdist.model.world_model import ACTION, PlanningContext, WorldModel
from simdist.planning.mppi import MPPIPlanner, PlanResult
from simdist.planning.settings import MPPIConfig
from simdist.tasks.base import COMMAND_KEY, PROPRIO_KEY


class _HistoryAgent:
    def __init__(self, model: WorldModel):
        self.model = model.eval()
        self.device = next(model.parameters()).device
        self.H = model.cfg.history
        self._proprio: deque = deque(maxlen=self.H)
        self._action: deque = deque(maxlen=self.H)

    def reset(self) -> None:
        self._proprio.clear()
        self._action.clear()

    def model_inputs(self, obs: dict[str, np.ndarray]):
        """(observation, proprio history, action history, command) tensors with a batch of one, as the model's
        `planning_context` takes them; validates `obs`, and fills the history on an episode's first step."""
        spec = self.model.spec
        for name, shape in spec.obs_shapes.items():
            if name not in obs:
                raise KeyError(f"observation is missing group {name!r}; the model needs {sorted(spec.obs_shapes)}")
            if np.shape(obs[name]) != tuple(shape):
                raise ValueError(f"observation {name!r} has shape {np.shape(obs[name])}, the model expects {shape}")
            if not np.all(np.isfinite(obs[name])):
                raise ValueError(f"observation {name!r} contains NaN or Inf")
        if not self._proprio:  # first step: ring buffer filled with the first observation and zero actions
            for _ in range(self.H):
                self._proprio.append(np.asarray(obs[PROPRIO_KEY], np.float32))
                self._action.append(np.zeros(spec.action_dim, np.float32))
        as_t = lambda x: torch.as_tensor(np.asarray(x, np.float32), device=self.device).unsqueeze(0)
        obs_t = {name: as_t(obs[name]) for name in spec.obs_shapes}
        command = as_t(obs[COMMAND_KEY]) if spec.command_dim else None
        return obs_t, as_t(np.stack(self._proprio)), as_t(np.stack(self._action)), command

    def _record(self, obs: dict[str, np.ndarray], action: np.ndarray) -> None:
        self._proprio.append(np.asarray(obs[PROPRIO_KEY], np.float32))
        self._action.append(action.astype(np.float32))

    def observe(self, obs: dict[str, np.ndarray], action: np.ndarray) -> None:
        """A step someone else drove (an operator's takeover): keep the history true to what was executed."""
        self.model_inputs(obs)  # validates, and fills the ring buffer on an episode's first step
        self._record(obs, np.asarray(action, np.float32))


class MPPIAgent(_HistoryAgent):
    def __init__(self, model: WorldModel, cfg: MPPIConfig):
        super().__init__(model)
        self.planner = MPPIPlanner(model, cfg)
        self.last_plan: PlanResult | None = None
        self.on_plan: Callable[[PlanningContext, PlanResult], None] | None = None  # diagnostics' hook
        self._plans: list[PlanResult] = []

    def reset(self) -> None:
        super().reset()
        self.planner.reset()
        self._plans = []

    def episode_plan_metrics(self) -> dict[str, float]:
        """This episode's share of steps that executed the plan rather than the BC chunk (the gate, MPPIConfig.
        gate_weight) and the mean distance of the executed action from the BC head's (normalised units)."""
        if not self._plans:
            return {}
        return {
            "planner_acted": float(np.mean([not p.gated for p in self._plans])),
            "action_distance_to_head": float(np.mean([p.distance_to_head for p in self._plans])),
        }

    def reseed(self, seed: int) -> None:
        """The planner's noise for the episode of `seed`, from (MPPIConfig.seed, seed) alone (see simdist.rollout)."""
        state = np.random.SeedSequence([self.planner.cfg.seed, seed]).generate_state(2)
        self.planner.generator.manual_seed(int(state[0]) << 32 | int(state[1]))

    def observe(self, obs: dict[str, np.ndarray], action: np.ndarray) -> None:
        super().observe(obs, action)
        self.planner.reset()  # the warm start no longer follows the executed actions

    def act(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        obs_t, hist_p, hist_a, command = self.model_inputs(obs)
        ctx = self.model.planning_context(obs_t, hist_p, hist_a, command)
        self.last_plan = self.planner.plan(ctx)
        self._plans.append(self.last_plan)
        if self.on_plan is not None:
            self.on_plan(ctx, self.last_plan)
        action = self.last_plan.action.cpu().numpy()
        self._record(obs, action)
        return action


class PolicyAgent(_HistoryAgent):
    """Executes the first action of the BC head's chunk (no planning). With `ensemble_decay` it executes ACT's
    temporal ensemble (Zhao et al., 2023) instead: the weighted mean of what each of the last T chunks planned for
    this step, the chunk made k steps ago weighted exp(-ensemble_decay * k) (0: a plain mean), which averages the
    noise of T observations at the cost of some lag."""

    def __init__(self, model: WorldModel, ensemble_decay: float | None = None):
        super().__init__(model)
        if ensemble_decay is not None and ensemble_decay < 0:
            raise ValueError(f"ensemble_decay must be >= 0 (0: a plain mean), got {ensemble_decay}")
        self.ensemble_decay = ensemble_decay
        self._chunks: deque = deque(maxlen=model.cfg.horizon)  # newest first: chunk k was made k steps ago

    def reset(self) -> None:
        super().reset()
        self._chunks.clear()

    def observe(self, obs: dict[str, np.ndarray], action: np.ndarray) -> None:
        super().observe(obs, action)
        self._chunks.clear()  # planned before someone else drove: no longer what this step should follow

    def bc_chunk(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        """The BC head's (T, A) chunk, raw units, unclipped (history not yet updated)."""
        obs_t, hist_p, hist_a, command = self.model_inputs(obs)
        ctx = self.model.planning_context(obs_t, hist_p, hist_a, command)
        return self.model.normalizer.denormalize(ACTION, self.model.plan_policy_n(ctx)[0]).cpu().numpy()

    def bc_action(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        """The first action of the BC head's chunk, raw units, unclipped (history not yet updated)."""
        return self.bc_chunk(obs)[0]

    def act(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        if self.ensemble_decay is None:
            return self.execute(obs, self.bc_action(obs))
        self._chunks.appendleft(self.bc_chunk(obs))
        weights = np.exp(-self.ensemble_decay * np.arange(len(self._chunks)))
        planned = np.stack([chunk[k] for k, chunk in enumerate(self._chunks)])  # each chunk's action for now
        return self.execute(obs, weights @ planned / weights.sum())

    def execute(self, obs: dict[str, np.ndarray], action: np.ndarray) -> np.ndarray:
        """Clip to the action bounds and record the executed action in the history."""
        spec = self.model.spec
        if spec.action_low:
            action = np.clip(action, spec.action_low, spec.action_high)
        self._record(obs, action)
        return action
