"""Transformer building blocks: post-LN encoder/decoder layers (as the authors use) and MLPs.

Cross-attention supports a *shared* context: when the context batch is 1 and the query batch is N (the
planner scoring N candidate action sequences from one robot state), the N·T queries attend to the one
context in a single call and its keys/values are projected once per plan (`CrossAttention.cache`). Inside the
planner's compiled graph on CPU, small-head self-attention runs unrolled with the samples last
(`SelfAttention._samples_last`).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from simdist.config import ModelConfig


class MLP(nn.Sequential):
    """Linear → GELU (→ dropout) → … → Linear."""

    def __init__(self, in_dim: int, hidden: tuple[int, ...], out_dim: int, dropout: float = 0.0):
        layers: list[nn.Module] = []
        dims = (in_dim, *hidden)
        for a, b in zip(dims[:-1], dims[1:]):
            layers += [nn.Linear(a, b), nn.GELU()]
            if dropout > 0:
                layers.append(nn.Dropout(dropout))
        layers.append(nn.Linear(dims[-1], out_dim))
        super().__init__(*layers)


# Queries per (batch, head) from which the fused CPU kernel is used. The planner's shared-context cross-attention
# sends all N·T candidate queries to one context (quadruped-cpu: 8 heads × 1800 queries × 51 keys): there the
# fused kernel took 0.72–0.85 ms against 2.3 ms for explicit matmuls, whose head-dim-8 matmuls and 51-wide softmax
# are memory-bound. Per-sample attention (≤ 25 queries) is faster explicit (docs/benchmarks.md).
FUSED_MIN_QUERIES = 256
# Up to this many shared-context queries (quadruped-cpu: 72 × 25, paper-manipulation: 350 × 5) the CPU planner's
# cross-attention runs transposed (`CrossAttention._shared_transposed`): 0.59 ms against 0.87 ms fused per call
# at 72 × 25; at 472 × 25 the fused kernel is faster (6.2 against 6.8 ms).
TRANSPOSED_MAX_QUERIES = 4096


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, dropout: float, causal: bool) -> torch.Tensor:
    """softmax(q kᵀ/√d) v. On GPU, and on CPU for long query sequences, the fused kernel; on CPU for short
    sequences (≤ 25 queries per sample, ≤ 51 keys) explicit matmuls, 10–40 % faster there; in compiled training on
    one CPU thread (a data-parallel process per core, or OMP_NUM_THREADS=1), broadcast sums (`_attention_sums`),
    which inductor's threading makes 3x slower on two."""
    if q.is_cuda or q.shape[-2] >= FUSED_MIN_QUERIES:
        return F.scaled_dot_product_attention(q, k, v, dropout_p=dropout, is_causal=causal)
    if torch.compiler.is_compiling() and torch.is_grad_enabled() and _one_thread():
        return _attention_sums(q, k, v, dropout, causal)
    scale = q.shape[-1] ** -0.5
    if causal:  # one baddbmm: scale·q kᵀ + (−inf above the diagonal); 20 % faster than scale, matmul, masked_fill
        *batch, n, dh = q.shape
        m = k.shape[-2]
        mask = torch.full((n, m), float("-inf"), dtype=q.dtype, device=q.device).triu(1)
        scores = torch.baddbmm(mask, q.reshape(-1, n, dh), k.reshape(-1, m, dh).transpose(1, 2), alpha=scale)
        scores = scores.view(*batch, n, m)
    else:
        scores = (q * scale) @ k.transpose(-1, -2)
    weights = scores.softmax(-1)
    if dropout > 0:
        weights = F.dropout(weights, dropout)
    return weights @ v


@torch.compiler.assume_constant_result
def _one_thread() -> bool:
    """Read once when the graph is traced (calling torch.get_num_threads inside a compiled graph slowed it 1.6x)."""
    return torch.get_num_threads() == 1


def _attention_sums(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, dropout: float, causal: bool) -> torch.Tensor:
    """The same attention as broadcast products summed over the head dim and the keys (the softmax and the weighted
    sum in fp32): inductor fuses each sum, and its gradient, into one loop instead of a batched matmul of head-dim-8
    matrices per (sample, head). paper-manipulation training on one CPU thread: docs/benchmarks.md."""
    scores = (q.unsqueeze(-2) * k.unsqueeze(-3)).sum(-1) * q.shape[-1] ** -0.5  # (…, n, m)
    if causal:
        n, m = scores.shape[-2:]
        scores = scores + torch.full((n, m), float("-inf"), dtype=scores.dtype, device=q.device).triu(1)
    weights = scores.float().softmax(-1)
    if dropout > 0:
        weights = F.dropout(weights, dropout)
    return (weights.unsqueeze(-1) * v.unsqueeze(-3).float()).sum(-2).to(v.dtype)


def _split_heads(x: torch.Tensor, heads: int) -> torch.Tensor:
    b, n, d = x.shape
    return x.view(b, n, heads, d // heads).transpose(1, 2)


def _merge_heads(x: torch.Tensor) -> torch.Tensor:
    b, h, n, dh = x.shape
    return x.transpose(1, 2).reshape(b, n, h * dh)


class SelfAttention(nn.Module):
    def __init__(self, dim: int, heads: int, dropout: float, causal: bool):
        super().__init__()
        self.heads, self.dropout, self.causal = heads, dropout, causal
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, last_only: bool = False) -> torch.Tensor:
        """With `last_only`, only the last token queries (the rest still serve as keys and values)."""
        if not last_only and _unrolled_ok(x, self.heads, self.training and self.dropout > 0):
            return self._samples_last(x)
        q, k, v = (_split_heads(t, self.heads) for t in self.qkv(x).chunk(3, dim=-1))
        if last_only:
            q = q[:, :, -1:]
        p = self.dropout if self.training else 0.0
        y = attention(q, k, v, p, self.causal and not last_only)
        return self.out(_merge_heads(y))

    def _samples_last(self, x: torch.Tensor) -> torch.Tensor:
        """The same attention for torch.compile on CPU, with the B samples as the last axis and the head-dim and
        key sums unrolled: inductor turns it into a few loops vectorised over B instead of B·H tiny matmuls
        (head dim 8, 25 tokens: 0.5 ms per bmm call at one thread; docs/benchmarks.md). The sums run in fp32 under
        bf16 autocast, and the output projection is one product per query token, so that the weighted sum over the
        keys is written in the (query, sample) layout the product reads (vectorised over B): 1.5x faster than one
        (d, N·B) product with bf16 products (planner's self-attention, 350 × 5 tokens, dh 16)."""
        b, n, d = x.shape
        h = self.heads
        dh = d // h
        qkv = torch.addmm(self.qkv.bias[:, None], self.qkv.weight, x.permute(2, 1, 0).reshape(d, n * b))
        q, k, v = qkv.float().view(3, h, dh, n, b).unbind(0)
        scores = torch.full((n, n), float("-inf") if self.causal else 0.0, dtype=q.dtype, device=x.device).triu(1)
        scores = scores[None, :, :, None]  # causal mask (or zeros), broadcast over heads and samples
        q = q * dh**-0.5
        for i in range(dh):  # (H, queries, keys, B)
            scores = scores + q[:, i, :, None] * k[:, i, None]
        e = (scores - scores.amax(2, keepdim=True)).exp()
        e = e / e.sum(2, keepdim=True)
        y = e[:, None, :, 0] * v[:, :, 0, None]
        for j in range(1, n):  # (H, dh, queries, B)
            y = y + e[:, None, :, j] * v[:, :, j, None]
        y = y.reshape(d, n, b).permute(1, 2, 0)  # (queries, B, d)
        return torch.baddbmm(self.out.bias, y, self.out.weight.t().expand(n, d, d)).transpose(0, 1)


# Head dimension and sequence length up to which compiled CPU self-attention is unrolled (`_samples_last`).
UNROLL_MAX_HEAD_DIM = 16
UNROLL_MAX_TOKENS = 32


def _unrolled_ok(x: torch.Tensor, heads: int, dropout: bool) -> bool:
    return (
        torch.compiler.is_compiling()
        and not torch.is_grad_enabled()
        and not x.is_cuda
        and not dropout
        and x.shape[0] > 1
        and x.shape[-1] // heads <= UNROLL_MAX_HEAD_DIM
        and x.shape[1] <= UNROLL_MAX_TOKENS
    )


class CrossAttention(nn.Module):
    def __init__(self, dim: int, heads: int, dropout: float):
        super().__init__()
        self.heads, self.dropout = heads, dropout
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * dim)
        self.out = nn.Linear(dim, dim)

    def cache(self, context: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Project the context to per-head keys and values once."""
        k, v = self.kv(context).chunk(2, dim=-1)
        return _split_heads(k, self.heads), _split_heads(v, self.heads)

    def forward(self, x: torch.Tensor, kv: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        k, v = kv
        b, n, d = x.shape
        shared = k.shape[0] == 1 and b > 1
        if (
            shared
            and not x.is_cuda
            and not (self.training and self.dropout > 0)
            and FUSED_MIN_QUERIES <= b * n <= TRANSPOSED_MAX_QUERIES
        ):
            return self._shared_transposed(x, k, v)
        if shared:  # no mask in cross-attention, so all B·N queries can attend to the one context at once
            x = x.reshape(1, b * n, d)
        q = _split_heads(self.q(x), self.heads)
        p = self.dropout if self.training else 0.0
        y = _merge_heads(attention(q, k, v, p, causal=False))
        if shared:
            y = y.reshape(b, n, d)
        return self.out(y)

    def _shared_transposed(self, x: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """The same attention with the B·N queries as the *last* axis: qᵀ = W_q xᵀ, sᵀ = k qᵀ (H, S, B·N),
        e = exp(sᵀ − max over the S keys) vectorised along B·N, yᵀ = (vᵀ e) / Σ e, out = y W_oᵀ. Long contiguous
        rows instead of 51-wide softmax rows and head-dim-8 matmul outputs, no head split/merge copies, and the
        softmax normalisation on the 8-wide output instead of the 51-wide weights (docs/benchmarks.md)."""
        b, n, d = x.shape
        h, s, dh = k.shape[1:]
        q_t = torch.addmm(self.q.bias[:, None], self.q.weight, x.reshape(b * n, d).t())  # (d, B·N)
        scores_t = torch.bmm(k[0] * dh**-0.5, q_t.view(h, dh, b * n))  # (H, S, B·N)
        e = (scores_t - scores_t.amax(1, keepdim=True)).exp_()
        y_t = torch.bmm(v[0].transpose(1, 2), e) / e.sum(1, keepdim=True)  # (H, dh, B·N)
        return torch.addmm(self.out.bias, y_t.view(d, b * n).t(), self.out.weight.t()).view(b, n, d)


class FeedForward(nn.Sequential):
    def __init__(self, dim: int, ffn_dim: int, dropout: float):
        layers: list[nn.Module] = [nn.Linear(dim, ffn_dim), nn.GELU()]
        if dropout > 0:
            layers.append(nn.Dropout(dropout))
        layers.append(nn.Linear(ffn_dim, dim))
        super().__init__(*layers)


class EncoderLayer(nn.Module):
    """Post-LN: x = LN(x + SelfAttn(x)); x = LN(x + FFN(x))."""

    def __init__(
        self, dim: int, heads: int, ffn_dim: int, attn_dropout: float, mlp_dropout: float, causal: bool = False
    ):
        super().__init__()
        self.attn = SelfAttention(dim, heads, attn_dropout, causal)
        self.ffn = FeedForward(dim, ffn_dim, mlp_dropout)
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor, last_only: bool = False) -> torch.Tensor:
        x = self.norm1((x[:, -1:] if last_only else x) + self.attn(x, last_only))
        return self.norm2(x + self.ffn(x))


class DecoderLayer(nn.Module):
    """Post-LN: causal self-attention, cross-attention to the context, FFN."""

    def __init__(self, dim: int, heads: int, ffn_dim: int, attn_dropout: float, mlp_dropout: float):
        super().__init__()
        self.self_attn = SelfAttention(dim, heads, attn_dropout, causal=True)
        self.cross_attn = CrossAttention(dim, heads, attn_dropout)
        self.ffn = FeedForward(dim, ffn_dim, mlp_dropout)
        self.norm1, self.norm2, self.norm3 = nn.LayerNorm(dim), nn.LayerNorm(dim), nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor, kv: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        x = self.norm1(x + self.self_attn(x))
        x = self.norm2(x + self.cross_attn(x, kv))
        return self.norm3(x + self.ffn(x))


class TransformerDecoder(nn.Module):
    """Causal decoder over query tokens that cross-attends to a context; `cache` precomputes its K/V."""

    def __init__(self, dim: int, layers: int, heads: int, ffn_dim: int, attn_dropout: float, mlp_dropout: float):
        super().__init__()
        self.layers = nn.ModuleList(DecoderLayer(dim, heads, ffn_dim, attn_dropout, mlp_dropout) for _ in range(layers))

    def cache(self, context: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor]]:
        return [layer.cross_attn.cache(context) for layer in self.layers]

    def forward(self, x: torch.Tensor, context_kv: list[tuple[torch.Tensor, torch.Tensor]]) -> torch.Tensor:
        for layer, kv in zip(self.layers, context_kv):
            x = layer(x, kv)
        return x


class TransformerEncoder(nn.Module):
    """Bidirectional (unmasked) encoder, used by the reward and value heads."""

    def __init__(self, dim: int, layers: int, heads: int, ffn_dim: int, attn_dropout: float, mlp_dropout: float):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(dim, heads, ffn_dim, attn_dropout, mlp_dropout) for _ in range(layers))

    def forward(self, x: torch.Tensor, last_only: bool = False) -> torch.Tensor:
        """With `last_only`, return only the last token's output, skipping work no other token needs."""
        for i, layer in enumerate(self.layers):
            x = layer(x, last_only and i == len(self.layers) - 1)
        return x


def learned_encoding(*shape: int, scale: float = 0.02) -> nn.Parameter:
    return nn.Parameter(torch.randn(*shape) * scale)


class TrajectoryHead(nn.Module):
    """Scalar per step from a token sequence: Linear → +pos → bidirectional encoder → Linear.

    With ``per_step=True`` (ablation) each step is scored by an MLP that sees only its own token.
    """

    def __init__(self, in_dim: int, cfg: ModelConfig, layers: int, heads: int, per_step: bool):
        super().__init__()
        d = cfg.latent_dim
        self.per_step = per_step
        if per_step:
            self.mlp = MLP(in_dim, (cfg.ffn_dim, cfg.ffn_dim), 1)
        else:
            self.embed = nn.Linear(in_dim, d)
            self.position = nn.Parameter(torch.randn(cfg.horizon, d))
            self.encoder = TransformerEncoder(d, layers, heads, cfg.ffn_dim, cfg.attention_dropout, cfg.mlp_dropout)
            self.out = nn.Linear(d, 1)

    def forward(self, x: torch.Tensor, last_only: bool = False) -> torch.Tensor:
        """(B, T) scores, or (B, 1) for the last step only when `last_only` (the planner's terminal value)."""
        if self.per_step:
            return self.mlp(x[:, -1:] if last_only else x).squeeze(-1)
        return self.out(self.encoder(self.embed(x) + self.position, last_only)).squeeze(-1)
