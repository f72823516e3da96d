"""Typed configuration: model (Eq. 1), loss (Eq. 2), training and finetuning, with named presets (the planner's
live beside it: simdist.planning.settings).

Paper values come from the paper's Tables II/III/VII/VIII and the authors' configs
(see docs/architecture.md for the sources). Every preset is a function of nothing: `model_preset("cpu")`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, Literal, TypeVar

from simdist.overrides import from_dict
from simdist.precision import check_cpu_bf16
from simdist.presets import Registry, for_task

C = TypeVar("C")


@dataclass(frozen=True)
class AttentionStack:
    layers: int
    heads: int


@dataclass(frozen=True)
class ModelConfig:
    """World-model architecture (Eq. 1). Shapes of the task (observation groups, action/command size)
    live in :class:`simdist.model.world_model.ModelSpec`, not here, so one preset fits every task."""

    latent_dim: int = 64
    history: int = 5  # H: past proprio/action pairs in the context
    horizon: int = 5  # T: predicted future latents per pass
    ffn_dim: int = 256
    dynamics: AttentionStack = AttentionStack(3, 4)
    reward: AttentionStack = AttentionStack(1, 1)
    value: AttentionStack = AttentionStack(1, 1)
    policy: AttentionStack = AttentionStack(4, 8)
    head_type: Literal["transformer", "mlp"] = "transformer"  # "mlp" = per-step heads (ablation)
    proprio_hidden: tuple[int, ...] = (128, 128)
    latent_hidden: tuple[int, ...] = (128, 128)
    cnn_channels: tuple[int, ...] = (8, 16, 32)  # height-map CNN, kernel 3, stride 2
    cnn_projection_hidden: tuple[int, ...] = (192, 128)
    attention_dropout: float = 0.05
    # The authors configure MLP dropout 0.2 but their MLP never applies it to one-hidden-layer FFNs; we
    # apply whatever is configured, and default to 0 to match their effective behaviour.
    mlp_dropout: float = 0.0
    input_noise_std: float = 0.0  # Gaussian augmentation of *inputs* in normalised units, training only
    # × the task's documented sensor noise (TaskSpec.sensor_noise_std, raw units) added to the inputs in training:
    # the authors' augmentation for clean simulation data (1.0 = the real robot's noise).
    sensor_noise_scale: float = 0.0
    # A random constant (raw units, std `input_offset_std`, one per window) added to every element of the group
    # `input_offset_group` in training: a sensor's bias the simulator does not have, e.g. a height scan that reads the
    # body lower when the feet sink into soft ground (docs/tasks/foam.md). The current observation only
    # (not the proprio history, not the targets).
    input_offset_group: str = ""
    input_offset_std: float = 0.0
    reconstruction: bool = False  # ablation: add an observation decoder (loss weight in LossConfig)
    # The BC head cross-attends to the whole context (paper). False: only to the proprio-history tokens and z_t,
    # not the past actions, so it cannot copy its own last actions (the copycat failure of BC with action
    # history; measured on the quadruped, docs/findings.md). Dynamics, reward and value always see them.
    policy_sees_actions: bool = True
    # False: the BC head attends to z_t alone (no history at all), like a single-step BC policy.
    policy_sees_history: bool = True
    # FFN width of the BC head's decoder (0: ffn_dim). The head runs once per plan, not once per sample, so a
    # CPU preset can afford a wide one while the dynamics stays narrow for the planner.
    policy_ffn_dim: int = 0
    # Width of a single-step BC head beside the chunk (0: none): a 2-hidden-layer MLP on (z_t, g_t) whose action
    # replaces the chunk's first, the one a deployed head executes and MPPI's BC proposals start with. The chunk
    # head trails an MLP on the same frozen latent on `real` foam (docs/tasks/foam.md).
    policy_step_width: int = 0
    # Extra dynamics decoders (K members) trained beside the paper's on its detached context, each from its own
    # initialisation and bootstrap weights, and finetuned with it in Alg. 1. The spread of the returns that the
    # frozen heads read off their predictions is the model's own uncertainty about a candidate, which the planner
    # subtracts (MPPIConfig.uncertainty_weight): it is large where candidates leave the data the dynamics was fitted
    # on, and shrinks where real data arrives. 0: the paper's model.
    dynamics_ensemble: int = 0

    def __post_init__(self) -> None:
        if self.dynamics_ensemble < 0 or self.dynamics_ensemble == 1:
            raise ValueError(
                "dynamics_ensemble is a number of extra dynamics decoders (0, or at least 2), got "
                f"{self.dynamics_ensemble}"
            )
        for name in ("dynamics", "reward", "value", "policy"):
            stack = getattr(self, name)
            if isinstance(stack, dict):  # loaded from JSON
                object.__setattr__(self, name, AttentionStack(**stack))
                stack = getattr(self, name)
            if self.latent_dim % stack.heads:
                raise ValueError(f"latent_dim {self.latent_dim} is not divisible by {name} heads {stack.heads}")
        for name in ("proprio_hidden", "latent_hidden", "cnn_channels", "cnn_projection_hidden"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        if self.head_type not in ("transformer", "mlp"):
            raise ValueError(f"head_type must be 'transformer' or 'mlp', got {self.head_type!r}")


# ModelConfig fields a finetune may change (`simdist finetune --set model.FIELD=VALUE`): which context tokens the BC
# head attends to and the training-time input noise, read at every forward pass; none changes a parameter's shape.
FINETUNE_MODEL_FIELDS = (
    "policy_sees_actions",
    "policy_sees_history",
    "sensor_noise_scale",
    "input_noise_std",
    "input_offset_group",
    "input_offset_std",
)
# ModelConfig fields that shape the BC head alone: a finetune may change them when it starts that head afresh
# (FinetuneConfig.fresh_policy); a new single-step head (policy_step_width) may also join a kept chunk head.
POLICY_SHAPE_FIELDS = ("policy_ffn_dim", "policy_step_width")


@dataclass(frozen=True)
class LossConfig:
    """Eq. 2 weights on z-scored targets (authors' code: 1 / 1 / 1 / 4)."""

    latent: float = 1.0
    reward: float = 1.0
    value: float = 1.0
    bc: float = 4.0
    reconstruction: float = 0.0  # only used with ModelConfig.reconstruction (ablation)
    # Extra weight on the chunk's first BC step, the action a deployed head executes (0 = the paper's uniform mean
    # over the chunk; docs/tasks/foam.md: Foam's head after DAgger).
    bc_first_step: float = 0.0
    # The ensemble decoders' latent term (ModelConfig.dynamics_ensemble); their inputs are detached, so this weight
    # never changes the rest of the model's training. It needs no labels: Alg. 1 trains the members on real data too.
    ensemble: float = 1.0


@dataclass(frozen=True)
class TrainConfig:
    """Pretraining: Adam with linear warmup then cosine decay from `lr` to `lr_end`."""

    steps: int = 2000
    batch_size: int = 64
    lr: float = 2e-4
    lr_end: float = 1e-4
    warmup_steps: int = 200
    decay_steps: int | None = None  # None: decay over `steps`
    grad_clip: float | None = None  # authors: none
    val_fraction: float = 0.02
    val_every: int = 250
    checkpoint_every: int = 1000
    # Also keep each checkpoint's model as OUT/step_NNNNNN (off by default). Closed-loop success can swing between
    # checkpoints a few thousand steps apart (Peg Insertion: 0.3 at 35k, 0.0 at 45k), so pick by evaluation.
    keep_checkpoints: bool = False
    # Exponential moving average of the weights (0: off, e.g. 0.999): the saved model is the average, the raw
    # weights are kept in OUT/raw for resuming. Standard in behaviour cloning against checkpoint-to-checkpoint swings.
    ema_decay: float = 0.0
    # Success-filtered BC: the BC term sees the expert's actions only in episodes that succeeded.
    bc_successful_only: bool = False
    # Also start windows in each episode's last T steps, the future masked past its end (data/windows.py): the
    # heads then learn the states just before a fall, which complete windows never start at.
    tail_windows: bool = False
    seed: int = 0
    loss: LossConfig = LossConfig()
    # bf16 autocast on a GPU (on a CPU: cpu_bf16). On an H200 it gained 5 % for paper-quadruped and lost 13 % for
    # paper-manipulation (docs/benchmarks.md), so only the quadruped preset turns it on.
    amp: bool = False
    # torch.compile the training forward (the backward follows; a one-off compile, seconds once cached): 1.45x the
    # steps/s of paper-manipulation on 2 CPU cores, 2.7x on an H200 with compile_mode "reduce-overhead" (CUDA graphs);
    # no gain for the quadruped presets (docs/benchmarks.md). Same step as eager to float rounding (dropout aside).
    compile: bool = False
    compile_mode: str = "default"  # torch.compile's mode: default, reduce-overhead, max-autotune-no-cudagraphs, ...
    cpu_bf16: str = "off"  # bf16 autocast on a CPU: auto (where it has bf16 matrix units), on, off (simdist.precision)

    def __post_init__(self) -> None:
        if isinstance(self.loss, dict):
            object.__setattr__(self, "loss", from_dict(LossConfig, self.loss))
        check_cpu_bf16(self.cpu_bf16)

    def with_overrides(self, changes: dict[str, Any]) -> TrainConfig:
        """`--set train.…`: a new `steps` keeps the schedule's shape (warmup at most 10 % of the run, decay over the
        run, a checkpoint at least every quarter) unless the same override sets those fields."""
        cfg = dataclasses.replace(self, **changes)
        if "steps" in changes:
            shape = dict(decay_steps=cfg.steps, checkpoint_every=min(cfg.checkpoint_every, max(1, cfg.steps // 4)))
            cfg = dataclasses.replace(
                with_steps(cfg, cfg.steps), **{k: v for k, v in shape.items() if k not in changes}
            )
        return cfg


@dataclass(frozen=True)
class FinetuneConfig:
    """Real-world adaptation (Eq. 3): by default only the dynamics transformer is trained."""

    steps: int = 500
    batch_size: int = 32
    lr: float = 2e-4
    lr_end: float = 1e-4
    warmup_steps: int = 50
    val_fraction: float = 0.05
    val_every: int = 100
    seed: int = 0
    # Parameter groups to train: any of "encoder", "history", "action_embedding", "dynamics",
    # "reward", "value", "policy", "ensemble" (see WorldModel.PARAMETER_GROUPS).
    trainable: tuple[str, ...] = ("dynamics",)  # "dynamics" includes the ensemble decoders where the model has them
    loss: LossConfig = LossConfig(latent=1.0, reward=0.0, value=0.0, bc=0.0)
    # With "value" trainable: how many times per finetune the TD target's copy of the value catches up with the head
    # (Polyak rate value_iterations / steps; model/value_td.py). 0 bootstraps from the pretrained value (Fig. 10's
    # ablation); k re-estimates the value through the adapted dynamics over about k model horizons.
    value_iterations: float = 0.0
    # Share of each batch drawn from the simulation dataset. The paper finetunes on real data alone (0.0);
    # replay keeps the dynamics' response to actions the real data never tries.
    sim_replay_fraction: float = 0.0
    # Passes over the real windows (the authors: 100): set, it replaces `steps` with the steps that draw each real
    # window this often at the batch's real share, so later Alg. 1 rounds are fitted as closely as the first.
    epochs: float | None = None
    # Whether replayed simulation windows also feed the labelled terms (BC, reward, value) of `loss`. False keeps
    # them to the latent term, so a trainable head learns from the real labels alone (operator corrections).
    replay_labels: bool = True
    # Weight of a proximal term that keeps the policy head's chunk, on windows without expert labels, where it was
    # before the finetune (model/policy_anchor.py); 0 = off. Only with "policy" trainable.
    policy_anchor: float = 0.0
    # Start the BC head from a fresh initialisation (needs "policy" trainable): a new head on a frozen world model,
    # whose width (POLICY_SHAPE_FIELDS) may then differ from the checkpoint's.
    fresh_policy: bool = False
    # As TrainConfig.bc_successful_only, for the finetuning data (not the simulation replay).
    bc_successful_only: bool = False
    # As TrainConfig.tail_windows, for the finetuning data and the simulation replay loaded from a directory.
    tail_windows: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "trainable", tuple(self.trainable))
        if self.epochs is not None and self.epochs <= 0:
            raise ValueError(
                f"finetune.epochs is a positive number of passes over the real data or none, got {self.epochs}"
            )
        if self.epochs is not None and self.sim_replay_fraction >= 1.0:
            raise ValueError("finetune.epochs counts passes over the real data: batches of replay alone have none")
        if isinstance(self.loss, dict):
            object.__setattr__(self, "loss", from_dict(LossConfig, self.loss))

    def with_overrides(self, changes: dict[str, Any]) -> FinetuneConfig:
        """`--set finetune.…`: a new `steps` keeps the warmup within 10 % of the run, as TrainConfig's."""
        cfg = dataclasses.replace(self, **changes)
        return with_steps(cfg, cfg.steps) if "steps" in changes and "warmup_steps" not in changes else cfg


# --------------------------------------------------------------------------------------------- presets
MODEL_PRESETS: dict[str, Callable[[], ModelConfig]] = {
    "cpu": lambda: ModelConfig(
        latent_dim=32,
        history=5,
        horizon=5,
        ffn_dim=64,
        dynamics=AttentionStack(2, 2),
        reward=AttentionStack(1, 1),
        value=AttentionStack(1, 1),
        policy=AttentionStack(2, 2),
        proprio_hidden=(64,),
        latent_hidden=(64,),
        cnn_channels=(4, 8, 8),
        cnn_projection_hidden=(64,),
        attention_dropout=0.0,
    ),
    # The `cpu` widths with the quadruped's 25-step history and horizon (0.5 s): a 5-step horizon cannot see a fall
    # coming, and the planner then trades stability for tracking reward (docs/tasks/slippery-slope.md).
    # Its BC head attends to z_t alone: with the past actions it copied its own last actions and fell on Foam
    # (sim success 0.20 → 0.53 without them), and without the proprio history too it walks further in real
    # (MPPI progress 1.06 → 1.75 m; docs/findings.md).
    "quadruped-cpu": lambda: ModelConfig(
        latent_dim=32,
        history=25,
        horizon=25,
        ffn_dim=64,
        dynamics=AttentionStack(2, 2),
        reward=AttentionStack(1, 1),
        value=AttentionStack(1, 1),
        policy=AttentionStack(2, 2),
        proprio_hidden=(64,),
        latent_hidden=(64,),
        cnn_channels=(4, 8, 8),
        cnn_projection_hidden=(64,),
        attention_dropout=0.0,
        policy_sees_history=False,
    ),
    "paper-manipulation": lambda: ModelConfig(
        latent_dim=64,
        history=5,
        horizon=5,
        ffn_dim=256,
        dynamics=AttentionStack(3, 4),
        reward=AttentionStack(1, 1),
        value=AttentionStack(1, 1),
        policy=AttentionStack(4, 8),
    ),
    "paper-quadruped": lambda: ModelConfig(
        latent_dim=64,
        history=25,
        horizon=25,
        ffn_dim=256,
        dynamics=AttentionStack(2, 8),
        reward=AttentionStack(1, 1),
        value=AttentionStack(1, 1),
        policy=AttentionStack(4, 8),
        proprio_hidden=(128, 128),
        latent_hidden=(128, 128),
        cnn_channels=(8, 16, 32),
        cnn_projection_hidden=(192, 128),
    ),
}
MODEL_REGISTRY: Registry[ModelConfig] = Registry("model", MODEL_PRESETS)

TRAIN_PRESETS: dict[str, Callable[[], TrainConfig]] = {
    "cpu": lambda: TrainConfig(steps=3000, batch_size=64, lr=1e-3, lr_end=2e-4, warmup_steps=200),
    "quadruped-cpu": lambda: TrainConfig(
        steps=6000,
        batch_size=128,
        lr=1e-3,
        lr_end=2e-4,
        warmup_steps=300,
        val_fraction=0.01,
        val_every=2000,
        checkpoint_every=2000,
    ),
    "paper-manipulation": lambda: TrainConfig(
        steps=200_000,
        batch_size=256,
        warmup_steps=10_000,
        decay_steps=400_000,
        val_fraction=0.002,
        val_every=5000,
        checkpoint_every=10_000,
        compile=True,
        cpu_bf16="auto",
    ),  # 1.5x fp32
    "paper-quadruped": lambda: TrainConfig(
        steps=369_000,
        batch_size=512,
        warmup_steps=10_000,
        decay_steps=400_000,
        val_fraction=0.002,
        val_every=5000,
        checkpoint_every=10_000,
        amp=True,
    ),
}
TRAIN_REGISTRY: Registry[TrainConfig] = Registry("train", TRAIN_PRESETS)

FINETUNE_PRESETS: dict[str, Callable[[], FinetuneConfig]] = {
    # Tuned on the pendulum: real-only finetuning on ~1 robot minute of closed-loop data lost the dynamics'
    # response to actions (success 0.8 → 0.1); half-batch sim replay kept it (0.8 → 0.9). See docs/findings.md.
    "cpu": lambda: FinetuneConfig(
        steps=300, batch_size=32, lr=2e-4, lr_end=1e-4, warmup_steps=30, sim_replay_fraction=0.5
    ),
    "quadruped-cpu": lambda: FinetuneConfig(
        steps=300, batch_size=32, lr=2e-4, lr_end=1e-4, warmup_steps=30, sim_replay_fraction=0.5
    ),
    # Authors: batch 32, 2k warmup, 100 epochs over the real data.
    "paper-manipulation": lambda: FinetuneConfig(steps=20_000, warmup_steps=2000),
    "paper-quadruped": lambda: FinetuneConfig(steps=20_000, warmup_steps=2000),
}
FINETUNE_REGISTRY: Registry[FinetuneConfig] = Registry("finetune", FINETUNE_PRESETS)


def model_preset_for(task, preset: str) -> str:
    """The pipeline's model preset for a task: command-conditioned tasks are the quadruped's, which need its 25-step
    horizon even on a CPU (`cpu` → `quadruped-cpu`)."""
    legged = bool(task.spec.command_dim)
    return ("quadruped-cpu" if legged else "cpu") if preset == "cpu" else for_task("model", preset, legged)


def model_preset(name: str) -> ModelConfig:
    return MODEL_REGISTRY.get(name)


def train_preset(name: str) -> TrainConfig:
    return TRAIN_REGISTRY.get(name)


def finetune_preset(name: str) -> FinetuneConfig:
    return FINETUNE_REGISTRY.get(name)


def to_dict(cfg: Any) -> dict[str, Any]:
    return dataclasses.asdict(cfg)


def replace(cfg: C, **changes: Any) -> C:
    return dataclasses.replace(cfg, **changes)


def with_bc_head(cfg: FinetuneConfig) -> FinetuneConfig:
    """A finetune that also trains the policy head with Eq. 2's BC term, on the steps flagged as expert actions
    (demonstrations, operator corrections, replayed simulation windows); reward and value stay out."""
    return dataclasses.replace(
        cfg,
        trainable=("dynamics", "policy"),
        loss=LossConfig(latent=cfg.loss.latent, reward=0.0, value=0.0, bc=LossConfig().bc),
    )


def with_steps(cfg: C, steps: int) -> C:
    """A training or finetuning config shortened (or lengthened) to `steps`, keeping the preset's schedule shape:
    its warmup, capped at 10 % of the run."""
    return dataclasses.replace(cfg, steps=steps, warmup_steps=min(cfg.warmup_steps, steps // 10))
