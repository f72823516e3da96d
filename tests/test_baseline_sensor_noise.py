"""The baselines' sensor-noise augmentation (like SimDist's) and `simdist compare --baseline-set`."""

import pytest
import torch

from simdist.baselines.bc import BCConfig, BCLearner
from simdist.baselines.common import spec_of
from simdist.baselines.run import _baseline_overrides
from simdist.tasks import get_task


def test_bc_adds_the_tasks_sensor_noise_in_raw_units():
    spec = spec_of(get_task("foam").spec)
    assert spec.sensor_noise_std["proprio"][21] == 0.75  # joint velocities, the authors' Go2 std
    bc = BCLearner(spec, BCConfig.preset("cpu", sensor_noise_scale=1.0))
    obs = {"proprio": torch.zeros(20_000, 35), "height": torch.zeros(20_000, 21, 15), "command": torch.ones(20_000, 3)}
    noised = bc.noised(obs)
    assert torch.allclose(noised["proprio"].std(0), torch.tensor(spec.sensor_noise_std["proprio"]), rtol=0.05)
    assert abs(float(noised["height"].std()) - 0.02) < 0.001
    assert torch.equal(noised["command"], obs["command"])  # commands are not sensed
    assert BCLearner(spec, BCConfig.preset("cpu")).noised(obs) is obs  # off by default


def test_bc_sensor_noise_needs_a_task_that_documents_it():
    bc = BCLearner(spec_of(get_task("pendulum").spec), BCConfig.preset("cpu", sensor_noise_scale=1.0))
    with pytest.raises(ValueError, match="documents no sensor noise"):
        bc.noised({"proprio": torch.zeros(2, 3)})


def test_baseline_set_parses_values_and_rejects_unknown_fields():
    assert _baseline_overrides(["sensor_noise_scale=1", "steps=500"]) == {"sensor_noise_scale": 1, "steps": 500}
    with pytest.raises(KeyError, match="no baseline config has a field 'sensr'"):
        _baseline_overrides(["sensr=1"])
    with pytest.raises(ValueError, match="FIELD=VALUE"):
        _baseline_overrides(["sensor_noise_scale"])


def test_seed_lists():
    from simdist.baselines.run import _seeds

    assert _seeds("3") == [0, 1, 2] and _seeds("0,4") == [0, 4] and _seeds("2,") == [2]
