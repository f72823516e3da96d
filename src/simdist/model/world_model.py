"""The SimDist world model (paper Eq. 1).

    z_t           = E(o_t)                                 encoder (ObservationEncoder)
    context       = [o_{t-H}, a_{t-H}, …, o_{t-1}, a_{t-1}, z_t] tokens with temporal and type encodings
    ẑ_{t+1..t+T}  = f(context, a_{t..t+T-1})               causal decoder, one pass, queries = actions
    r̂_{t..t+T-1}  = R([z_t, ẑ_{t+1..t+T-1}], a, g)          bidirectional encoder over the trajectory
    v̂_{t+1..t+T}  = V(ẑ_{t+1..t+T}, g)                     bidirectional encoder over the trajectory
    â_{t..t+T-1}  = π(context, g)                          causal decoder, queries = commands
    â_t           = π_step(z_t, g_t)                       optional single-step MLP (policy_step_width > 0); its
                                                           action replaces the chunk's first when deployed

Public methods take and return raw units; the `_n` methods work in normalised units. Value alignment:
v̂ index k predicts V^e(s_{t+k+1}), the expert critic at the state reached after action a_{t+k}.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
from torch import nn

from simdist.config import ModelConfig
from simdist.model.augment import add_group_offset, add_sensor_noise, check_offset_group
from simdist.model.encoders import ObservationEncoder
from simdist.model.layers import MLP, TrajectoryHead, TransformerDecoder, learned_encoding
from simdist.model.normalizer import Normalizer

PROPRIO, ACTION, COMMAND, REWARD, VALUE = "proprio", "action", "command", "reward", "value"
TOKEN_TYPES = 3  # proprio, action, latent


@dataclass(frozen=True)
class ModelSpec:
    """The task's shapes and action bounds, stored in every checkpoint beside the ModelConfig."""

    obs_shapes: dict[str, tuple[int, ...]]
    action_dim: int
    command_dim: int = 0
    action_low: tuple[float, ...] = ()
    action_high: tuple[float, ...] = ()
    sensor_noise_std: dict[str, tuple[float, ...]] = field(default_factory=dict)  # TaskSpec's, raw units
    action_frame: str = ""  # TaskSpec's

    def __post_init__(self) -> None:
        object.__setattr__(self, "obs_shapes", {k: tuple(v) for k, v in self.obs_shapes.items()})
        object.__setattr__(self, "sensor_noise_std", {k: tuple(v) for k, v in self.sensor_noise_std.items()})
        object.__setattr__(self, "action_low", tuple(self.action_low))
        object.__setattr__(self, "action_high", tuple(self.action_high))
        if PROPRIO not in self.obs_shapes:
            raise ValueError(f"ModelSpec needs a {PROPRIO!r} observation group; got {sorted(self.obs_shapes)}")


@dataclass
class PlanningContext:
    """Everything about the current state that does not depend on the candidate actions (batch 1)."""

    z: torch.Tensor  # (1, d)
    dynamics_kv: list = field(default_factory=list)
    policy_kv: list = field(default_factory=list)
    command_n: torch.Tensor | None = None  # (1, T+1, C), normalised, held constant over the horizon
    member_kv: list = field(default_factory=list)  # one K/V cache per ensemble decoder (ModelConfig.dynamics_ensemble)


class WorldModel(nn.Module):
    PARAMETER_GROUPS = (
        "encoder",
        "history",
        "action_embedding",
        "dynamics",
        "reward",
        "value",
        "policy",
        "decoder",
        "ensemble",
    )

    def __init__(self, cfg: ModelConfig, spec: ModelSpec):
        super().__init__()
        self.cfg, self.spec = cfg, spec
        if cfg.input_offset_std > 0:
            check_offset_group(cfg.input_offset_group, spec.obs_shapes)
        d, H, T, A, C = cfg.latent_dim, cfg.history, cfg.horizon, spec.action_dim, spec.command_dim
        stat_shapes = {**spec.obs_shapes, ACTION: (A,), REWARD: (), VALUE: ()}
        if C:
            stat_shapes[COMMAND] = (C,)
        self.normalizer = Normalizer(stat_shapes)
        # RMS error of the planner's return estimate on held-out simulation windows, raw units (0: not measured):
        # training/validation.py measures it, MPPI's gate reads it.
        self.register_buffer("return_error", torch.zeros(()))
        self.encoder = ObservationEncoder(spec.obs_shapes, cfg)
        # History context C: action tokens, temporal (H past steps + current) and type encodings.
        self.history = nn.ModuleDict({"action": nn.Linear(A, d)})
        self.history_time = learned_encoding(H + 1, d)
        self.history_type = learned_encoding(TOKEN_TYPES, d)
        # Future-action embedding: frozen during finetuning, as the authors do.
        self.action_embedding = nn.Linear(A, d)
        self.action_position = nn.Parameter(torch.randn(T, d))
        # The authors read ẑ straight off the post-LN decoder, which pins every predicted latent to the
        # LayerNorm's affine range; a linear read-out lets ẑ match encoder latents of any scale.
        self.dynamics = nn.ModuleDict(
            {
                "decoder": TransformerDecoder(
                    d, cfg.dynamics.layers, cfg.dynamics.heads, cfg.ffn_dim, cfg.attention_dropout, cfg.mlp_dropout
                ),
                "out": nn.Linear(d, d),
            }
        )
        per_step = cfg.head_type == "mlp"
        self.reward = TrajectoryHead(d + A + C, cfg, cfg.reward.layers, cfg.reward.heads, per_step)
        self.value = TrajectoryHead(d + C, cfg, cfg.value.layers, cfg.value.heads, per_step)
        self.policy = nn.ModuleDict(
            {
                "query": nn.Linear(max(C, 1), d),
                "decoder": TransformerDecoder(
                    d,
                    cfg.policy.layers,
                    cfg.policy.heads,
                    cfg.policy_ffn_dim or cfg.ffn_dim,
                    cfg.attention_dropout,
                    cfg.mlp_dropout,
                ),
                "out": nn.Linear(d, A),
            }
        )
        if cfg.policy_step_width:  # inside `policy`: the same parameter group, frozen and trained with the chunk
            self.policy["step"] = MLP(d + C, (cfg.policy_step_width,) * 2, A)
        self.policy_position = nn.Parameter(torch.randn(T, d))
        if cfg.reconstruction:
            flat = sum(math.prod(s) for s in spec.obs_shapes.values())
            self.decoder = MLP(d, (cfg.ffn_dim,), flat)
        if cfg.dynamics_ensemble:  # built last, so the paper's modules draw the same initial weights with or without
            self.dynamics_members = nn.ModuleList(
                nn.ModuleDict(
                    {
                        "decoder": TransformerDecoder(
                            d,
                            cfg.dynamics.layers,
                            cfg.dynamics.heads,
                            cfg.ffn_dim,
                            cfg.attention_dropout,
                            cfg.mlp_dropout,
                        ),
                        "out": nn.Linear(d, d),
                    }
                )
                for _ in range(cfg.dynamics_ensemble)
            )

    # ------------------------------------------------------------------------------ parameter groups
    def parameter_group(self, name: str) -> list[tuple[str, nn.Parameter]]:
        """Named parameters of one group (used by the finetuning filter)."""
        prefixes = {
            "encoder": ("encoder.",),
            "history": ("history.", "history_time", "history_type"),
            "action_embedding": ("action_embedding.", "action_position"),
            "dynamics": ("dynamics.", "dynamics_members."),
            "reward": ("reward.",),
            "value": ("value.",),
            "ensemble": ("dynamics_members.",),
            "policy": ("policy.", "policy_position"),
            "decoder": ("decoder.",),
        }
        if name not in prefixes:
            raise KeyError(f"unknown parameter group {name!r}; valid groups: {list(prefixes)}")
        return [(n, p) for n, p in self.named_parameters() if n.startswith(prefixes[name])]

    # ------------------------------------------------------------------------------------- pieces
    def normalize_obs(self, obs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        return {name: self.normalizer.normalize(name, obs[name]) for name in self.spec.obs_shapes}

    def encode_n(self, obs_n: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.encoder(obs_n)

    def encode(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.encode_n(self.normalize_obs(obs))

    def context_n(self, z: torch.Tensor, hist_proprio_n: torch.Tensor, hist_action_n: torch.Tensor) -> torch.Tensor:
        """Interleaved [o, a, o, a, …, z] tokens: (B, 2H+1, d)."""
        B, H = hist_proprio_n.shape[:2]
        t_enc, type_enc = self.history_time, self.history_type
        o_tok = self.encoder.proprio_features(hist_proprio_n) + t_enc[:H] + type_enc[0]
        a_tok = self.history["action"](hist_action_n) + t_enc[:H] + type_enc[1]
        pairs = torch.stack((o_tok, a_tok), dim=2).reshape(B, 2 * H, -1)
        return torch.cat((pairs, self.latent_token(z)), dim=1)

    def latent_token(self, z: torch.Tensor) -> torch.Tensor:
        """z_t as the last context token, (B, 1, d): with the current step's temporal and type encodings."""
        return (z + self.history_time[self.cfg.history] + self.history_type[2]).unsqueeze(1)

    def policy_context_n(self, context: torch.Tensor) -> torch.Tensor:
        """The tokens the BC head attends to: all, without the past-action tokens (`policy_sees_actions`), or
        z_t alone (`policy_sees_history`)."""
        if not self.cfg.policy_sees_history:
            return context[:, -1:]
        if self.cfg.policy_sees_actions:
            return context
        return torch.cat((context[:, 0 : context.shape[1] - 1 : 2], context[:, -1:]), dim=1)  # [o, a, …, z]: o's, z

    def latents_n(self, dynamics_kv: list, actions_n: torch.Tensor) -> torch.Tensor:
        """ẑ_{t+1..t+T} from T candidate actions in one pass."""
        q = self.action_embedding(actions_n) + self.action_position
        return self.dynamics["out"](self.dynamics["decoder"](q, dynamics_kv))

    def member_latents_n(self, member_kv: list, actions_n: torch.Tensor, detach: bool = False) -> torch.Tensor:
        """(K, N, T, d): each ensemble decoder's ẑ_{t+1..t+T} (`member_kv`: one K/V cache per member); `detach`
        keeps the shared action embedding out of the members' gradients."""
        q = self.action_embedding(actions_n) + self.action_position
        q = q.detach() if detach else q
        return torch.stack([m["out"](m["decoder"](q, kv)) for m, kv in zip(self.dynamics_members, member_kv)])

    def _with_command(self, x: torch.Tensor, command_n: torch.Tensor | None) -> torch.Tensor:
        if command_n is None:
            return x
        return torch.cat((x, command_n.expand(*x.shape[:-1], command_n.shape[-1])), dim=-1)

    def _reward_inputs(
        self, z: torch.Tensor, zhat: torch.Tensor, actions_n: torch.Tensor, command_n: torch.Tensor | None
    ) -> torch.Tensor:
        """Step k's reward-head input: z_{t+k} (z_t, then predicted latents), a_{t+k} and g_{t+k}."""
        z_seq = torch.cat((z.unsqueeze(1).expand(zhat.shape[0], 1, -1), zhat[:, :-1]), dim=1)
        x = torch.cat((z_seq, actions_n), dim=-1)
        return self._with_command(x, None if command_n is None else command_n[:, :-1])

    def rewards_n(
        self, z: torch.Tensor, zhat: torch.Tensor, actions_n: torch.Tensor, command_n: torch.Tensor | None
    ) -> torch.Tensor:
        """r̂_{t..t+T-1}; step k sees z_{t+k} (z_t, then predicted latents), a_{t+k} and g_{t+k}."""
        return self.reward(self._reward_inputs(z, zhat, actions_n, command_n))

    def values_n(self, zhat: torch.Tensor, command_n: torch.Tensor | None, last_only: bool = False) -> torch.Tensor:
        """v̂_{t+1..t+T} from the predicted latents and g_{t+1..t+T} (only v̂_{t+T} with `last_only`)."""
        return self.value(self._with_command(zhat, None if command_n is None else command_n[:, 1:]), last_only)

    def policy_n(self, policy_kv: list, batch: int, command_n: torch.Tensor | None) -> torch.Tensor:
        """Base-policy action chunk â_{t..t+T-1} (normalised)."""
        p = self.policy
        if command_n is None:
            q = self.policy_position.expand(batch, -1, -1)
        else:
            q = p["query"](command_n[:, :-1]) + self.policy_position
        return p["out"](p["decoder"](q, policy_kv))

    def step_policy_n(self, z: torch.Tensor, command_n: torch.Tensor | None) -> torch.Tensor:
        """The single-step head's â_t (normalised), from z_t and g_t (`command_n`: (B, ≥1, C), its first step)."""
        return self.policy["step"](z if command_n is None else torch.cat((z, command_n[:, 0]), dim=-1))

    # ----------------------------------------------------------------------------------- training
    def forward(self, batch: dict) -> dict[str, torch.Tensor]:
        """Predictions and stop-gradient targets for Eq. 2, all in normalised units."""
        obs, hist_proprio = batch["obs"], batch["hist_proprio"]
        if self.training and self.cfg.sensor_noise_scale > 0:  # inputs only, never targets or evaluation
            noise, scale = self.spec.sensor_noise_std, self.cfg.sensor_noise_scale
            obs = add_sensor_noise(obs, noise, scale)
            hist_proprio = add_sensor_noise({PROPRIO: hist_proprio}, noise, scale)[PROPRIO]
        if self.training and self.cfg.input_offset_std > 0:
            obs = add_group_offset(obs, self.cfg.input_offset_group, self.cfg.input_offset_std)
        obs_n = self.normalize_obs(obs)
        hist_p = self.normalizer.normalize(PROPRIO, hist_proprio)
        if self.training and self.cfg.input_noise_std > 0:
            obs_n = {k: v + self.cfg.input_noise_std * torch.randn_like(v) for k, v in obs_n.items()}
            hist_p = hist_p + self.cfg.input_noise_std * torch.randn_like(hist_p)
        hist_a = self.normalizer.normalize(ACTION, batch["hist_action"])
        actions_n = self.normalizer.normalize(ACTION, batch["actions"])
        command_n = self.normalizer.normalize(COMMAND, batch["commands"]) if self.spec.command_dim else None

        z = self.encode_n(obs_n)
        context = self.context_n(z, hist_p, hist_a)
        zhat = self.latents_n(self.dynamics["decoder"].cache(context), actions_n)
        out = {
            "zhat": zhat,
            "reward": self.rewards_n(z, zhat, actions_n, command_n),
            "value": self.values_n(zhat, command_n),
            "policy": self.policy_n(
                self.policy["decoder"].cache(self.policy_context_n(context)), z.shape[0], command_n
            ),
            "actions_n": actions_n,
        }
        if "step" in self.policy:
            out["policy_step"] = self.step_policy_n(z, command_n)
        if self.cfg.dynamics_ensemble:  # detached: the members learn from the model, never the other way round
            kv = [m["decoder"].cache(context.detach()) for m in self.dynamics_members]
            out["zhat_members"] = self.member_latents_n(kv, actions_n, detach=True)
        with torch.no_grad():  # sg(E(o_{t+1..t+T})): clean future observations, no augmentation
            future_n = self.normalize_obs(batch["future_obs"])
            out["z_target"] = self.encode_n(future_n)
        if self.cfg.reconstruction:
            out["recon"] = self.decoder(zhat)
            out["recon_target"] = torch.cat([v.flatten(2) for v in future_n.values()], dim=-1)
        return out

    # ----------------------------------------------------------------------------------- planning
    @torch.no_grad()
    def planning_context(
        self,
        obs: dict[str, torch.Tensor],
        hist_proprio: torch.Tensor,
        hist_action: torch.Tensor,
        command: torch.Tensor | None = None,
    ) -> PlanningContext:
        """Encode the current state once per plan (batch 1, raw units)."""
        z = self.encode(obs)
        context = self.context_n(
            z, self.normalizer.normalize(PROPRIO, hist_proprio), self.normalizer.normalize(ACTION, hist_action)
        )
        command_n = None
        if self.spec.command_dim:
            if command is None:
                raise ValueError("this model is conditioned on a command; pass `command`")
            command_n = self.normalizer.normalize(COMMAND, command).reshape(1, 1, -1)
            command_n = command_n.expand(1, self.cfg.horizon + 1, -1)
        policy_kv = self.policy["decoder"].cache(self.policy_context_n(context))
        member_kv = [m["decoder"].cache(context) for m in self.dynamics_members] if self.cfg.dynamics_ensemble else []
        return PlanningContext(z, self.dynamics["decoder"].cache(context), policy_kv, command_n, member_kv)

    @torch.no_grad()
    def plan_returns_n(
        self,
        ctx: PlanningContext,
        actions_n: torch.Tensor,
        discount: float,
        value_weight: float = 1.0,
        uncertainty_weight: float = 0.0,
        reference_n: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """R = Σ_k γ^k r̂_{t+k} + w γ^T v̂_{t+T} in raw reward units, for N normalised action sequences (w = 1: the
        paper's return). Where the model has ensemble decoders (ModelConfig.dynamics_ensemble) and
        `uncertainty_weight` κ > 0, the pessimistic return instead: R(a) minus κ × the spread over the paper's
        dynamics and the members of R(a) − R(reference) (the BC chunk, (T, A)), so a candidate scores above the
        reference only where the members agree that it gains; without a reference, the spread of R(a). The members
        only measure the uncertainty: their own returns share biases off the data, so R stays the paper's."""
        if not (uncertainty_weight and self.cfg.dynamics_ensemble):
            zhat = self.latents_n(ctx.dynamics_kv, actions_n)
            rewards, terminal = self.return_parts_n(ctx, zhat, actions_n, discount)
            return rewards + value_weight * discount ** actions_n.shape[1] * terminal
        returns = self.member_returns_n(ctx, actions_n, discount, value_weight, reference_n)
        return returns[0, : actions_n.shape[0]] - uncertainty_weight * _spread(returns, reference_n is not None)

    @torch.no_grad()
    def return_spread_n(
        self,
        ctx: PlanningContext,
        actions_n: torch.Tensor,
        discount: float,
        value_weight: float = 1.0,
        reference_n: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """The spread that `plan_returns_n` multiplies by κ: over the paper's dynamics and the members, of each
        candidate's return gain over `reference_n` (or of its return without one); zeros without members. What a
        planner scoring candidates some other way (the simulator, `simdist diagnose`) subtracts to keep the same
        objective."""
        if not self.cfg.dynamics_ensemble:
            return torch.zeros(actions_n.shape[0], device=actions_n.device)
        return _spread(
            self.member_returns_n(ctx, actions_n, discount, value_weight, reference_n), reference_n is not None
        )

    def member_returns_n(
        self,
        ctx: PlanningContext,
        actions_n: torch.Tensor,
        discount: float,
        value_weight: float,
        reference_n: torch.Tensor | None,
    ) -> torch.Tensor:
        """(K + 1, N [+ 1]) returns under the paper's dynamics (row 0) and each member; the reference last."""
        if reference_n is not None:  # scored in the same batch as the candidates
            actions_n = torch.cat((actions_n, reference_n[None]))
        zhat = self.latents_n(ctx.dynamics_kv, actions_n)
        K, N = self.cfg.dynamics_ensemble, actions_n.shape[0]
        every = torch.cat((zhat[None], self.member_latents_n(ctx.member_kv, actions_n))).flatten(0, 1)
        rewards, terminal = self.return_parts_n(ctx, every, actions_n.repeat(K + 1, 1, 1), discount)
        return (rewards + value_weight * discount ** actions_n.shape[1] * terminal).view(K + 1, N)

    def return_parts_n(
        self, ctx: PlanningContext, zhat: torch.Tensor, actions_n: torch.Tensor, discount: float
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(Σ_k γ^k r̂_{t+k}, v̂_{t+T}) in raw units for latents ẑ_{t+1..t+T} (N, T, d) reached by `actions_n`."""
        cmd = None if ctx.command_n is None else ctx.command_n.expand(actions_n.shape[0], -1, -1)
        rewards = self.normalizer.denormalize(REWARD, self.rewards_n(ctx.z, zhat, actions_n, cmd))
        terminal = self.normalizer.denormalize(VALUE, self.values_n(zhat, cmd, last_only=True))
        T = actions_n.shape[1]
        gammas = discount ** torch.arange(T, dtype=rewards.dtype, device=rewards.device)
        return rewards @ gammas, terminal[:, -1]

    @torch.no_grad()
    def plan_policy_n(self, ctx: PlanningContext) -> torch.Tensor:
        """The BC chunk for planning and deployment, its first action the single-step head's where there is one."""
        chunk = self.policy_n(ctx.policy_kv, 1, ctx.command_n)
        if "step" in self.policy:
            chunk = torch.cat((self.step_policy_n(ctx.z, ctx.command_n).unsqueeze(1), chunk[:, 1:]), dim=1)
        return chunk


def _spread(returns: torch.Tensor, has_reference: bool) -> torch.Tensor:
    """Std over models of each candidate's gain over the reference (the last column), or of its return."""
    if not has_reference:
        return returns.std(0)
    return (returns[:, :-1] - returns[:, -1:]).std(0)
