"""The planner's scoring pass (`WorldModel.plan_returns_n`) with every candidate a *column*.

MPPI scores N candidate action sequences of T steps from one state. In the usual (N, T, features) layout the
dynamics' causal self-attention is N·H tiny (T × head-dim) matrix products, and each LayerNorm reduces 64-wide
rows. Here activations are (features, T, N), viewed as (features, T·N) for every linear layer (one GEMM with
the weight on the left): LayerNorm reduces over the leading axis, and attention is a broadcast multiply-sum whose
innermost, contiguous axis is the N candidates, which the compiler vectorises. Same weights, same arithmetic
(equal to `plan_returns_n` up to float rounding, tests/test_mppi.py); 10–20 % faster per decoder layer under
`torch.compile` on CPU, slower eagerly, so only the compiled CPU planner uses it (docs/benchmarks.md).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from simdist.model.layers import DecoderLayer, EncoderLayer, MLP, SelfAttention
from simdist.model.world_model import REWARD, VALUE, PlanningContext, TrajectoryHead, WorldModel


def _linear(layer: nn.Linear, x: torch.Tensor) -> torch.Tensor:
    """(in, T, N) → (out, T, N)."""
    _, t, n = x.shape
    return torch.addmm(layer.bias[:, None], layer.weight, x.reshape(-1, t * n)).view(-1, t, n)


def _layer_norm(norm: nn.LayerNorm, x: torch.Tensor) -> torch.Tensor:
    mean = x.mean(0, keepdim=True)
    var = (x - mean).square().mean(0, keepdim=True)
    return (x - mean) * torch.rsqrt(var + norm.eps) * norm.weight[:, None, None] + norm.bias[:, None, None]


def _mlp(mlp: MLP, x: torch.Tensor) -> torch.Tensor:
    for layer in mlp:  # eval mode: dropout is the identity
        if isinstance(layer, nn.Linear):
            x = _linear(layer, x)
        elif isinstance(layer, nn.GELU):
            x = F.gelu(x)
    return x


def _self_attention(attn: SelfAttention, x: torch.Tensor, last_only: bool = False) -> torch.Tensor:
    d, t, n = x.shape
    h = attn.heads
    q, k, v = _linear(attn.qkv, x).view(3, h, d // h, t, n).unbind(0)  # (H, dh, T, N) each
    if last_only:
        q = q[:, :, -1:]
    scores = (q.unsqueeze(3) * k.unsqueeze(2)).sum(1) * (d // h) ** -0.5  # (H, Tq, Tk, N)
    if attn.causal and not last_only:
        scores = scores + torch.full((t, t), float("-inf"), dtype=x.dtype, device=x.device).triu(1)[:, :, None]
    e = (scores - scores.amax(2, keepdim=True)).exp()
    y = (e.unsqueeze(1) * v.unsqueeze(2)).sum(3) / e.sum(2).unsqueeze(1)  # (H, dh, Tq, N)
    return _linear(attn.out, y.reshape(d, -1, n))


def _shared_cross_attention(layer: DecoderLayer, x: torch.Tensor, kv: tuple[torch.Tensor, torch.Tensor]):
    """All T·N queries attend to the one cached context (keys/values (1, H, S, dh))."""
    attn, (k, v) = layer.cross_attn, kv
    d, t, n = x.shape
    h, _, dh = k.shape[1:]
    q = _linear(attn.q, x).view(h, dh, t * n)
    scores = torch.bmm(k[0] * dh**-0.5, q)  # (H, S, T·N)
    e = (scores - scores.amax(1, keepdim=True)).exp()
    y = torch.bmm(v[0].transpose(1, 2), e) / e.sum(1, keepdim=True)  # (H, dh, T·N)
    return _linear(attn.out, y.view(d, t, n))


def _decoder_layer(layer: DecoderLayer, x: torch.Tensor, kv) -> torch.Tensor:
    x = _layer_norm(layer.norm1, x + _self_attention(layer.self_attn, x))
    x = _layer_norm(layer.norm2, x + _shared_cross_attention(layer, x, kv))
    return _layer_norm(layer.norm3, x + _mlp(layer.ffn, x))


def _encoder_layer(layer: EncoderLayer, x: torch.Tensor, last_only: bool) -> torch.Tensor:
    x = _layer_norm(layer.norm1, (x[:, -1:] if last_only else x) + _self_attention(layer.attn, x, last_only))
    return _layer_norm(layer.norm2, x + _mlp(layer.ffn, x))


def _trajectory_head(head: TrajectoryHead, x: torch.Tensor, last_only: bool = False) -> torch.Tensor:
    """(in, T, N) → (T, N) scores, or (1, N) with `last_only`."""
    if head.per_step:
        return _mlp(head.mlp, x[:, -1:] if last_only else x)[0]
    x = _linear(head.embed, x) + head.position.t()[:, :, None]
    layers = head.encoder.layers
    for i, layer in enumerate(layers):
        x = _encoder_layer(layer, x, last_only and i == len(layers) - 1)
    return _linear(head.out, x)[0]


def plan_returns_columns(model: WorldModel, ctx: PlanningContext, actions_n: torch.Tensor,
                         discount: float) -> torch.Tensor:
    """`WorldModel.plan_returns_n` computed column-wise: (N, T, A) normalised actions → (N,) raw returns."""
    a = actions_n.permute(2, 1, 0)  # (A, T, N)
    n, t = actions_n.shape[0], actions_n.shape[1]
    x = _linear(model.action_embedding, a) + model.action_position.t()[:, :, None]
    for layer, kv in zip(model.dynamics["decoder"].layers, ctx.dynamics_kv):
        x = _decoder_layer(layer, x, kv)
    zhat = _linear(model.dynamics["out"], x)  # (d, T, N)
    z_seq = torch.cat((ctx.z.t()[:, :, None].expand(-1, 1, n), zhat[:, :-1]), dim=1)
    reward_in, value_in = torch.cat((z_seq, a)), zhat
    if ctx.command_n is not None:  # (1, T + 1, C): the same command for every candidate
        g = ctx.command_n[0].t()[:, :, None]
        reward_in = torch.cat((reward_in, g[:, :-1].expand(-1, t, n)))
        value_in = torch.cat((value_in, g[:, 1:].expand(-1, t, n)))
    rewards = model.normalizer.denormalize(REWARD, _trajectory_head(model.reward, reward_in))  # (T, N)
    terminal = model.normalizer.denormalize(VALUE, _trajectory_head(model.value, value_in, last_only=True))[-1]
    gammas = discount ** torch.arange(t + 1, dtype=rewards.dtype, device=rewards.device)
    return gammas[:t] @ rewards + gammas[t] * terminal
