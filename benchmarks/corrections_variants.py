"""Datasets for attributing what cloning operator corrections does (session 14, docs/results.md).

Each variant is a new dataset built from round 0 of a `simdist adapt --corrected-episodes` run (`r00_*` files):
    mask-K   the first K operator steps of every takeover are not flagged (the handover transient is not cloned;
             mask-0: the round-0 data as recorded)
    zeros    no operator step is flagged (the corrected episodes train the dynamics only; BC sees sim replay alone)
    nofall   operator steps are flagged only in corrected episodes that did not fall
    alg2     instead, every 7th episode of a privileged Alg. 2 real dataset, up to MAX_STEPS (same robot time)

    python benchmarks/corrections_variants.py mask-25 runs/adapt_corr_mu019_s0/real_data runs/corr_s0r0_mask25
"""

from __future__ import annotations

import sys
from dataclasses import replace

import numpy as np

from simdist.data.episodes import create_dataset, episode_files, read_episode_file, read_info, write_episodes

MAX_STEPS = 12_900  # about the round-0 robot time of adapt_corr_mu019_s0 (4.3 min at 50 Hz); the every-7th set holds 3.7


def relabel(episode, mode: str):
    if episode.expert is None:
        return episode
    flags = episode.expert.copy()
    if mode.startswith("mask-"):
        for start in np.flatnonzero(np.diff(np.r_[0, flags.astype(int)]) == 1):
            flags[start:start + int(mode[5:])] = False
    elif mode == "zeros" or (mode == "nofall" and episode.metrics.get("fell")):
        flags[:] = False
    return replace(episode, expert=flags)


def main(mode: str, src: str, out: str) -> None:
    info = read_info(src)
    create_dataset(out, info)
    if mode == "alg2":
        episodes = [e for p in episode_files(src) for e in read_episode_file(p, info)][::7]
        steps = np.cumsum([len(e) for e in episodes])
        for i, e in enumerate(episodes[: int(np.searchsorted(steps, MAX_STEPS)) + 1]):
            write_episodes(out, [e], name=f"alg2_{i:04d}")
        return
    if mode not in ("zeros", "nofall") and not mode.startswith("mask-"):
        raise SystemExit(f"unknown variant {mode!r}; valid: mask-K, zeros, nofall, alg2")
    for p in episode_files(src):
        if p.stem.startswith("r00_"):
            (e,) = read_episode_file(p, info)
            write_episodes(out, [relabel(e, mode)], name=p.stem)


if __name__ == "__main__":
    main(*sys.argv[1:4])
