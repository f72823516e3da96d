"""`GymTask`: a Task (simdist.tasks.base) built from a `GymTaskSpec` and privileged policies."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from simdist.experts.fitted_critic import CriticFitConfig, MLPCritic, definition_hash, fit_and_save, recorded_definition
from simdist.tasks.base import PrivilegedPolicy, TaskSpec, apply_physics_overrides, check_domain, domain_physics
from simdist.tasks.gymnasium.env import GymAdapterEnv, Nominal, gym_initial_condition, make_gym_env
from simdist.tasks.gymnasium.spec import GymTaskSpec, PrivilegedLayout, physics_dataclass
from simdist.tasks.physics_schema import check_physics
from simdist.tasks.registry import register

log = logging.getLogger(__name__)
_PHYSICS_TYPES: dict[str, type] = {}  # one class per task name, so isinstance holds across task instances


class GymTask:
    """A Gymnasium MuJoCo env as a simdist task. ``expert`` and ``suboptimal`` build policies from the task (its
    ``layout`` names the privileged state; simdist.tasks.gymnasium.linear designs LQR gains); the critic is fitted
    on the expert's returns into ``critic_dir`` on first use (simdist.experts.fitted_critic)."""

    grids = ("default",)

    def __init__(
        self,
        spec: GymTaskSpec,
        expert: Callable[[GymTask], PrivilegedPolicy],
        suboptimal: Callable[[GymTask], Sequence[PrivilegedPolicy]] = lambda task: (),
        critic_dir: str | Path | None = None,
        critic_fit: CriticFitConfig = CriticFitConfig(),
    ):
        self.gym_spec, self._expert, self._suboptimal = spec, expert, suboptimal
        self.critic_dir, self.critic_fit = Path(critic_dir) if critic_dir else None, critic_fit
        env = make_gym_env(spec.env_id, **spec.env_kwargs)
        if spec.name not in _PHYSICS_TYPES:
            _PHYSICS_TYPES[spec.name] = physics_dataclass(spec, env.model)
        self.physics_type = _PHYSICS_TYPES[spec.name]
        self._sim = self.physics_type()
        check_physics(self._sim, f"{spec.name} sim physics")
        ranges = {f"{p.name}_scale_range": (1.0, 1.0) for p in spec.physics}  # real: no randomisation
        self._real = apply_physics_overrides(self._sim, {**ranges, **spec.real}, f"{spec.name} real physics")
        obs = np.asarray(env._get_obs())
        sizes = [len(read(env.data)) for read in spec.state.values()] + [1] * len(spec.physics)
        self.layout = PrivilegedLayout(tuple(spec.state) + tuple(p.name for p in spec.physics), tuple(sizes))
        self.nominal = Nominal(spec, env.model)
        groups = {k: np.atleast_1d(obs[idx]).shape for k, idx in spec.observation.items()}
        space = env.action_space
        self.spec = TaskSpec(
            name=spec.name,
            obs_shapes=groups,
            action_dim=int(space.shape[0]),
            action_low=tuple(float(v) for v in space.low),
            action_high=tuple(float(v) for v in space.high),
            control_period_s=float(env.dt),
            episode_steps=spec.episode_steps,
            gamma=spec.gamma,
            planner_overrides=spec.planner_overrides,
            finetune_overrides=spec.finetune_overrides,
        )
        self.generation_preset = spec.generation_preset
        self._scratch = env  # for initial conditions

    def default_physics(self, domain: str) -> Any:
        return {"sim": self._sim, "real": self._real}[check_domain(domain)]

    def make_env(self, domain: str, physics: Any = None, seed: int = 0) -> GymAdapterEnv:
        return GymAdapterEnv(self.gym_spec, self.layout, domain, domain_physics(self, domain, physics), seed)

    def expert(self) -> PrivilegedPolicy:
        return self._expert(self)

    def suboptimal_policies(self) -> list[PrivilegedPolicy]:
        return list(self._suboptimal(self))

    def critic(self) -> MLPCritic:
        if self.critic_dir is None:
            raise FileNotFoundError(f"task {self.spec.name!r} names no critic_dir to fit its critic into")
        # what the critic's values depend on: a change to any of them refits it, never reuses it silently
        current = definition_hash(self.gym_spec, self._sim, self._expert, self._suboptimal, self.critic_fit)
        recorded = recorded_definition(self.critic_dir)
        if recorded == "":
            log.warning(
                "%s/critic.json predates recording what a critic was fitted on: using it as it is (delete %s to "
                "fit it again for the task as it is now)",
                self.critic_dir,
                self.critic_dir,
            )
        elif recorded != current:
            if recorded is not None:
                log.warning(
                    "the critic in %s was fitted on another definition of task %r (its reward, success, state, "
                    "physics, expert or fit settings changed): fitting it again",
                    self.critic_dir,
                    self.spec.name,
                )
            log.info("fitting the %s expert critic into %s (once)", self.spec.name, self.critic_dir)
            fit_and_save(self, self.critic_dir, self.critic_fit, fitted_on=current)
        return MLPCritic.load(self.critic_dir)

    def initial_conditions(self, grid: str, n: int, seed: int = 0) -> list[dict]:
        """Start states from the Gymnasium env's own reset distribution (``env_kwargs`` can widen it)."""
        if grid not in self.grids:
            raise KeyError(f"unknown grid {grid!r}; valid grids: {list(self.grids)}")
        rng = np.random.default_rng(seed)
        return [gym_initial_condition(self._scratch, int(rng.integers(1 << 31))) for _ in range(n)]

    def episode_metrics(self, infos: list[dict]) -> dict[str, float]:
        ok = [bool(i["success"]) for i in infos]
        hold = self.gym_spec.success_hold_s
        window = len(ok) if hold is None else max(1, round(hold / self.spec.control_period_s))
        return {
            "success": float(bool(ok) and len(ok) >= window and all(ok[-window:])),
            "success_fraction": float(np.mean(ok)) if ok else 0.0,
        }


def register_gym_task(
    spec: GymTaskSpec,
    expert: Callable[[GymTask], PrivilegedPolicy],
    suboptimal: Callable[[GymTask], Sequence[PrivilegedPolicy]] = lambda task: (),
    critic_dir: str | Path | None = None,
    critic_fit: CriticFitConfig = CriticFitConfig(),
) -> None:
    """Register ``spec.name`` with simdist.tasks.registry; the task (and its Gymnasium env) is built when asked."""
    register(spec.name, lambda: GymTask(spec, expert, suboptimal, critic_dir, critic_fit))
