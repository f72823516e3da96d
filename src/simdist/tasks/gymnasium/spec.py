"""What a Gymnasium MuJoCo env needs to become a simdist task: a `GymTaskSpec` (see simdist.tasks.gymnasium).

The privileged state is named: `state` reads entries from MjData, and every physics parameter adds its effective
value (the number in the MjModel, e.g. the pole's mass in kg); experts read it through `PrivilegedLayout.unpack`
instead of indexing a vector.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable

import mujoco
import numpy as np

from simdist.tasks.physics_schema import Limit

# The object type naming the rows of each MjModel field prefix (a "dof_" row is named by its joint).
_OBJ = mujoco.mjtObj
_OBJECTS = {
    "body": _OBJ.mjOBJ_BODY,
    "geom": _OBJ.mjOBJ_GEOM,
    "jnt": _OBJ.mjOBJ_JOINT,
    "dof": _OBJ.mjOBJ_JOINT,
    "actuator": _OBJ.mjOBJ_ACTUATOR,
    "site": _OBJ.mjOBJ_SITE,
}
# Physical bounds of the fields a parameter may change: masses and inertias > 0; gears (0: motor off), losses and
# friction >= 0.
FIELD_LIMITS = {
    "body_mass": Limit(gt=0.0, unit="kg"),
    "body_inertia": Limit(gt=0.0, unit="kg m^2"),
    "actuator_gear": Limit(ge=0.0),
    "dof_damping": Limit(ge=0.0),
    "dof_frictionloss": Limit(ge=0.0),
    "dof_armature": Limit(ge=0.0),
    "jnt_stiffness": Limit(ge=0.0),
    "geom_friction": Limit(ge=0.0),
}


@dataclass(frozen=True)
class PhysicsParam:
    """A physics parameter mapped onto MjModel rows: `PhysicsParam("pole_mass", "body_mass", "pole")`.

    mode "scale": the physics field `<name>_scale` multiplies the model's own values (default 1);
    mode "value": the physics field `<name>` replaces them (default: the model's value of the first row).
    Scaling a body's mass scales its inertia with it (same shape, denser material).
    """

    name: str
    field: str  # MjModel array: "body_mass", "actuator_gear", "dof_damping", "geom_friction", ...
    index: int | str | tuple[int | str, ...] | None = None  # rows by number or object name; None: every row
    column: int = 0  # 2-D fields: actuator_gear[:, 0] is the gear, geom_friction[:, 0] the sliding friction
    mode: str = "scale"
    unit: str = ""

    def __post_init__(self) -> None:
        if self.mode not in ("scale", "value"):
            raise ValueError(f"PhysicsParam {self.name!r}: mode must be 'scale' or 'value', not {self.mode!r}")

    @property
    def physics_field(self) -> str:
        return f"{self.name}_scale" if self.mode == "scale" else self.name

    def rows(self, model: mujoco.MjModel) -> np.ndarray:
        n = getattr(model, self.field).shape[0]
        items = range(n) if self.index is None else self.index if isinstance(self.index, tuple) else (self.index,)
        out = []
        for item in items:
            if isinstance(item, str):
                prefix = self.field.split("_")[0]
                i = mujoco.mj_name2id(model, _OBJECTS[prefix], item)
                if i < 0:
                    raise KeyError(f"PhysicsParam {self.name!r}: no {prefix} named {item!r} in the model")
                item = int(model.jnt_dofadr[i]) if prefix == "dof" else i
            out.append(int(item))
        return np.asarray(out, int)


@dataclass(frozen=True)
class Read:
    """A named entry of the privileged state read from MjData: `Read("qpos", 1)`, `Read("qvel", slice(0, 2))`,
    `Read("xpos", slice(0, 2), body="fingertip")` (an attribute of `data.body("fingertip")`)."""

    attr: str
    index: int | slice | None = None
    body: str | None = None
    wrap: bool = False  # angles wrapped to [-pi, pi): a joint that spins freely leaves the critic's data otherwise

    def __call__(self, data: mujoco.MjData) -> np.ndarray:
        source = data.body(self.body) if self.body is not None else data
        value = np.asarray(getattr(source, self.attr), np.float64).reshape(-1)
        value = np.atleast_1d(value if self.index is None else value[self.index])
        return (value + np.pi) % (2 * np.pi) - np.pi if self.wrap else value


@dataclass(frozen=True)
class GymTaskSpec:
    """A Gymnasium MuJoCo env as a simdist task. Episodes never terminate early: Gymnasium's own termination is
    dropped (the critic fitter and data generation roll out fixed lengths; see docs/new-task.md)."""

    name: str
    env_id: str
    episode_steps: int
    state: dict[str, Read]  # the named privileged state (physics parameters are appended by name)
    success: Callable[[dict[str, Any]], bool]  # per step, on the named privileged state
    observation: dict[str, Any] = field(default_factory=lambda: {"proprio": slice(None)})  # groups: Gym obs slices
    physics: tuple[PhysicsParam, ...] = ()
    real: dict[str, Any] = field(default_factory=dict)  # the `real` domain's physics overrides: its gap
    randomize: dict[str, tuple[float, float]] = field(default_factory=dict)  # sim: param -> multiplier range
    dense_reward: Callable[[dict[str, Any], np.ndarray], float] | None = None  # None: Gymnasium's reward
    success_hold_s: float | None = None  # episode success: the last hold_s all successful; None: every step
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    gamma: float = 0.99
    planner_overrides: tuple[str, ...] = ()
    finetune_overrides: tuple[str, ...] = field(default=(), metadata={"critic": False})  # Alg. 1's, not the critic's
    generation_preset: str = "manipulation"
    max_delay_steps: int = 10  # the latency cap (control steps) the physics validation enforces

    def __post_init__(self) -> None:
        names = {p.name for p in self.physics}
        fields = {p.physics_field for p in self.physics} | set(COMMON)
        unknown = sorted((set(self.randomize) - names) | {k for k in self.real if not k.endswith("_range")} - fields)
        if unknown:
            raise ValueError(f"GymTaskSpec {self.name!r}: real/randomize name unknown parameters {unknown}")


# Physics fields every adapted task has: type and default (their ranges are in physics_dataclass).
COMMON = {"action_delay_steps": (int, 0), "obs_noise_std": (float, 0.0)}


def physics_dataclass(spec: GymTaskSpec, model: mujoco.MjModel) -> type:
    """The frozen dataclass of `spec`'s physics: one field per parameter, its sim randomisation range
    (`<name>_scale_range`, multipliers), the latency in control steps and the observation noise std."""
    fields, limits = (
        [],
        {
            "action_delay_steps": Limit(ge=0, le=spec.max_delay_steps, unit="control steps"),
            "obs_noise_std": Limit(ge=0.0),
        },
    )
    for p in spec.physics:
        bound = FIELD_LIMITS.get(p.field, Limit())
        if p.mode == "scale":
            default = 1.0
            limits[p.physics_field] = Limit(gt=bound.gt, ge=bound.ge)  # a scale keeps the sign rule of the field
        else:
            default = float(getattr(model, p.field)[p.rows(model)[0]].reshape(-1)[p.column])
            limits[p.physics_field] = dataclasses.replace(bound, unit=p.unit or bound.unit)
        fields.append((p.physics_field, float, field(default=default)))
        limits[f"{p.name}_scale_range"] = Limit(gt=bound.gt, ge=bound.ge)
    for p in spec.physics:
        fields.append(
            (
                f"{p.name}_scale_range",
                tuple[float, float],
                field(default=tuple(float(v) for v in spec.randomize.get(p.name, (1.0, 1.0)))),
            )
        )
    fields += [(name, kind, field(default=default)) for name, (kind, default) in COMMON.items()]
    cls_name = "".join(part.capitalize() for part in spec.name.replace("-", "_").split("_")) + "Physics"
    return dataclasses.make_dataclass(cls_name, fields, frozen=True, namespace={"LIMITS": limits})  # not a field


@dataclass(frozen=True)
class PrivilegedLayout:
    """Names and slices of the flat privileged vector (what `info["privileged"]` holds)."""

    names: tuple[str, ...]
    sizes: tuple[int, ...]

    @property
    def dim(self) -> int:
        return int(sum(self.sizes))

    def unpack(self, privileged: np.ndarray) -> dict[str, Any]:
        """name -> float (one value) or array, e.g. `s = layout.unpack(p); s["pole_angle"]`."""
        out, start = {}, 0
        vec = np.asarray(privileged, np.float64)
        for name, size in zip(self.names, self.sizes):
            chunk = vec[start : start + size]
            out[name] = float(chunk[0]) if size == 1 else chunk.copy()
            start += size
        return out
