"""Session 22 probe: a copy of a DAgger dataset whose episodes end in N repeats of their last step, flagged as not
labelled, so the world model's T-step windows start at every labelled step, the last ones of a fall included. Only
for head-only training (the latent, reward and value terms would see a robot frozen in its last pose).

    python benchmarks/pad_episode_ends.py runs/dagger_bc_foam_s0/dagger_data runs/dagger_bc_foam_padded_s0/dagger_data --steps 25
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np

from simdist.data.episodes import create_dataset, load_episodes, write_episodes


def padded(e, n: int):
    tail = lambda a: None if a is None else np.concatenate([a, np.repeat(a[-1:], n, axis=0)])  # noqa: E731
    expert = np.zeros(len(e), bool) if e.expert is None else e.expert.astype(bool)
    return dataclasses.replace(e, obs={g: tail(v) for g, v in e.obs.items()}, action=tail(e.action),
                               command=tail(e.command), reward=tail(e.reward), value=tail(e.value),
                               expert=np.concatenate([expert, np.zeros(n, bool)]),
                               expert_action=tail(e.expert_action))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("source")
    p.add_argument("out")
    p.add_argument("--steps", type=int, default=25, help="repeats of the last step (the model's horizon T)")
    args = p.parse_args()
    info, episodes = load_episodes(args.source)
    create_dataset(args.out, info)
    write_episodes(args.out, [padded(e, args.steps) for e in episodes])
    print(f"{len(episodes)} episodes, {sum(map(len, episodes))} steps, each padded by {args.steps}: {args.out}")


if __name__ == "__main__":
    main()
