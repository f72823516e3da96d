"""Baselines of the paper's §8 (issue #7): BC, IQL, RLPD, SGFT-SAC, SimDist+BC and Diffusion Policy.

Every baseline uses SimDist's observation encoder with an MLP head (no action chunking, except Diffusion
Policy), exposes an `Agent` for `simdist.rollout.rollout` and an `update` step. See docs/baselines.md.
"""
