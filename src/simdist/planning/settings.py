"""MPPI's settings (paper Tables III and VIII) and named presets, and the planner a command runs: a preset, then
the task's own settings, then the user's `--set mppi.FIELD=VALUE`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from simdist.config import replace
from simdist.overrides import parse_overrides
from simdist.precision import check_cpu_bf16
from simdist.presets import Registry

WEIGHTS = ("raw", "scaled")
ACCEPT = ("always", "unanimous")


@dataclass(frozen=True)
class MPPIConfig:
    """Planner settings (paper Tables III and VIII)."""

    samples: int = 250  # Gaussian action sequences
    policy_samples: int = 100  # noised base-policy chunks
    iterations: int = 3
    elites: int = 64
    temperature: float = 0.4  # multiplies (R - R_max) / unit in the exponent, as the authors' code does
    # The unit of (R - R_max): "raw" (1, the paper's) or "scaled": the larger of the elites' return spread and the
    # model's measured return error, so one temperature means the same on every reward scale (mppi.refit).
    weights: str = "raw"
    init_std: float = 1.0  # in normalised action units (multiples of the dataset action std)
    min_std: float = 0.05
    max_std: float = 2.0
    policy_noise_std: float = 0.1
    # Penalty on leaving the BC chunk: R - prior_weight * mean((a - a_BC)^2) over the horizon, in normalised action
    # units. 0 is the paper's planner; > 0 keeps the planner where the model was trained (docs/findings.md).
    prior_weight: float = 0.0
    discount: float = 0.99
    # Weight of the terminal value in the return (1: the paper). Below 1 the planner leans on the predicted rewards,
    # which the adapted dynamics moves, rather than on the frozen value head (docs/tasks/peg-insertion.md).
    value_weight: float = 1.0
    # Pessimism where the model has ensemble decoders (ModelConfig.dynamics_ensemble; no effect without them): a
    # candidate scores the paper's return minus κ × the members' spread of its gain over the BC chunk
    # (WorldModel.plan_returns_n). In units of the model's own uncertainty, so one value fits every task. `none`: κ
    # is the elites' expected selection bias (`pessimism`; 1.4 for `cpu`), which lifts MPPI towards its head in `sim`
    # but holds Alg. 1 near the head in `real` (pendulum 0.05 -> 0.05 against 0.05 -> 0.95; docs/findings.md).
    uncertainty_weight: float | None = 0.5
    # Act on the plan only where its predicted gain over the BC chunk exceeds gate_weight × the model's measured
    # return error (WorldModel.return_error, from held-out simulation windows); otherwise execute the BC chunk. 0: the
    # paper's planner. Opt-in: 0.1 lifts MPPI to its head in `sim` (InvertedPendulum 0.00 -> 1.00) but blocks the
    # small per-step gains that adaptation needs (point mass 0.80 -> 0.00 after 4 rounds; docs/findings.md).
    gate_weight: float = 0.0
    # Which plans act: "always" (the paper's) or "unanimous": only a plan that the paper's dynamics and every
    # ensemble member (ModelConfig.dynamics_ensemble) predict to gain over the BC chunk, however little; otherwise
    # the chunk. A test of the members' agreement, not of the gain's size, so it has no scale to set per task.
    accept: str = "always"
    # Start each step's search from the previous plan shifted one step. Off (the authors' code, whose roll discards
    # the previous plan): each step searches afresh around the BC chunk. Shifted, the plan random-walks away from the
    # chunk step after step: even with the true dynamics and return the pendulum's MPPI fell from 1.00 to 0.60
    # (docs/findings.md, "Planning").
    warm_start: bool = False
    seed: int = 0
    # torch.compile each MPPI iteration (sampling, scoring, elite refit) and the base-policy head; same plans up to
    # float rounding. Opt-in: 3 s per planner with inductor's on-disk cache, 15-40 s cold (docs/benchmarks.md).
    compile: bool = False
    # Keep freed memory in the process heap (glibc mallopt, process-wide, Linux): otherwise every plan re-faults
    # its temporaries (~5,000 page faults per quadruped-cpu plan, +50 % latency in half the processes measured).
    retain_heap: bool = True
    # With `compile`, score the candidates with bf16 matrix products where the CPU has bf16 matrix units (AMX,
    # AVX512-BF16): "auto" (there, fp32 elsewhere), "on" or "off" (simdist.precision). The plans match the fp32 ones
    # within the tolerance of tests/test_precision.py; the elite refit stays fp32 (docs/benchmarks.md).
    cpu_bf16: str = "auto"

    def __post_init__(self) -> None:
        check_cpu_bf16(self.cpu_bf16)
        if self.weights not in WEIGHTS:
            raise ValueError(f"mppi.weights must be one of {list(WEIGHTS)}, got {self.weights!r}")
        if self.accept not in ACCEPT:
            raise ValueError(f"mppi.accept must be one of {list(ACCEPT)}, got {self.accept!r}")

    @property
    def pessimism(self) -> float:
        """κ: `uncertainty_weight`, or where it is None the elites' expected selection bias."""
        if self.uncertainty_weight is not None:
            return self.uncertainty_weight
        return elite_selection_bias(self.elites, self.samples + self.policy_samples)


def elite_selection_bias(elites: int, candidates: int) -> float:
    """How far, in standard deviations, the noise of the top `elites` of `candidates` equally noisy return estimates
    lies above zero on average: φ(Φ⁻¹(1 − q)) / q for q = elites / candidates (the mean of a normal's upper tail).
    The planner's pessimism subtracts this many of the model's own spreads: 1.40 for the `cpu` preset's 32 of 160."""
    q = elites / candidates
    if q >= 1.0:
        return 0.0
    unit = NormalDist()
    return unit.pdf(unit.inv_cdf(1.0 - q)) / q


MPPI_PRESETS: dict[str, Callable[[], MPPIConfig]] = {
    # The small-control family (pendulum, point mass, Gymnasium tasks): a fresh search each step, 0.3 of the data's
    # action spread around the BC chunk, so the plan leaves the head where the model predicts a gain and adapts
    # with the dynamics (docs/findings.md, "Planning").
    "cpu": lambda: MPPIConfig(samples=128, policy_samples=32, iterations=3, elites=32, temperature=0.5, init_std=0.3),
    "paper-manipulation": lambda: MPPIConfig(
        samples=250, policy_samples=100, iterations=3, elites=64, temperature=0.4, init_std=1.0, policy_noise_std=0.1
    ),
    # The paper's manipulation sampler held near the BC chunk: on Peg Insertion at CPU scale the planner without the
    # prior never grasps (its value errors dwarf the shaping), and wide BC noise spoils the millimetre insertion
    # (docs/tasks/peg-insertion.md, "Peg Insertion").
    "manipulation-prior": lambda: replace(
        mppi_preset("paper-manipulation"), prior_weight=1000.0, policy_noise_std=0.02
    ),
    "paper-quadruped": lambda: MPPIConfig(
        samples=450, policy_samples=22, iterations=8, elites=64, temperature=0.25, init_std=2.0, policy_noise_std=0.05
    ),
    # Sized for 50 Hz on 2 CPU cores with the paper-quadruped model: the warm start carries the previous
    # solution, so 2 iterations over 72 candidates replace 8 over 472 (docs/benchmarks.md); it keeps the warm start
    # it was measured with. The prior penalty stops the planner exploiting the small model (sim success 0.03 -> 0.50
    # over 3 speeds, docs/findings.md).
    "quadruped-cpu": lambda: MPPIConfig(
        samples=64,
        policy_samples=8,
        iterations=2,
        elites=16,
        temperature=0.25,
        init_std=2.0,
        policy_noise_std=0.05,
        prior_weight=2.0,
        warm_start=True,
    ),
    # The same planner compiled: a one-off compile when the agent is built, then 14-16 ms instead of 19-21 ms plans.
    "quadruped-cpu-compiled": lambda: replace(mppi_preset("quadruped-cpu"), compile=True),
}
MPPI_REGISTRY: Registry[MPPIConfig] = Registry("mppi", MPPI_PRESETS)


def mppi_preset(name: str) -> MPPIConfig:
    return MPPI_REGISTRY.get(name)


def task_planner(
    task, preset: str | MPPIConfig, overrides: Sequence[str] = (), prior_weight: float | None = None
) -> MPPIConfig:
    """``task.spec.planner_overrides`` holds what a task's author knows about its planner (e.g. the point mass
    holds its puck with a tenth of the default sampling spread); the user's ``overrides`` and ``prior_weight``
    (`--set mppi.FIELD=VALUE`, `--prior-weight`) come last and win."""
    cfg = mppi_preset(preset) if isinstance(preset, str) else preset
    own = tuple(task.spec.planner_overrides)
    try:
        cfg = replace(cfg, **parse_overrides(MPPIConfig, list(own)))
    except ValueError as e:
        raise ValueError(f"task {task.spec.name!r}: TaskSpec.planner_overrides: {e}") from None
    cfg = replace(cfg, **parse_overrides(MPPIConfig, list(overrides)))
    if prior_weight is not None:
        if prior_weight < 0:
            raise ValueError(f"--prior-weight must be >= 0, got {prior_weight}")
        cfg = replace(cfg, prior_weight=prior_weight)
    return cfg


__all__ = ["MPPIConfig", "MPPI_PRESETS", "elite_selection_bias", "mppi_preset", "task_planner"]
