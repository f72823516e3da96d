"""Milliseconds to render one rollout-video frame of each task, with and without shadows (docs/benchmarks.md).

    python benchmarks/video_frame_cost.py [--frames 30] [--width 240 --height 180]

Renders each task's `sim` scene after reset through the same offscreen path as `simdist run`'s videos
(simdist.eval.video) on the backend it would pick; prints one JSON line per task and setting.
"""

from __future__ import annotations

import argparse
import json
import time

from simdist.eval.video import OffscreenRenderer, scene_of, select_backend
from simdist.tasks import get_task

TASKS = ("pendulum", "peg-insertion", "table-leg", "foam")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--width", type=int, default=240)
    parser.add_argument("--height", type=int, default=180)
    args = parser.parse_args()
    backend, reason = select_backend()
    if backend is None:
        raise SystemExit(f"no rendering backend: {reason}")
    for name in TASKS:
        env = get_task(name).make_env("sim", seed=0)
        env.reset(seed=0)
        model, data, camera = scene_of(env)
        for shadows in (True, False):
            renderer = OffscreenRenderer(backend, model, args.width, args.height, shadows)
            try:
                renderer.render(model, data, camera)  # first frame uploads the textures
                t0 = time.perf_counter()
                for _ in range(args.frames):
                    renderer.render(model, data, camera)
                ms = (time.perf_counter() - t0) / args.frames * 1e3
            finally:
                renderer.close()
            print(json.dumps({"task": name, "backend": backend, "shadows": shadows, "ms_per_frame": round(ms, 1),
                              "size": [args.width, args.height]}))


if __name__ == "__main__":
    main()
