"""Share of a dataset's (H, T) training windows whose first action is the uncorrupted expert's: the windows whose
BC error counts when the dataset is replayed beside DAgger labels (the rest count as zero; docs/results.md, session 20).

    python benchmarks/window_expert_share.py runs/quadruped_data_v2 [--horizon 25]
"""

import argparse

import h5py
import numpy as np

from simdist.data.episodes import episode_files


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data")
    p.add_argument("--horizon", type=int, default=25)
    args = p.parse_args()
    windows = expert_windows = steps = expert_steps = 0
    for path in episode_files(args.data):
        with h5py.File(path, "r") as f:
            expert, lengths = f["expert"][:], f["episode_lengths"][:]
        steps, expert_steps = steps + len(expert), expert_steps + int(expert.sum())
        for start, length in zip(np.cumsum(lengths) - lengths, lengths):
            if length > args.horizon:  # a window starts at each of the first L - T steps
                first = expert[start:start + length - args.horizon]
                windows, expert_windows = windows + len(first), expert_windows + int(first.sum())
    print(f"windows with an expert first action: {expert_windows / windows:.3f} of {windows}; "
          f"expert steps: {expert_steps / steps:.3f} of {steps}")


if __name__ == "__main__":
    main()
