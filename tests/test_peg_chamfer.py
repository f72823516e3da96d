"""The peg hole's lead-in chamfer is a physics parameter: 0 builds the sharp-edged fixture, a positive value (1 mm by
default) bevels the mouth at 45° while the top stays flat beyond it, and out-of-range values are refused."""

import mujoco
import numpy as np
import pytest

from simdist.tasks import get_task
from simdist.tasks.peg_insertion.model import FIXTURE_BODY, SCENE, build_model, build_xml
from simdist.tasks.peg_insertion.physics import PegPhysics


def surface_height(model: mujoco.MjModel, xy: tuple[float, float]) -> float:
    """Height of the fixture's surface under fixture-frame point ``xy`` (a ray cast straight down)."""
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    origin = data.body(FIXTURE_BODY).xpos + np.array([xy[0], xy[1], 0.2])
    geom = np.zeros(1, np.int32)
    dist = mujoco.mj_ray(model, data, origin, np.array([0.0, 0.0, -1.0]), None, 1, -1, geom)
    return float(origin[2] - dist - data.body(FIXTURE_BODY).xpos[2])


def test_the_default_fixture_has_a_1_mm_chamfer_and_zero_builds_none():
    assert PegPhysics().hole_chamfer_m == 0.001 and "bevel" in build_xml(PegPhysics())
    assert "bevel" not in build_xml(PegPhysics(hole_chamfer_m=0.0))


def test_a_chamfer_bevels_the_mouth_at_45_degrees():
    c = 0.003
    model = build_model(PegPhysics(hole_chamfer_m=c))
    edge = (SCENE.peg_side + PegPhysics().hole_clearance_m) / 2
    top = SCENE.fixture_height
    for side in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        for inset, expected in ((0.25 * c, top - 0.75 * c), (0.75 * c, top - 0.25 * c), (3 * c, top)):
            xy = (side[0] * (edge + inset), side[1] * (edge + inset))
            assert surface_height(model, xy) == pytest.approx(expected, abs=1e-5), (side, inset)
    beside = (edge + 0.5 * c, edge + 4 * c)  # beyond the mouth's corner the top is flat
    assert surface_height(model, beside) == pytest.approx(top, abs=1e-5)


def test_a_chamfer_out_of_range_is_refused():
    task = get_task("peg-insertion")
    for value, message in ((-0.001, "must be >= 0 and <= 0.01 (m)"), (0.02, "must be >= 0 and <= 0.01 (m)")):
        with pytest.raises(
            ValueError, match=f"hole_chamfer_m = {value:g}: " + message.replace("(", r"\(").replace(")", r"\)")
        ):
            task.make_env("sim", {"hole_chamfer_m": value})
