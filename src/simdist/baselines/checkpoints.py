"""A saved baseline's policy, found by the method its `config.json` names: what `simdist evaluate` deploys and
`simdist dagger` refines when given a baseline's checkpoint directory instead of a SimDist model."""

from __future__ import annotations

import json
from pathlib import Path

import torch

from simdist.baselines.bc import BCLearner
from simdist.baselines.common import CONFIG_FILE, WEIGHTS_FILE
from simdist.baselines.diffusion_policy import DiffusionLearner
from simdist.baselines.iql import IQLLearner
from simdist.baselines.rlpd import SACLearner
from simdist.baselines.sgft import SGFTLearner

POLICY_LEARNERS = {
    "bc": BCLearner,
    "diffusion_policy": DiffusionLearner,
    "iql": IQLLearner,
    "rlpd": SACLearner,
    "sgft": SGFTLearner,
}


def baseline_method(directory: str | Path) -> str | None:
    """The method of the baseline checkpoint in `directory`, or None when it holds none (e.g. a SimDist model)."""
    directory = Path(directory)
    if not (directory / WEIGHTS_FILE).exists() or not (directory / CONFIG_FILE).exists():
        return None
    return json.loads((directory / CONFIG_FILE).read_text()).get("method")


def load_baseline_agent(directory: str | Path, device: torch.device | str = "cpu"):
    """The deterministic policy (no exploration) of the baseline checkpoint in `directory`."""
    method = baseline_method(directory)
    if method not in POLICY_LEARNERS:
        raise ValueError(
            f"{directory} holds no baseline policy checkpoint (method {method!r}); "
            f"baseline policies: {sorted(POLICY_LEARNERS)}"
        )
    return POLICY_LEARNERS[method].load(directory, device).agent(explore=False)
