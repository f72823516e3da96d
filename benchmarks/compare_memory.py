"""Resident memory of one `simdist compare` process across seeds: what is still held after a seed ends.

Mode `data` repeats, per seed, the data path of an online baseline (load the simulation episodes, their
observation statistics, the transition buffer with reward labels, BC's expert-only buffer), then drops it all;
mode `rlpd` (or any method) runs `run_baseline` itself with a one-round budget. After each seed the script
prints the resident set size (VmRSS) as it is and after `gc.collect()`; with `--trim`, also after glibc's
`malloc_trim(0)`, which then also shapes the later seeds (run once with and once without).

    python benchmarks/compare_memory.py runs/quadruped_data_v2 --mode data --seeds 3
    python benchmarks/compare_memory.py runs/quadruped_data_v2 --mode rlpd --seeds 3 \
        --checkpoint checkpoints/quadruped-cpu --task foam --out /tmp/compare_memory
"""

import argparse
import ctypes
import gc
import json
import resource
import time


def rss_gb() -> float:
    with open("/proc/self/status") as f:
        kb = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return round(kb / 1e6, 2)


def data_path(data: str) -> None:
    from simdist.baselines.replay import TransitionBuffer, cached_transitions, observation_stats, sim_labels
    from simdist.data.episodes import load_episodes

    _, episodes = load_episodes(data)
    observation_stats(episodes)
    buffer = cached_transitions(episodes, sim_labels, ("memory-probe",))
    expert = TransitionBuffer.from_episodes(episodes, sim_labels, expert_only=True)
    del buffer, expert, episodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data")
    parser.add_argument("--mode", default="data", help="'data', or a baseline method run with run_baseline")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--task", default="foam")
    parser.add_argument("--checkpoint")
    parser.add_argument("--out", default="/tmp/compare_memory")
    parser.add_argument("--trim", action="store_true", help="malloc_trim(0) after each seed")
    args = parser.parse_args()
    libc = ctypes.CDLL("libc.so.6")
    print(json.dumps({"seed": None, "rss_gb": rss_gb()}), flush=True)
    for seed in range(args.seeds):
        t0 = time.perf_counter()
        if args.mode == "data":
            data_path(args.data)
        else:
            from simdist.experiments.baseline_run import BaselineRunConfig, run_baseline

            run_baseline(args.mode, args.task, args.data, f"{args.out}/{args.mode}/seed_{seed}",
                         BaselineRunConfig(15, 15, episodes_per_round=15, grid="all", checkpoint=args.checkpoint), seed)
        row = {"seed": seed, "seconds": round(time.perf_counter() - t0), "rss_gb": rss_gb(),
               "peak_so_far_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6, 2)}
        gc.collect()
        row["after_gc_gb"] = rss_gb()
        if args.trim:
            libc.malloc_trim(0)
            row["after_trim_gb"] = rss_gb()
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
