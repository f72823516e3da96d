"""Peak memory and time of building the training windows of a dataset, streamed (WindowDataset.from_dir, what
training uses) or from a list of loaded episodes (load_episodes + WindowDataset, the pre-session-18 path).

    python benchmarks/replay_memory.py runs/quadruped_data_v3 --mode streamed
    python benchmarks/replay_memory.py runs/quadruped_data_v3 --mode episodes

Run each mode in its own process: the peak RSS (ru_maxrss) is per process.
"""

import argparse
import json
import resource
import time

from simdist.data.episodes import load_episodes
from simdist.data.windows import WindowDataset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data")
    parser.add_argument("--mode", choices=("streamed", "episodes"), default="streamed")
    parser.add_argument("--history", type=int, default=25)
    parser.add_argument("--horizon", type=int, default=25)
    args = parser.parse_args()
    t0 = time.perf_counter()
    if args.mode == "streamed":
        data = WindowDataset.from_dir(args.data, args.history, args.horizon)
    else:
        info, episodes = load_episodes(args.data)
        data = WindowDataset(info, episodes, args.history, args.horizon)
        del episodes
    seconds = time.perf_counter() - t0
    field_gb = sum(v.numel() * v.element_size() for v in (*data.obs.values(), data.action)) / 1e9
    print(json.dumps({"mode": args.mode, "steps": data.n_steps, "seconds": round(seconds, 1),
                      "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6, 2),
                      "obs_and_action_gb": round(field_gb, 2)}))


if __name__ == "__main__":
    main()
