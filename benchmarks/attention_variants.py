"""Compiled CPU micro-benchmarks behind docs/benchmarks.md's planner notes (session 12): one dynamics-decoder block
at the quadruped-cpu planner's shapes (72 candidates × 25 tokens, width 64, 8 heads, 51 context tokens), each
variant through torch.compile, checked against the eager result, median µs over 300 calls, alternating rounds.

    OMP_NUM_THREADS=1 python benchmarks/attention_variants.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
import torch.nn.functional as F

from simdist.model.layers import CrossAttention, FeedForward, SelfAttention

N, T, D, H, S = 72, 25, 64, 8, 51
DH = D // H


def self_attention_variants(sa: SelfAttention) -> dict:
    def matmul_form(x):  # the eager path (baddbmm + softmax + bmm), traced as is
        q, k, v = (t.view(N, T, H, DH).transpose(1, 2) for t in sa.qkv(x).chunk(3, dim=-1))
        mask = torch.full((T, T), float("-inf")).triu(1)
        w = torch.baddbmm(mask, q.reshape(-1, T, DH), k.reshape(-1, T, DH).transpose(1, 2), alpha=DH**-0.5)
        y = (w.softmax(-1) @ v.reshape(-1, T, DH)).view(N, H, T, DH)
        return sa.out(y.transpose(1, 2).reshape(N, T, D))
    return {"self-attention, matmuls": matmul_form, "self-attention, samples last, unrolled (shipped)": sa}


def cross_attention_variants(ca: CrossAttention, kv) -> dict:
    k, v = kv

    def scores_unrolled(x):
        q_t = torch.addmm(ca.q.bias[:, None], ca.q.weight, x.reshape(N * T, D).t()).view(H, DH, N * T)
        kk = k[0] * DH**-0.5
        s = kk[:, :, 0, None] * q_t[:, 0, None]
        for i in range(1, DH):
            s = s + kk[:, :, i, None] * q_t[:, i, None]
        e = (s - s.amax(1, keepdim=True)).exp()
        y = torch.bmm(v[0].transpose(1, 2), e) / e.sum(1, keepdim=True)
        return torch.addmm(ca.out.bias, y.view(D, N * T).t(), ca.out.weight.t()).view(N, T, D)

    def chunked(x, chunk=200):
        q_t = torch.addmm(ca.q.bias[:, None], ca.q.weight, x.reshape(N * T, D).t()).view(H, DH, N * T)
        ys = []
        for c in range(0, N * T, chunk):
            s = torch.bmm(k[0] * DH**-0.5, q_t[:, :, c:c + chunk])
            e = (s - s.amax(1, keepdim=True)).exp()
            ys.append(torch.bmm(v[0].transpose(1, 2), e) / e.sum(1, keepdim=True))
        y = torch.cat(ys, 2)
        return torch.addmm(ca.out.bias, y.view(D, N * T).t(), ca.out.weight.t()).view(N, T, D)

    return {"cross-attention, transposed (shipped)": lambda x: ca(x, kv),
            "cross-attention, scores unrolled": scores_unrolled,
            "cross-attention, chunked over 200 queries": chunked}


def ffn_variants(ffn: FeedForward, ln: torch.nn.LayerNorm) -> dict:
    l1, l2 = ffn[0], ffn[2]

    def bias_in_pointwise(x):  # mm, then the bias added inside the GELU / LayerNorm kernels
        h = F.gelu(torch.matmul(x, l1.weight.t()) + l1.bias)
        return ln(x + (torch.matmul(h, l2.weight.t()) + l2.bias))
    return {"FFN + LayerNorm, addmm (shipped)": lambda x: ln(x + ffn(x)),
            "FFN + LayerNorm, mm + bias": bias_in_pointwise}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    torch.manual_seed(0)
    sa = SelfAttention(D, H, 0.0, causal=True).eval().requires_grad_(False)
    ca = CrossAttention(D, H, 0.0).eval().requires_grad_(False)
    kv = ca.cache(torch.randn(1, S, D))
    ffn = FeedForward(D, 4 * D, 0.0).eval().requires_grad_(False)
    ln = torch.nn.LayerNorm(D).eval().requires_grad_(False)
    groups = [self_attention_variants(sa), cross_attention_variants(ca, kv), ffn_variants(ffn, ln)]
    x = torch.randn(N, T, D)
    with torch.inference_mode():
        for group in groups:
            reference = list(group.values())[0](x)
            compiled = {name: torch.compile(fn, dynamic=False) for name, fn in group.items()}
            for name, fn in compiled.items():
                err = (fn(x) - reference).abs().max().item()
                assert err < 1e-5, f"{name}: differs from the reference by {err}"
            for r in range(args.rounds):
                for name, fn in compiled.items():
                    times = []
                    for _ in range(300):
                        t = time.perf_counter()
                        fn(x)
                        times.append(time.perf_counter() - t)
                    print(f"round {r} | {name} | {statistics.median(times) * 1e6:.0f} µs", flush=True)


if __name__ == "__main__":
    main()
