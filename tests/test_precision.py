"""bf16 matrix products where the CPU has bf16 matrix units (simdist.precision): the planner's and the trainer's
choice, its fp32 fallback, and the planner's tolerance against the fp32 plan."""

import pytest
import torch

from simdist import precision
from simdist.config import TrainConfig, model_preset, replace
from simdist.model.world_model import ModelSpec, WorldModel
from simdist.planning.mppi import MPPIPlanner
from simdist.planning.settings import MPPIConfig, mppi_preset

# The bf16 planner's plans against the fp32 planner's at the paper's manipulation sampler (docs/benchmarks.md): the
# plan mean within a tenth of a unit of the normalised actions (the initial sampling std is 1; measured up to 0.07),
# the best return within 3 % of its magnitude or 0.03 (the returns of the same candidates: up to 1.9 %).
PLAN_ATOL = 0.1
RETURN_TOL = 0.03

SPEC = ModelSpec({"proprio": (3,)}, action_dim=2, command_dim=1, action_low=(-1.0, -1.0), action_high=(1.0, 1.0))
CFG = replace(mppi_preset("paper-manipulation"), prior_weight=0.5)  # 350 candidates, 64 elites, 3 iterations


def tiny_model() -> WorldModel:
    torch.manual_seed(0)
    return WorldModel(model_preset("cpu"), SPEC).eval()


def contexts(model: WorldModel, n: int):
    gen = torch.Generator().manual_seed(1)
    H = model.cfg.history
    for _ in range(n):
        r = lambda *s: torch.randn(*s, generator=gen)  # noqa: E731
        yield model.planning_context({"proprio": r(1, 3)}, r(1, H, 3), r(1, H, 2), r(1, 1))


def assert_within_tolerance(fast, ref) -> None:
    torch.testing.assert_close(fast.mean, ref.mean, rtol=0.0, atol=PLAN_ATOL)
    assert fast.best_return == pytest.approx(ref.best_return, rel=RETURN_TOL, abs=RETURN_TOL)
    assert fast.fallback == ref.fallback


def test_setting_is_checked_and_auto_follows_the_capability(monkeypatch):
    with pytest.raises(ValueError, match="cpu_bf16"):
        MPPIConfig(cpu_bf16="yes")
    with pytest.raises(ValueError, match="cpu_bf16"):
        TrainConfig(cpu_bf16="bf16")
    for has_units in (True, False):
        monkeypatch.setattr(precision, "cpu_has_bf16_matmul", lambda has_units=has_units: has_units)
        assert precision.use_cpu_bf16("auto", "cpu") is has_units
        assert precision.use_cpu_bf16("on", "cpu") and not precision.use_cpu_bf16("off", "cpu")
    assert not precision.use_cpu_bf16("on", "meta")  # never off the CPU: a GPU's autocast is TrainConfig.amp


@pytest.mark.parametrize("has_units", [False, True])
def test_compiled_planner_uses_bf16_only_with_matrix_units(monkeypatch, has_units):
    """The compiled planner's iteration (run here without inductor, so in seconds) scores in bf16 exactly when the
    capability check says the CPU has bf16 matrix units: without them its plans are the fp32 planner's to float
    rounding, with them they differ, within the stated tolerance."""
    monkeypatch.setattr(precision, "cpu_has_bf16_matmul", lambda: has_units)
    monkeypatch.setattr(torch, "compile", lambda fn, **kwargs: fn)
    model = tiny_model()
    ref, fast = MPPIPlanner(model, CFG), MPPIPlanner(model, replace(CFG, compile=True))
    assert fast._iterate is not None
    differ = False
    for ctx in contexts(model, 3):
        a, b = ref.plan(ctx), fast.plan(ctx)
        if has_units:
            assert_within_tolerance(b, a)
            differ |= not torch.equal(a.mean, b.mean)
        else:
            torch.testing.assert_close(b.mean, a.mean, rtol=1e-5, atol=1e-5)
    assert differ == has_units


@pytest.mark.slow
def test_compiled_bf16_planner_matches_fp32_plans_within_tolerance():
    """Through inductor: the bf16 planner (forced on, emulated where the CPU lacks the units) against the eager
    fp32 planner, over warm-started plans."""
    model = tiny_model()
    ref, fast = MPPIPlanner(model, CFG), MPPIPlanner(model, replace(CFG, compile=True, cpu_bf16="on"))
    assert fast.compile_s > 0.0
    for ctx in contexts(model, 4):
        assert_within_tolerance(fast.plan(ctx), ref.plan(ctx))
