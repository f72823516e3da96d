"""The quadruped courses' geometry is physics data: the defaults build the courses of paper §7, and a physics file
changes slope angles, pad count, length, overlap and thickness."""

import re

import numpy as np
import pytest

from simdist.tasks import get_task
from simdist.tasks.quadruped.physics import SIM
from simdist.tasks.quadruped.scenes import COURSES, course_for


def test_the_defaults_build_the_paper_courses():
    slope, foam = COURSES["slippery-slope"], COURSES["foam"]
    assert slope.length_m == 1.82 and [b.slope_deg for b in slope.boxes] == [3.0, 5.7, 0.0]
    assert [b.x for b in slope.boxes[:2]] == [(0.0, 0.76), (0.76, 1.52)]
    assert foam.length_m == 3.0 and [b.name for b in foam.boxes] == ["pad_a", "pad_b_overlap", "pad_b"]
    assert np.allclose([b.x for b in foam.boxes], [(0.0, 1.6), (1.2, 1.6), (1.6, 2.7)])
    assert [b.z_top for b in foam.boxes] == [0.05, 0.10, 0.05]


def test_a_physics_file_reshapes_the_course(tmp_path):
    path = tmp_path / "three_pads.json"
    path.write_text('{"foam_pad_lengths_m": [1.0, 1.0, 1.0], "foam_pad_overlap_m": 0.2, "foam_pad_thickness_m": 0.08}')
    env = get_task("foam").make_env("real", str(path))
    assert env.course.length_m == pytest.approx(2.9) and len(env.course.boxes) == 5
    assert env.course.profile(np.array([0.9, 1.5, 2.5])).tolist() == pytest.approx([0.16, 0.08, 0.08])
    slope = course_for("slippery-slope", SIM.__class__(slope_panel_angles_deg=(2.0, 4.0, 6.0)))
    assert slope.length_m == pytest.approx(2.58) and [b.slope_deg for b in slope.boxes] == [2.0, 4.0, 6.0, 0.0]


def test_impossible_geometry_is_refused_in_one_line():
    task = get_task("foam")
    for overrides, message in [
        ({"foam_pad_overlap_m": 2.0}, "foam_pad_overlap_m = 2: must be < the shortest pad"),
        ({"slope_panel_angles_deg": [45]}, "must be >= 0 and <= 30 (deg)"),
        ({"foam_pad_lengths_m": []}, "need at least one value"),
    ]:
        with pytest.raises(ValueError, match=re.escape(message)):
            task.make_env("sim", overrides)
