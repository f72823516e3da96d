"""The Task protocol: what a robot task (simulated or physical) must provide to the rest of simdist.

Data flows one way: a task gives environments for its domains, privileged policies for data generation, and
its own metrics. Nothing here knows about world models or planners.

Conventions every task follows
-------------------------------
* ``env.reset(seed=..., options={"initial_condition": ic})`` and ``env.step(action)`` follow Gymnasium.
* Observations are a dict of named groups: ``"proprio"`` (a vector) is required, further groups such as
  ``"height"`` (a 2-D grid) are optional, and the reserved key ``"command"`` carries the task command
  (e.g. a target velocity) when ``spec.command_dim > 0``. Observations never contain privileged state.
* ``info["success"]`` (bool) is present at every step in every domain.
* Simulation domains also put ``info["privileged"]`` (a flat float vector: exact state and physics
  parameters) and ``info["dense_reward"]`` (float) in ``info``; the step reward is the dense reward.
* The ``real`` domain stands in for the physical robot: it never puts privileged state or a dense reward in
  ``info``; its step reward is the sparse success signal (1.0 on the step the task is first solved, else 0).
* Every simulated env also offers ``env.oracle_privileged_state()`` in every domain, so the expert can be
  evaluated in ``real`` (the stand-in for a teleoperator). Learning code never calls it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, Sequence, TypeVar, runtime_checkable

import numpy as np

from simdist.tasks.gaps import expand_with_sim
from simdist.tasks.physics_files import PhysicsOverride, read_physics
from simdist.tasks.physics_schema import validate_overrides

DOMAINS = ("sim", "real")
COMMAND_KEY = "command"
PROPRIO_KEY = "proprio"
WRENCH_KEY = "wrench"  # a wrist force/torque sensor's group (the UR5e tasks that observe one)


@dataclass(frozen=True)
class TaskSpec:
    """Static description of a task's interface (shapes, bounds, timing)."""

    name: str
    obs_shapes: dict[str, tuple[int, ...]]  # observation groups, "proprio" first; excludes "command"
    action_dim: int
    action_low: tuple[float, ...]
    action_high: tuple[float, ...]
    control_period_s: float
    episode_steps: int
    command_dim: int = 0
    gamma: float = 0.99
    # The robot's sensor noise (Gaussian std, raw units) per observation group: one value per element of the
    # group's last axis, or one for all. World models trained with `sensor_noise_scale` > 0 add it to their
    # inputs, as the authors do on the quadruped, since simulation data are recorded clean.
    sensor_noise_std: dict[str, tuple[float, ...]] = dataclasses.field(default_factory=dict)
    # What the task's author knows about planning it, as `mppi` override items (e.g. "init_std=0.1" where the task
    # needs finer actions than the data's spread): applied over any MPPI preset, before the user's own overrides.
    planner_overrides: tuple[str, ...] = ()
    # What the task's author knows about fitting its robot's data in Alg. 1, as `finetune` override items (e.g.
    # "epochs=100" where the robot's data need as many passes as the authors give them): applied over the finetune
    # preset, before the user's own overrides.
    finetune_overrides: tuple[str, ...] = ()
    # What the actions mean where one robot has several action spaces of one shape ("" for its first): a model
    # trained in one frame is refused by a task in another (training/checkpoint.py, check_model_fits_task).
    action_frame: str = ""

    def __post_init__(self) -> None:
        unknown = sorted(set(self.sensor_noise_std) - set(self.obs_shapes))
        if unknown:
            raise ValueError(
                f"task {self.name!r}: sensor_noise_std names unknown groups {unknown}; "
                f"groups: {sorted(self.obs_shapes)}"
            )
        for group, std in self.sensor_noise_std.items():
            if len(std) not in (1, self.obs_shapes[group][-1]):
                raise ValueError(
                    f"task {self.name!r}: sensor_noise_std[{group!r}] has {len(std)} values; give 1 or "
                    f"{self.obs_shapes[group][-1]} (the group's last axis)"
                )
        for name in ("planner_overrides", "finetune_overrides"):
            bad = [item for item in getattr(self, name) if "=" not in item]
            if bad:
                raise ValueError(f"task {self.name!r}: {name} must be FIELD=VALUE items, got {bad}")
        if PROPRIO_KEY not in self.obs_shapes:
            raise ValueError(f"task {self.name!r}: observation groups must include {PROPRIO_KEY!r}")
        if COMMAND_KEY in self.obs_shapes:
            raise ValueError(f"task {self.name!r}: {COMMAND_KEY!r} is reserved; set command_dim instead")
        if len(self.action_low) != self.action_dim or len(self.action_high) != self.action_dim:
            raise ValueError(f"task {self.name!r}: action bounds must have action_dim={self.action_dim} entries")

    @property
    def proprio_dim(self) -> int:
        return int(self.obs_shapes[PROPRIO_KEY][0])

    def check_obs(self, obs: dict[str, np.ndarray]) -> None:
        """Raise a clear error if ``obs`` does not match this spec (shapes, missing groups, non-finite values)."""
        expected = dict(self.obs_shapes)
        if self.command_dim:
            expected[COMMAND_KEY] = (self.command_dim,)
        for key, shape in expected.items():
            if key not in obs:
                raise KeyError(f"observation is missing group {key!r}; expected groups {sorted(expected)}")
            arr = np.asarray(obs[key])
            if arr.shape != tuple(shape):
                raise ValueError(f"observation group {key!r} has shape {arr.shape}, expected {tuple(shape)}")
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"observation group {key!r} contains NaN or Inf")


@runtime_checkable
class PrivilegedPolicy(Protocol):
    """A simulation-only policy acting on privileged state (the expert or a sub-optimal one)."""

    name: str

    def reset(self, rng: np.random.Generator) -> None: ...

    def act(self, privileged: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class Critic(Protocol):
    """The expert's value function V^e(s) on privileged state. A critic may also offer `values(states)`, the (N,)
    values of a stack of states, which data generation then calls once per episode."""

    def value(self, privileged: np.ndarray) -> float: ...


class Task(Protocol):
    """A task plug-in. Register instances with :func:`simdist.tasks.registry.register`."""

    spec: TaskSpec
    physics_type: type  # the dataclass holding this task's physics parameters
    # optional: gap_groups, group name -> the physics fields of its sim-to-real gap (simdist.tasks.gaps)

    def default_physics(self, domain: str) -> Any:
        """The documented physics parameters of ``domain`` (an instance of ``physics_type``)."""

    def make_env(self, domain: str, physics: Any | None = None, seed: int = 0) -> Any:
        """A Gymnasium-style environment for ``domain`` ("sim" or "real")."""

    def expert(self) -> PrivilegedPolicy: ...

    def critic(self) -> Critic: ...

    def suboptimal_policies(self) -> Sequence[PrivilegedPolicy]: ...

    def initial_conditions(self, grid: str, n: int, seed: int = 0) -> list[Any]:
        """``n`` fixed evaluation initial conditions (pass as ``options["initial_condition"]``)."""

    @property
    def grids(self) -> tuple[str, ...]:
        """Names of the evaluation grids (e.g. ("narrow", "wide")); ("default",) if the task has one."""

    def episode_metrics(self, infos: list[dict]) -> dict[str, float]:
        """Task metrics of one finished episode from its per-step infos (at least ``success``)."""


def default_grid(task) -> str:
    """The grid a command uses when `--grid` is left out: the task's `default_grid` where it names one (the
    quadruped's "all": the paper's trials at every speed), else its first grid (Narrow; the pendulum's "default")."""
    return getattr(task, "default_grid", None) or task.grids[0]


class TrainableExpertTask(Task, Protocol):
    """Optional: a task whose privileged expert is *learned* has a training entry point (`simdist run
    --train-expert`). Tasks whose expert is a hand-written controller do not define it."""

    def train_expert(self, out_dir: str | Path, budget: int | None = None) -> Path:
        """Train the expert in ``out_dir`` (resuming what is there) up to ``budget`` (task-defined units; None:
        the task's default), then install it where :meth:`expert`, ``suboptimal_policies`` and ``critic`` read
        it; returns that folder."""


# ----------------------------------------------------------------------------------------------- physics
P = TypeVar("P")


def apply_physics_overrides(
    base: P, overrides: PhysicsOverride | dict[str, Any] | str | Path | None, source: str | None = None
) -> P:
    """Return a copy of the physics dataclass ``base`` with ``overrides`` (a PhysicsOverride, a dict, or a JSON/YAML
    file read through `read_physics`) applied.

    Values are checked against the schema of ``base``'s dataclass (simdist.tasks.physics_schema: type, shape,
    physical range), and unknown names are an error that lists the valid ones, so a typo never silently leaves a
    default in place; every error is one line naming the parameter, its value and what is allowed.
    """
    override = read_physics(overrides)
    if override is None:
        return base
    source = source or override.source
    changes = validate_overrides(base, override.values, source)
    try:
        return dataclasses.replace(base, **changes)
    except ValueError as err:  # a rule between fields, checked by the dataclass itself
        raise ValueError(f"{source}: {err}") from None


def domain_physics(task, domain: str, physics: Any | None = None) -> Any:
    """``task``'s physics in ``domain``: ``physics`` itself when it is the task's physics dataclass, else the domain
    defaults with ``physics`` (a PhysicsOverride, dict or file, may hold ``with_sim``, simdist.tasks.gaps) applied."""
    if isinstance(physics, task.physics_type):
        return physics
    override = read_physics(physics)
    source = None if override is None else override.source
    return apply_physics_overrides(task.default_physics(domain), expand_with_sim(task, domain, override), source)


def check_domain(domain: str) -> str:
    if domain not in DOMAINS:
        raise ValueError(f"unknown domain {domain!r}; valid domains: {list(DOMAINS)}")
    return domain
