"""MPPI over the world model (paper §III-C, Tables III/VIII). Nothing here is task-specific.

Each control step:
  1. encode the state and context once (`WorldModel.planning_context`; cross-attention K/V cached);
  2. for each iteration, score N Gaussian sequences around (mean, std) plus N_b noised base-policy chunks
     with R = Σ_{k<T} γ^k r̂_{t+k} + γ^T v̂_{t+T} (v̂_{t+T} is the critic at the state after the last action);
  3. refit mean/std to the top-K elites weighted by exp(temperature · (R − R_max));
  4. execute mean[0], unless its predicted gain over the BC chunk is within the model's own return error
     (`MPPIConfig.gate_weight`; WorldModel.return_error) or, with `MPPIConfig.accept="unanimous"`, some dynamics
     member predicts no gain: then the BC chunk's first action.
Sampling happens in normalised action units (so one std fits every action dimension) and is clipped to
the action bounds. Warm start: the previous mean shifted one step (the authors' roll-and-zero discards it).
A non-finite return is never an elite; if no return is finite, the plan falls back to the base policy.

With `MPPIConfig.compile` one iteration (sampling from the given noise, clipping, `WorldModel.plan_returns_n`,
the elite refit) and the base-policy head run through `torch.compile` (static shapes; the random numbers are
still drawn eagerly from the planner's generator, so the plan is the eager one up to float rounding, see
tests/test_mppi.py). The planner compiles when it is built (`compile_s`), so an MPPIAgent's first control
step is not late; where compiling fails (a machine without a C++ compiler) it warns and plans eagerly.
"""

from __future__ import annotations

import ctypes
import logging
import sys
import time
from dataclasses import dataclass
from math import nan

import torch

from simdist.model.world_model import ACTION, PROPRIO, PlanningContext, WorldModel
from simdist.planning.settings import MPPIConfig
from simdist.precision import use_cpu_bf16

log = logging.getLogger(__name__)


@dataclass
class PlanResult:
    action: torch.Tensor  # (A,) raw units, within bounds
    mean: torch.Tensor  # (T, A) normalised plan
    best_return: float
    fallback: bool  # True when no candidate had a finite return
    gated: bool = False  # True when the BC chunk acted instead of the plan (gate_weight, accept)
    distance_to_head: float = 0.0  # RMS over action dims of executed − BC first action, normalised units
    gain: float = float("nan")  # predicted gain of the plan over the BC chunk (computed where the gate is on)


class MPPIPlanner:
    def __init__(self, model: WorldModel, cfg: MPPIConfig):
        if cfg.elites > cfg.samples + cfg.policy_samples:
            raise ValueError(
                f"elites ({cfg.elites}) exceeds the number of candidates ({cfg.samples} + {cfg.policy_samples})"
            )
        if cfg.accept == "unanimous" and not model.cfg.dynamics_ensemble:
            raise ValueError("mppi.accept=unanimous needs a model with dynamics members (model.dynamics_ensemble > 0)")
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
        # With `keep_candidates` (eager planning only) the last iteration's candidates and scores stay readable:
        # `refine` plays some of them in the simulator to train where the planner looks.
        self.keep_candidates = False
        self.last_candidates = self.last_scores = None
        if cfg.retain_heap:
            retain_heap()
        self._iterate = self._policy = None
        self.compile_s = 0.0  # one-off cost of `compile`, paid here so that the first control step is not late
        if cfg.compile:
            self._iterate, self._policy = _compiled_heads(self)
            try:
                self.compile_s = self.warmup()
            except Exception as err:  # e.g. no C++ compiler for inductor: plan eagerly rather than not at all
                log.warning("MPPI: torch.compile failed (%s: %s); planning eagerly", type(err).__name__, err)
                self._iterate = self._policy = None

    @torch.no_grad()
    def warmup(self) -> float:
        """Run the compiled functions once on a zero state (seconds taken: compiling, or loading inductor's
        on-disk cache; 0 without `compile`). The random generator and the warm start are untouched."""
        if self._iterate is None:
            return 0.0
        t0 = time.perf_counter()
        spec, H = self.model.spec, self.model.cfg.history
        zeros = lambda *s: torch.zeros(1, *s, device=self.device)
        obs = {name: zeros(*shape) for name, shape in spec.obs_shapes.items()}
        command = zeros(spec.command_dim) if spec.command_dim else None
        ctx = self.model.planning_context(obs, zeros(H, spec.obs_shapes[PROPRIO][0]), zeros(H, self.A), command)
        policy_chunk = self._clip(self._policy(ctx.z, ctx.policy_kv, ctx.command_n)[0])
        std = torch.full((self.T, self.A), self.cfg.init_std, device=self.device)
        noise = [
            torch.zeros(n, self.T, self.A, device=self.device) for n in (self.cfg.samples, self.cfg.policy_samples)
        ]
        self._iterate(
            ctx.z, ctx.dynamics_kv, ctx.member_kv, ctx.command_n, policy_chunk.clone(), std, policy_chunk, *noise
        )
        seconds = time.perf_counter() - t0
        log.info("MPPI: compiled the planner iteration in %.1f s", seconds)
        return seconds

    def _returns(self, ctx: PlanningContext, candidates: torch.Tensor, policy_chunk: torch.Tensor) -> torch.Tensor:
        return self.model.plan_returns_n(
            ctx, candidates, self.cfg.discount, self.cfg.value_weight, self.cfg.pessimism, policy_chunk
        )

    def _policy_chunk(self, ctx: PlanningContext) -> torch.Tensor:
        if self._policy is None:
            return self.model.plan_policy_n(ctx)
        return _call_compiled(self._policy, ctx.z, ctx.policy_kv, ctx.command_n)

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
        policy_chunk = self._clip(self._policy_chunk(ctx)[0])  # (T, A)
        mean = self.initial_mean(policy_chunk)
        std = torch.full((T, A), cfg.init_std, device=self.device)
        fallback, best = False, float("nan")
        for _ in range(cfg.iterations):
            noise = torch.randn((cfg.samples, T, A), generator=self.generator, device=self.device)
            policy_noise = torch.randn((cfg.policy_samples, T, A), generator=self.generator, device=self.device)
            if self._iterate is None or self.keep_candidates:
                new_mean, new_std, best_r = self._iteration(ctx, mean, std, policy_chunk, noise, policy_noise)
            else:
                new_mean, new_std, best_r = _call_compiled(
                    self._iterate,
                    ctx.z,
                    ctx.dynamics_kv,
                    ctx.member_kv,
                    ctx.command_n,
                    mean,
                    std,
                    policy_chunk,
                    noise,
                    policy_noise,
                )
            if not torch.isfinite(best_r):
                fallback = True
                mean = policy_chunk
                break
            mean, std, best = new_mean, new_std, float(best_r)
        mean = self._clip(torch.nan_to_num(mean))
        gain = self.predicted_gain(ctx, mean, policy_chunk) if self.gate_threshold() > 0 and not fallback else nan
        gated = gain <= self.gate_threshold()  # False for nan: ungated
        if cfg.accept == "unanimous" and not (fallback or gated):
            gated = not self.unanimous(ctx, mean, policy_chunk)
        if gated:
            mean = policy_chunk
        self.prev_mean = mean
        action = self.model.normalizer.denormalize(ACTION, mean[0])
        if self.low is not None:  # exact raw bounds (the normalised clip can be off by rounding)
            action = torch.maximum(torch.minimum(action, self.high), self.low)
        distance = float((mean[0] - policy_chunk[0]).pow(2).mean().sqrt())
        return PlanResult(
            action=action,
            mean=mean,
            best_return=best,
            fallback=fallback,
            gated=gated,
            distance_to_head=distance,
            gain=gain,
        )

    def gate_threshold(self) -> float:
        """gate_weight × the model's measured return error: the plan acts only where its predicted gain over the BC
        chunk exceeds this. Near the goal the candidates differ by less than that error and the search ranks noise,
        but small consistent gains (the point mass's after Alg. 1) fall under it too, so it is opt-in. 0 (no gate)
        where the model has no measured error or gate_weight is 0: the paper's planner."""
        return self.cfg.gate_weight * float(self.model.return_error)

    def predicted_gain(self, ctx: PlanningContext, mean: torch.Tensor, policy_chunk: torch.Tensor) -> float:
        """The plan's score minus the BC chunk's, scored as the search scores its candidates."""
        pair = torch.stack((mean, policy_chunk))
        scores = self._returns(ctx, pair, policy_chunk) - prior_penalty(pair, policy_chunk, self.cfg)
        return float(scores[0] - scores[1])

    def unanimous(self, ctx: PlanningContext, mean: torch.Tensor, policy_chunk: torch.Tensor) -> bool:
        """Whether the paper's dynamics and every member predict that the plan's return beats the BC chunk's."""
        returns = self.model.member_returns_n(ctx, mean[None], self.cfg.discount, self.cfg.value_weight, policy_chunk)
        return bool((returns[:, 0] > returns[:, 1]).all())

    def _iteration(
        self,
        ctx: PlanningContext,
        mean: torch.Tensor,
        std: torch.Tensor,
        policy_chunk: torch.Tensor,
        noise: torch.Tensor,
        policy_noise: torch.Tensor,
    ):
        """One MPPI iteration (eager): sample around (mean, std) and the base policy, score, refit."""
        prior = policy_chunk + self.cfg.policy_noise_std * policy_noise
        candidates = self._clip(torch.cat((mean + std * noise, prior)))
        returns = self._returns(ctx, candidates, policy_chunk) - prior_penalty(candidates, policy_chunk, self.cfg)
        if self.keep_candidates:
            self.last_candidates, self.last_scores = candidates, returns
        return refit(candidates, returns, self.cfg, self.model.return_error)


def prior_penalty(candidates: torch.Tensor, policy_chunk: torch.Tensor, cfg: MPPIConfig) -> torch.Tensor | float:
    """prior_weight · mean squared distance (normalised units) of each candidate to the BC chunk: a Gaussian
    log-prior around the base policy, so that the planner departs from it only for a predicted gain."""
    if cfg.prior_weight == 0.0:
        return 0.0
    return cfg.prior_weight * ((candidates - policy_chunk) ** 2).mean(dim=(1, 2))


def refit(candidates: torch.Tensor, returns: torch.Tensor, cfg: MPPIConfig, return_error: torch.Tensor | float = 0.0):
    """(mean, std, best return) of the top-K elites weighted by exp(temperature · (R − R_max) / unit). The unit is 1
    (raw returns, the paper's) or, with `cfg.weights="scaled"`, the larger of the elites' return spread and the
    model's measured return error: elites the model cannot tell apart are averaged, and only a gain it is sure of
    moves the plan, on every task's reward scale. A non-finite return is never an elite: it gets weight 0 (no
    data-dependent shapes, so this compiles into one graph); if the best return is not finite the caller falls
    back to the base policy."""
    returns = torch.where(torch.isfinite(returns), returns, torch.full_like(returns, -torch.inf))
    elite_r, idx = torch.topk(returns, cfg.elites)
    finite = torch.isfinite(elite_r)
    gap = elite_r - elite_r[0]
    if cfg.weights == "scaled":
        spread = torch.where(finite, elite_r, elite_r[0]).std() if cfg.elites > 1 else torch.zeros(())
        gap = gap / torch.clamp(torch.maximum(spread, torch.as_tensor(return_error, dtype=gap.dtype)), min=1e-8)
    weights = torch.where(finite, torch.exp(cfg.temperature * gap), torch.zeros_like(elite_r))
    weights = (weights / weights.sum())[:, None, None]
    elites = candidates[idx]
    mean = (weights * elites).sum(0)
    std = ((weights * (elites - mean) ** 2).sum(0)).sqrt().clamp(cfg.min_std, cfg.max_std)
    return mean, std, elite_r[0]


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc mallopt parameters
_heap_retained = False


def retain_heap(trim_bytes: int = 256 << 20, mmap_bytes: int = 32 << 20) -> bool:
    """Stop glibc from returning freed memory to the OS (below `trim_bytes` at the heap top) and from serving
    allocations under `mmap_bytes` with fresh mmaps. By default every plan's temporaries (MB-sized activations)
    come back as new pages: ~5,000 minor page faults per quadruped-cpu plan, 0 with this. Process-wide and
    idempotent; freed memory is reused by the process, not leaked. False where unavailable (not glibc)."""
    global _heap_retained
    if _heap_retained:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        trim_ok = libc.mallopt(_M_TRIM_THRESHOLD, trim_bytes)
        _heap_retained = bool(trim_ok and libc.mallopt(_M_MMAP_THRESHOLD, mmap_bytes))
    except (OSError, AttributeError):
        return False
    log.debug("MPPI: heap retention %s", "on" if _heap_retained else "unavailable")
    return _heap_retained


def _call_compiled(fn, *args):
    """Dynamo re-checks ~150 parameter guards per call (0.24 ms, 4 % of a quadruped-cpu plan). After warm-up the
    planner calls with the shapes, dtypes and grad mode it compiled for (candidates are its own, the context
    comes from the same model), so the checks are skipped; the weights stay graph inputs, read at each call.
    Should a call still need a new graph, it is compiled normally (first call, or a changed input)."""
    try:
        with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
            return fn(*args)
    except RuntimeError as err:
        if "skip_guard_eval_unsafe" not in str(err):
            raise
        log.debug("MPPI: compiling the planner iteration for new inputs")
        return fn(*args)


def _compiled_heads(planner: MPPIPlanner):
    """torch.compile'd (iteration, policy) functions of plain tensors: sampling around (mean, std) from the
    given noise, clipping, scoring and the elite refit in one graph. Bound to the planner's model; its weights
    stay graph inputs (finetuning is seen), a new shape or dtype recompiles."""
    model, cfg, clip = planner.model, planner.cfg, planner._clip
    bf16 = use_cpu_bf16(cfg.cpu_bf16, planner.device)

    def iterate(z, dynamics_kv, member_kv, command_n, mean, std, policy_chunk, noise, policy_noise):
        ctx = PlanningContext(z, dynamics_kv, [], command_n, member_kv)
        candidates = clip(torch.cat((mean + std * noise, policy_chunk + cfg.policy_noise_std * policy_noise)))
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):  # the model's products; the refit in fp32
            returns = WorldModel.plan_returns_n(
                model, ctx, candidates, cfg.discount, cfg.value_weight, cfg.pessimism, policy_chunk
            ).float()
        return refit(candidates, returns - prior_penalty(candidates, policy_chunk, cfg), cfg, model.return_error)

    def policy(z, policy_kv, command_n):  # z: the single-step head's input, where the model has one
        return WorldModel.plan_policy_n(model, PlanningContext(z, [], policy_kv, command_n))

    return torch.compile(iterate, dynamic=False), torch.compile(policy, dynamic=False)
