"""The baselines' sensor-noise augmentation (like SimDist's) and `simdist compare --set baseline.FIELD=VALUE`."""

import pytest
import torch

from simdist.baselines.bc import BCConfig, BCLearner
from simdist.baselines.common import spec_of
from simdist.experiments.compare import baseline_overrides
from simdist.tasks import get_task


def test_bc_trains_on_the_tasks_sensor_noise():
    spec = spec_of(get_task("foam").spec)
    assert spec.sensor_noise_std["proprio"][21] == 0.75  # joint velocities, the authors' Go2 std
    batch = {
        "obs": {"proprio": torch.zeros(8, 35), "height": torch.zeros(8, 21, 15), "command": torch.zeros(8, 3)},
        "action": torch.zeros(8, 12),
    }
    losses = {}
    for scale in (0.0, 1.0):
        torch.manual_seed(0)
        bc = BCLearner(spec, BCConfig.preset("cpu", sensor_noise_scale=scale))
        torch.manual_seed(1)
        losses[scale] = bc.update(batch)["bc_loss"], bc.update(batch)["bc_loss"]
    assert losses[0.0] != losses[1.0]  # the noise reaches the observations the actor sees


def test_bc_sensor_noise_needs_a_task_that_documents_it():
    bc = BCLearner(spec_of(get_task("pendulum").spec), BCConfig.preset("cpu", sensor_noise_scale=1.0))
    with pytest.raises(ValueError, match="documents no sensor noise"):
        bc.update(
            {
                "obs": {"proprio": torch.zeros(2, bc.spec.obs_shapes["proprio"][0])},
                "action": torch.zeros(2, bc.spec.action_dim),
            }
        )


def test_baseline_set_parses_values_and_rejects_unknown_fields():
    # typed by the baseline configs' fields, as every other --set
    got = baseline_overrides(["sensor_noise_scale=1", "steps=500", "hidden=64,64"])
    assert got == {"sensor_noise_scale": 1.0, "steps": 500, "hidden": (64, 64)}
    assert isinstance(got["sensor_noise_scale"], float) and isinstance(got["steps"], int)
    with pytest.raises(KeyError, match="no baseline config has a field 'sensr'"):
        baseline_overrides(["sensr=1"])
    with pytest.raises(ValueError, match="FIELD=VALUE"):
        baseline_overrides(["sensor_noise_scale"])
    with pytest.raises(ValueError, match="steps is int; cannot read 'many'"):
        baseline_overrides(["steps=many"])


def test_seed_lists():
    from simdist.cli.experiment_commands import parse_seeds as _seeds

    assert _seeds("3") == [0, 1, 2] and _seeds("0,4") == [0, 4] and _seeds("2,") == [2]
