"""Rollout videos: frames of the pendulum where offscreen rendering works, and a report that says why there is
no video (and nothing else fails) where it does not."""

import json

import numpy as np
import pytest

from simdist.config import replace
from simdist.eval import video
from simdist.eval.report import write_report
from simdist.planning.settings import mppi_preset
from simdist.rollout import PrivilegedAgent
from simdist.tasks import get_task

SMALL = video.VideoConfig(width=80, height=60, fps=10.0, max_seconds=1.0)


def _backend_or_skip() -> str:
    backend, reason = video.select_backend()
    if backend is None:
        pytest.skip(f"MuJoCo offscreen rendering unavailable here: {reason}")
    return backend


def _fake_results() -> dict:
    row = {
        "round": 0,
        "real_minutes": 0.1,
        "success_rate": 0.5,
        "initial_conditions": [[0.5, 0.0], [-0.4, 0.2]],
        "successes": [True, False],
        "successes_per_minute": 1.0,
    }
    return {"default": {"rounds": [row]}}


def _fake_summary() -> dict:
    return {
        "task": "pendulum",
        "preset": "cpu",
        "zero_shot_success": 0.5,
        "final_success": 0.5,
        "real_minutes": 0.1,
        "sim_success": {"default": 0.5},
        "sim_dataset": {"episodes": 2},
    }


@pytest.fixture
def fresh_backend(monkeypatch):
    """Each test selects the backend again, and leaves no cached choice behind."""
    monkeypatch.setattr(video, "_backend_cache", None)
    yield
    video._backend_cache = None


@pytest.fixture
def no_rendering(monkeypatch, fresh_backend):
    monkeypatch.delenv("MUJOCO_GL", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setattr(video, "_probe", lambda backend: f"{backend}: forced failure for the test")


def test_records_pendulum_frames(tmp_path):
    _backend_or_skip()
    from PIL import Image

    task = get_task("pendulum")
    env = task.make_env("sim", seed=0)
    res = video.record_episode(task, env, PrivilegedAgent(task.expert(), env), (0.8, 0.5), tmp_path / "p.gif", SMALL)
    assert res.error is None and res.path is not None
    assert res.frames == 11  # the reset frame + one per 0.1 s control step for 1 s
    assert res.robot_seconds == pytest.approx(1.0) and res.episode_success is None  # cut before the 4 s episode
    with Image.open(res.path) as gif:
        assert gif.size == (80, 60) and gif.n_frames > 1
        assert gif.info["duration"] >= 100  # real time: one control period per frame (equal frames merge)
        gif.seek(0)
        first = np.asarray(gif.convert("RGB"))
        gif.seek(gif.n_frames - 1)
        last = np.asarray(gif.convert("RGB"))
    assert first.std() > 0 and np.abs(first.astype(int) - last).sum() > 0  # a scene, and the pole moved
    assert (tmp_path / "p.gif").stat().st_size < 100_000


def test_whole_episode_clip_reports_the_task_outcome(tmp_path):
    _backend_or_skip()
    from simdist.rollout import rollout

    task = get_task("pendulum")
    for ic in [(0.8, 0.5), (-0.3, 0.0)]:  # with these seeds the expert succeeds in one, fails in the other
        env = task.make_env("real", seed=0)
        res = video.record_episode(
            task, env, PrivilegedAgent(task.expert(), env), ic, tmp_path / "w.gif", replace(SMALL, max_seconds=10.0)
        )
        env = task.make_env("real", seed=0)
        ref = rollout(task, env, PrivilegedAgent(task.expert(), env), [ic], seed=0).metrics[0]
        assert res.robot_seconds == pytest.approx(4.0) and res.episode_success is bool(ref["success"])


def test_run_videos_in_report_and_reused_on_rerun(tmp_path, pretrained):
    _backend_or_skip()
    task = get_task("pendulum")
    mppi = replace(mppi_preset("cpu"), samples=16, policy_samples=8, elites=8, iterations=1)
    vids = video.record_run_videos(task, tmp_path, pretrained, tmp_path / "adapt_default", 0, "default", mppi, SMALL)
    assert [v["label"] for v in vids] == ["sim, pretrained model (zero shot)", "real, round 0 (zero shot)"]
    assert all(v["error"] is None and (tmp_path / v["path"]).exists() for v in vids)
    write_report(tmp_path, _fake_summary(), _fake_results(), vids, SMALL.max_seconds)
    page = (tmp_path / "report.html").read_text()
    assert '<img src="videos/sim_zero_shot.gif"' in page and '<img src="videos/real_round_00.gif"' in page
    assert "](videos/real_round_00.gif)" in (tmp_path / "report.md").read_text()
    stamp = (tmp_path / "videos" / "sim_zero_shot.gif").stat().st_mtime_ns
    again = video.record_run_videos(task, tmp_path, pretrained, tmp_path / "adapt_default", 0, "default", mppi, SMALL)
    assert again == vids and (tmp_path / "videos" / "sim_zero_shot.gif").stat().st_mtime_ns == stamp


def test_report_degrades_gracefully_without_rendering(tmp_path, pretrained, no_rendering):
    task = get_task("pendulum")
    backend, reason = video.select_backend()
    assert backend is None and "forced failure for the test" in reason and "egl" in reason and "osmesa" in reason
    vids = video.record_run_videos(
        task, tmp_path, pretrained, tmp_path / "adapt_default", 2, "default", mppi_preset("cpu"), SMALL
    )
    assert len(vids) == 4 and all(v["path"] is None and v["error"] == reason for v in vids)
    write_report(tmp_path, _fake_summary(), _fake_results(), vids, SMALL.max_seconds)
    md, page = (tmp_path / "report.md").read_text(), (tmp_path / "report.html").read_text()
    assert md.count("video unavailable: ") == 4 and "forced failure for the test" in md
    assert "video unavailable: " in page and '<img src="videos/' not in page
    assert "learning_curve.png" in page and not (tmp_path / "videos").exists()


def test_renderer_failure_in_process_costs_only_the_video(tmp_path, monkeypatch, fresh_backend):
    """A backend that passed the probe but fails in this process (e.g. a clashing PYOPENGL_PLATFORM)."""
    monkeypatch.setattr(video, "select_backend", lambda refresh=False: ("egl", None))

    class Broken:
        def __init__(self, *args, **kwargs):
            raise RuntimeError("Cannot create an EGL context.")

    monkeypatch.setattr(video, "OffscreenRenderer", Broken)
    task = get_task("pendulum")
    env = task.make_env("sim", seed=0)
    res = video.record_episode(
        task, env, PrivilegedAgent(task.expert(), env), (0.8, 0.5), tmp_path / "p.gif", SMALL, label="sim"
    )
    assert res.path is None and res.error == "egl: RuntimeError: Cannot create an EGL context."
    assert not (tmp_path / "p.gif").exists()


def test_mujoco_gl_disable_turns_videos_off(monkeypatch, fresh_backend):
    monkeypatch.setenv("MUJOCO_GL", "disable")
    monkeypatch.setattr(video, "_probe", lambda backend: pytest.fail("no backend may be probed"))
    assert video.select_backend() == (None, "MUJOCO_GL=disable")


def test_no_video_report_says_so(tmp_path):
    write_report(tmp_path, _fake_summary(), _fake_results(), None)
    assert "Not recorded (`--no-video`)." in (tmp_path / "report.md").read_text()


def test_video_result_json_roundtrip(tmp_path):
    res = video.VideoResult("sim", "videos/a.gif", frames=3, robot_seconds=0.2, episode_success=True, backend="egl")
    path = tmp_path / "a.json"
    path.write_text(json.dumps(video.asdict(res)))
    assert video.VideoResult(**json.loads(path.read_text())) == res


def test_falls_back_to_the_next_backend_that_works(monkeypatch, fresh_backend):
    monkeypatch.delenv("MUJOCO_GL", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    tried = []
    monkeypatch.setattr(video, "_probe", lambda b: tried.append(b) or ("egl: no device" if b == "egl" else None))
    assert video.select_backend() == ("osmesa", None) and tried == ["egl", "osmesa"]
    assert video.select_backend() == ("osmesa", None) and tried == ["egl", "osmesa"]  # cached: probed once
    monkeypatch.setenv("MUJOCO_GL", "egl")  # an explicit choice is the only candidate
    assert video.select_backend(refresh=True)[0] is None and tried[-1] == "egl"


def test_shadows_are_off_unless_asked_for():
    """Software GL draws shadows 7x slower; a video turns them on only through VideoConfig.shadows."""
    backend = _backend_or_skip()
    import mujoco

    assert video.VideoConfig().shadows is False
    model = mujoco.MjModel.from_xml_string("<mujoco><worldbody><geom size='.1'/></worldbody></mujoco>")
    for shadows in (False, True):
        renderer = video.OffscreenRenderer(backend, model, 16, 12, shadows)
        try:
            assert renderer._scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] == shadows
        finally:
            renderer.close()


def test_arm_tasks_are_filmed_close_on_their_fixture():
    """A part millimetres from seated is invisible from across the workspace: the camera looks at the hole."""
    for name in ("peg-insertion", "table-leg"):
        env = get_task(name).make_env("sim", seed=0)
        env.reset(seed=0)
        model, data, cam = video.scene_of(env)
        hole = data.site_xpos[env.hole_site]
        assert np.allclose(cam.lookat[:2], hole[:2]) and cam.distance < 1.0
