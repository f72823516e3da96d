"""MPPI over the world model (paper §III-C, Tables III/VIII). Nothing here is task-specific.

Each control step:
  1. encode the state and context once (`WorldModel.planning_context`; cross-attention K/V cached);
  2. for each iteration, score N Gaussian sequences around (mean, std) plus N_b noised base-policy chunks
     with R = Σ_{k<T} γ^k r̂_{t+k} + γ^T v̂_{t+T} (v̂_{t+T} is the critic at the state after the last action);
  3. refit mean/std to the top-K elites weighted by exp(temperature · (R − R_max));
  4. execute mean[0].
Sampling happens in normalised action units (so one std fits every action dimension) and is clipped to
the action bounds. Warm start: the previous mean shifted one step (the authors' roll-and-zero discards it).
A non-finite return is never an elite; if no return is finite, the plan falls back to the base policy.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from simdist.config import MPPIConfig
from simdist.model.world_model import ACTION, PlanningContext, WorldModel


@dataclass
class PlanResult:
    action: torch.Tensor  # (A,) raw units, within bounds
    mean: torch.Tensor  # (T, A) normalised plan
    best_return: float
    fallback: bool  # True when no candidate had a finite return


class MPPIPlanner:
    def __init__(self, model: WorldModel, cfg: MPPIConfig):
        if cfg.elites > cfg.samples + cfg.policy_samples:
            raise ValueError(f"elites ({cfg.elites}) exceeds the number of candidates "
                             f"({cfg.samples} + {cfg.policy_samples})")
        self.model, self.cfg = model.eval(), cfg
        self.T, self.A = model.cfg.horizon, model.spec.action_dim
        norm = model.normalizer
        device = next(model.parameters()).device
        if model.spec.action_low:
            self.low = torch.tensor(model.spec.action_low, dtype=torch.float32, device=device)
            self.high = torch.tensor(model.spec.action_high, dtype=torch.float32, device=device)
            self.low_n, self.high_n = norm.normalize(ACTION, self.low), norm.normalize(ACTION, self.high)
        else:
            self.low = self.high = self.low_n = self.high_n = None
        self.generator = torch.Generator(device=device).manual_seed(cfg.seed)
        self.device = device
        self.prev_mean: torch.Tensor | None = None

    def reset(self) -> None:
        self.prev_mean = None

    def _clip(self, a: torch.Tensor) -> torch.Tensor:
        return a if self.low_n is None else torch.maximum(torch.minimum(a, self.high_n), self.low_n)

    def initial_mean(self, policy_chunk: torch.Tensor) -> torch.Tensor:
        """Shift the previous plan one step (repeating its last action), or start from the base policy."""
        if self.cfg.warm_start and self.prev_mean is not None:
            return torch.cat((self.prev_mean[1:], self.prev_mean[-1:]), dim=0)
        return policy_chunk.clone()

    @torch.no_grad()
    def plan(self, ctx: PlanningContext) -> PlanResult:
        cfg, T, A = self.cfg, self.T, self.A
        policy_chunk = self._clip(self.model.plan_policy_n(ctx)[0])  # (T, A)
        mean = self.initial_mean(policy_chunk)
        std = torch.full((T, A), cfg.init_std, device=self.device)
        noise_shape = (cfg.samples, T, A)
        fallback, best = False, float("nan")
        for _ in range(cfg.iterations):
            gauss = mean + std * torch.randn(noise_shape, generator=self.generator, device=self.device)
            prior = policy_chunk + cfg.policy_noise_std * torch.randn(
                (cfg.policy_samples, T, A), generator=self.generator, device=self.device)
            candidates = self._clip(torch.cat((gauss, prior), dim=0))
            returns = self.model.plan_returns_n(ctx, candidates, cfg.discount)
            returns = torch.where(torch.isfinite(returns), returns, torch.full_like(returns, -torch.inf))
            elite_r, idx = torch.topk(returns, cfg.elites)
            if not torch.isfinite(elite_r[0]):
                fallback = True
                mean = policy_chunk
                break
            finite = torch.isfinite(elite_r)
            elites = candidates[idx[finite]]
            weights = torch.exp(cfg.temperature * (elite_r[finite] - elite_r[0]))
            weights = (weights / weights.sum())[:, None, None]
            mean = (weights * elites).sum(0)
            std = ((weights * (elites - mean) ** 2).sum(0)).sqrt().clamp(cfg.min_std, cfg.max_std)
            best = float(elite_r[0])
        mean = self._clip(torch.nan_to_num(mean))
        self.prev_mean = mean
        action = self.model.normalizer.denormalize(ACTION, mean[0])
        if self.low is not None:  # exact raw bounds (the normalised clip can be off by rounding)
            action = torch.maximum(torch.minimum(action, self.high), self.low)
        return PlanResult(action=action, mean=mean, best_return=best, fallback=fallback)
