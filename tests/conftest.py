"""Shared tiny fixtures: a small dataset of the built-in pendulum task and a pretrained tiny model."""

import sys

import pytest
import torch

from simdist.config import TrainConfig, model_preset, replace
from simdist.tasks import registry

torch.set_num_threads(1)


@pytest.fixture(scope="session")
def pendulum_data(tmp_path_factory):
    from simdist.data.generate import generate
    from simdist.tasks import get_task

    out = tmp_path_factory.mktemp("pendulum_data")
    generate(get_task("pendulum"), out, episodes=24, workers=1, seed=0, progress=False)
    return out


@pytest.fixture(scope="session")
def tiny_cfg():
    return replace(model_preset("cpu"), latent_dim=16, ffn_dim=32, proprio_hidden=(32,), latent_hidden=(32,))


@pytest.fixture(scope="session")
def pretrained(tmp_path_factory, pendulum_data, tiny_cfg):
    from simdist.training.train import pretrain

    out = tmp_path_factory.mktemp("pretrained")
    cfg = TrainConfig(steps=60, batch_size=32, warmup_steps=10, val_every=30, checkpoint_every=30, lr=1e-3)
    pretrain(pendulum_data, out, tiny_cfg, cfg, device=torch.device("cpu"), progress=False)
    return out


@pytest.fixture
def fresh_registry(monkeypatch):
    """A registry that loads its plugins again, restored afterwards with the built-in tasks intact."""
    registry.task_names()  # the built-ins registered in the real registry first
    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    monkeypatch.setattr(registry, "_BUILTINS_LOADED", False)
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.startswith("simdist_task_file_"):
            del sys.modules[name]
