"""Short rollout videos (animated GIFs) for the run report, rendered offscreen with MuJoCo.

A video is one extra episode, run only to be filmed: it is not part of any dataset or success rate. It lasts at
most ``VideoConfig.max_seconds`` of robot time, one frame per ``1 / fps`` seconds (at least one per control step),
and plays back in real time. GIFs are written with Pillow (a dependency of matplotlib); no ffmpeg.

Rendering backend. MuJoCo needs an OpenGL context. If ``MUJOCO_GL`` is set (``egl``, ``osmesa``, ``glfw``), only
that backend is tried; ``MUJOCO_GL=disable`` turns videos off. Otherwise the first of ``egl``, ``osmesa`` (and
``glfw`` when ``DISPLAY`` is set) that renders a test frame in a subprocess is used: a failed OpenGL platform
cannot be unloaded from a process, so candidates are tried out of process and the winner is loaded in process
once. On a headless Debian/Ubuntu box EGL works with Mesa's software renderer (packages ``libegl1``,
``libegl-mesa0``, ``libgl1-mesa-dri``); OSMesa needs ``libosmesa6``. When nothing works, every video is
reported as ``video unavailable: <reason>`` and nothing else fails.

Which scene and camera: an env may define ``render_scene() -> (MjModel, MjData, MjvCamera)``; otherwise an env
with ``.batch`` (the quadruped) is filmed from a camera tracking robot 0's trunk, and an env with ``.model`` and
``.data`` from a free camera on the model's centre.
"""

from __future__ import annotations

import ctypes.util
import json
import logging
import math
import os
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import mujoco
import numpy as np
from PIL import Image

from simdist.adaptation.rounds import round_model_dir
from simdist.data.episodes import atomic_write_text
from simdist.planning.agent import MPPIAgent
from simdist.training.checkpoint import load_model

log = logging.getLogger(__name__)

DEFAULT_CANDIDATES = ("egl", "osmesa")
DISABLED = ("disable", "disabled", "off", "false", "0")
PROBE_TIMEOUT_S = 60.0
_backend_cache: tuple[str | None, str | None] | None = None  # (backend, reason it is unavailable)


@dataclass(frozen=True)
class VideoConfig:
    width: int = 240
    height: int = 180
    fps: float = 10.0  # at most; a slower control rate gives one frame per control step
    max_seconds: float = 10.0  # robot time filmed
    shadows: bool = False  # Mesa's software renderer draws a frame 7x slower with them (63 vs 9 ms, 240 x 180)


@dataclass
class VideoResult:
    label: str
    path: str | None  # the GIF, relative to the report's folder; None when unavailable
    error: str | None = None  # why there is no video
    frames: int = 0
    robot_seconds: float = 0.0
    episode_success: bool | None = None  # the task's episode metric; None when the clip ends before the episode
    backend: str | None = None


# ------------------------------------------------------------------------------------------------ backend
def _context_class(backend: str):
    if backend == "egl":
        from mujoco.egl import GLContext
    elif backend == "osmesa":
        from mujoco.osmesa import GLContext
    elif backend == "glfw":
        from mujoco.glfw import GLContext
    else:
        raise ValueError(f"unknown MuJoCo GL backend {backend!r}; valid: egl, osmesa, glfw")
    return GLContext


class OffscreenRenderer:
    """An RGB offscreen renderer on an explicit GL backend (MuJoCo's own Renderer fixes its backend when mujoco
    is first imported)."""

    def __init__(self, backend: str, model: mujoco.MjModel, width: int, height: int, shadows: bool = True):
        self.width, self.height = width, height
        self._ctx = _context_class(backend)(width, height)
        self._mjr = None
        try:
            self._ctx.make_current()
            self._scene = mujoco.MjvScene(model, maxgeom=10_000)
            self._scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] = shadows
            self._option = mujoco.MjvOption()
            self._mjr = mujoco.MjrContext(model, mujoco.mjtFontScale.mjFONTSCALE_150)
            mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN, self._mjr)
        except Exception:
            self.close()
            raise
        self._rect = mujoco.MjrRect(0, 0, width, height)
        self._pixels = np.empty((height, width, 3), np.uint8)

    def render(self, model: mujoco.MjModel, data: mujoco.MjData, camera: mujoco.MjvCamera) -> np.ndarray:
        self._ctx.make_current()
        mujoco.mjv_updateScene(model, data, self._option, None, camera, mujoco.mjtCatBit.mjCAT_ALL, self._scene)
        mujoco.mjr_render(self._rect, self._scene, self._mjr)
        mujoco.mjr_readPixels(self._pixels, None, self._rect, self._mjr)
        return np.flipud(self._pixels).copy()

    def close(self) -> None:
        if self._mjr is not None:
            self._mjr.free()
            self._mjr = None
        if self._ctx is not None:
            self._ctx.free()
            self._ctx = None


def _probe_here(backend: str) -> None:
    """Render one frame of a tiny scene on ``backend`` (run in a subprocess by :func:`_probe`)."""
    model = mujoco.MjModel.from_xml_string(
        "<mujoco><worldbody><light pos='0 0 2'/><geom size='.1'/></worldbody></mujoco>"
    )
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    renderer = OffscreenRenderer(backend, model, 32, 24)
    try:
        frame = renderer.render(model, data, free_camera(model))
    finally:
        renderer.close()
    if frame.max() == 0:
        raise RuntimeError("the test frame is all black")
    sys.stdout.write("ok\n")


def _probe(backend: str) -> str | None:
    """None if ``backend`` renders a test frame in a fresh process, else the reason it does not."""
    library = {"egl": "EGL", "osmesa": "OSMesa"}.get(backend)
    if library and ctypes.util.find_library(library) is None:
        return f"{backend}: lib{library} not found"
    env = {k: v for k, v in os.environ.items() if k != "PYOPENGL_PLATFORM"}
    env["MUJOCO_GL"] = backend
    code = f"from simdist.eval.video import _probe_here; _probe_here({backend!r})"
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"{backend}: {err}"
    if proc.returncode == 0 and "ok" in proc.stdout:
        return None
    lines = [ln.strip() for ln in proc.stderr.splitlines() if ln.strip()]
    return f"{backend}: {lines[-1] if lines else f'exit code {proc.returncode}'}"


def select_backend(refresh: bool = False) -> tuple[str | None, str | None]:
    """(backend, None) for the first working MuJoCo GL backend, or (None, reason) if none works. Cached."""
    global _backend_cache
    if _backend_cache is not None and not refresh:
        return _backend_cache
    requested = os.environ.get("MUJOCO_GL", "").strip().lower()
    if requested in DISABLED:
        result: tuple[str | None, str | None] = (None, f"MUJOCO_GL={requested}")
    else:
        candidates = (
            (requested,) if requested else DEFAULT_CANDIDATES + (("glfw",) if os.environ.get("DISPLAY") else ())
        )
        reasons = []
        result = (None, "")
        for backend in candidates:
            reason = _probe(backend)
            if reason is None:
                result = (backend, None)
                break
            reasons.append(reason)
        if result[0] is None:
            hint = (
                "no OpenGL backend works (on Debian/Ubuntu: apt-get install libegl1 libegl-mesa0 "
                "libgl1-mesa-dri, or libosmesa6)"
            )
            result = (None, f"{hint}; " + "; ".join(reasons))
    log.info("video backend: %s", result[0] or f"none ({result[1]})")
    _backend_cache = result
    return result


# ------------------------------------------------------------------------------------------------ scene and camera
def free_camera(
    model: mujoco.MjModel, lookat=None, distance: float | None = None, azimuth: float = 90.0, elevation: float = -20.0
) -> mujoco.MjvCamera:
    cam = mujoco.MjvCamera()
    cam.type = mujoco.mjtCamera.mjCAMERA_FREE
    cam.lookat[:] = model.stat.center if lookat is None else lookat
    cam.distance = 2.0 * model.stat.extent if distance is None else distance
    cam.azimuth, cam.elevation = azimuth, elevation
    return cam


def scene_of(env) -> tuple[mujoco.MjModel, mujoco.MjData, mujoco.MjvCamera]:
    """The MuJoCo model, data and camera to film ``env`` with (see the module docstring)."""
    if hasattr(env, "render_scene"):
        return env.render_scene()
    batch = getattr(env, "batch", None)
    if batch is not None and hasattr(batch, "models"):  # the quadruped: follow robot 0's trunk from the side
        model, data = batch.models[0], batch.datas[0]
        cam = mujoco.MjvCamera()
        cam.type = mujoco.mjtCamera.mjCAMERA_TRACKING
        cam.trackbodyid = int(getattr(batch, "trunk_id", 1))
        cam.distance, cam.azimuth, cam.elevation = 1.6, 120.0, -20.0
        return model, data, cam
    if hasattr(env, "model") and hasattr(env, "data"):
        return env.model, env.data, free_camera(env.model)
    raise TypeError(f"{type(env).__name__} exposes no MuJoCo scene to film (define render_scene())")


# ------------------------------------------------------------------------------------------------ recording
def write_gif(frames: list[np.ndarray], path: str | Path, frame_period_s: float) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    images = [Image.fromarray(f) for f in frames]
    # one shared adaptive palette keeps the file small and the colours stable between frames
    palette = images[0].quantize(colors=128, method=Image.Quantize.MEDIANCUT)
    quantized = [im.quantize(palette=palette, dither=Image.Dither.NONE) for im in images]
    tmp = path.with_name(path.name + ".tmp")
    quantized[0].save(
        tmp,
        format="GIF",
        save_all=True,
        append_images=quantized[1:],
        loop=0,
        duration=max(20, int(round(frame_period_s * 1000))),
        optimize=True,
    )
    os.replace(tmp, path)
    return path


def record_episode(
    task,
    env,
    agent,
    initial_condition,
    path: str | Path,
    config: VideoConfig = VideoConfig(),
    seed: int = 0,
    label: str = "",
) -> VideoResult:
    """Run ``agent`` in ``env`` from ``initial_condition`` for up to ``config.max_seconds`` of robot time and
    write the frames to the GIF ``path``. Never raises for a rendering problem (the result then has ``error``
    and no ``path``); errors of the agent or the env propagate."""
    backend, reason = select_backend()
    if backend is None:
        return VideoResult(label, None, error=reason)
    period = task.spec.control_period_s
    stride = max(1, math.ceil(1.0 / (config.fps * period) - 1e-9))
    max_steps = min(task.spec.episode_steps, int(round(config.max_seconds / period)))
    obs, info = env.reset(seed=seed, options={"initial_condition": initial_condition})
    agent.reset()
    infos, ended, steps, frames, renderer = [], False, 0, [], None

    def unavailable(err: Exception) -> VideoResult:
        log.warning("video unavailable (%s): %s", backend, err)
        return VideoResult(label, None, error=f"{backend}: {type(err).__name__}: {err}", backend=backend)

    try:
        model, data, camera = scene_of(env)
        renderer = OffscreenRenderer(backend, model, config.width, config.height, config.shadows)
        frames.append(renderer.render(model, data, camera))
    except Exception as err:  # noqa: BLE001 -- any rendering failure only costs the video
        if renderer is not None:
            renderer.close()
        return unavailable(err)
    render_error = None
    try:
        for steps in range(1, max_steps + 1):
            obs, _, terminated, truncated, info = env.step(np.asarray(agent.act(obs), np.float32))
            infos.append(info)
            ended = terminated or truncated or steps >= task.spec.episode_steps
            if steps % stride == 0 or terminated or truncated or steps == max_steps:
                try:
                    frames.append(renderer.render(*scene_of(env)))
                except Exception as err:  # noqa: BLE001
                    render_error = err
                    break
            if terminated or truncated:
                break
    finally:
        renderer.close()
    if render_error is not None:
        return unavailable(render_error)
    try:
        gif = write_gif(frames, path, stride * period)
    except Exception as err:  # noqa: BLE001
        return unavailable(err)
    log.info("wrote %s (%d frames, %.1f s of robot time)", gif, len(frames), steps * period)
    success = bool(task.episode_metrics(infos).get("success", 0.0)) if ended else None
    return VideoResult(
        label, str(gif), frames=len(frames), robot_seconds=steps * period, episode_success=success, backend=backend
    )


def record_stage(
    task,
    domain: str,
    model_dir: str | Path,
    mppi_config,
    grid: str,
    out: str | Path,
    name: str,
    label: str,
    config: VideoConfig = VideoConfig(),
    seed: int = 0,
) -> VideoResult:
    """One video of the MPPI agent of ``model_dir`` in ``domain``, from the grid's first evaluation initial
    condition, as ``out/videos/<name>.gif``. A finished video is reused on a rerun (``<name>.json``)."""
    out = Path(out)
    meta = out / "videos" / f"{name}.json"
    if meta.exists():
        return VideoResult(**json.loads(meta.read_text()))
    ic = task.initial_conditions(grid, 1, seed=seed)[0]
    agent = MPPIAgent(load_model(model_dir), mppi_config)
    result = record_episode(
        task,
        task.make_env(domain, seed=seed),
        agent,
        ic,
        out / "videos" / f"{name}.gif",
        config,
        seed=seed,
        label=label,
    )
    if result.path is not None:
        result.path = str(Path(result.path).relative_to(out))
        atomic_write_text(meta, json.dumps(asdict(result), indent=2))
    return result


def record_run_videos(
    task,
    out: str | Path,
    pretrained: str | Path,
    adapt_dir: str | Path,
    rounds: int,
    grid: str,
    mppi_config,
    config: VideoConfig = VideoConfig(),
) -> list[dict]:
    """The videos of `simdist run`: the pretrained model in sim (zero shot), then the model of each adaptation
    round j = 0 … ``rounds`` in real, all from ``grid``'s first evaluation initial condition."""
    stages = [("sim_zero_shot", "sim", Path(pretrained), "sim, pretrained model (zero shot)")]
    for j in range(rounds + 1):
        label = f"real, round {j} " + ("(zero shot)" if j == 0 else f"(after {j} finetuning round{'s' * (j > 1)})")
        stages.append((f"real_round_{j:02d}", "real", round_model_dir(Path(adapt_dir), j, pretrained, False), label))
    backend, reason = select_backend()
    if backend is None:
        return [asdict(VideoResult(label, None, error=reason)) for *_, label in stages]
    return [
        asdict(record_stage(task, domain, model_dir, mppi_config, grid, out, name, label, config))
        for name, domain, model_dir, label in stages
    ]
