"""Resume is replay: an adaptation run interrupted anywhere (SIGINT, SIGTERM, kill -9; while collecting episodes or
while finetuning) and rerun writes the same episode files, finetuned weights and results as an uninterrupted run."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from simdist.config import replace
from simdist.planning.agent import MPPIAgent
from simdist.planning.settings import MPPIConfig
from simdist.rollout import rollout
from simdist.tasks import get_task
from simdist.training.checkpoint import load_model

TINY_MPPI = [
    "--set",
    "mppi.samples=16",
    "--set",
    "mppi.policy_samples=4",
    "--set",
    "mppi.elites=4",
    "--set",
    "mppi.iterations=1",
]


def adapt_argv(out: Path, pretrained, pendulum_data) -> list[str]:
    return [
        "adapt",
        "pendulum",
        "--checkpoint",
        str(pretrained),
        "--rounds",
        "1",
        "--episodes-per-round",
        "3",
        "--finetune-steps",
        "150",
        "--sim-data",
        str(pendulum_data),
        "--out",
        str(out),
        "--quiet",
        "--json",
        *TINY_MPPI,
    ]


def run_files(out: Path) -> dict[str, bytes]:
    """What a run leaves that decides its results: episodes, finetuned weights, results."""
    files = sorted(out.glob("real_data/episodes/*.h5")) + sorted(out.glob("round_*/model/model.safetensors"))
    return {str(p.relative_to(out)): p.read_bytes() for p in files + [out / "adapt_results.json"]}


def test_a_resumed_round_plans_as_an_uninterrupted_one(pretrained):
    """The planner's noise once ran on across episodes, so episode 2 of a resumed round differed."""
    task = get_task("pendulum")
    model = load_model(pretrained)
    # ungated: the tiny model's gate would execute the BC chunk whatever the planner's noise
    mppi = replace(MPPIConfig(), samples=16, policy_samples=4, elites=4, iterations=1, gate_weight=0.0)
    ics = task.initial_conditions("default", 3, seed=0)
    full = rollout(task, task.make_env("real", seed=0), MPPIAgent(model, mppi), ics, seed=(0, 0))
    resumed = rollout(task, task.make_env("real", seed=0), MPPIAgent(model, mppi), ics[2:], seed=(0, 0), first_index=2)
    np.testing.assert_array_equal(resumed.episodes[0].action, full.episodes[2].action)
    other = rollout(
        task,
        task.make_env("real", seed=0),
        MPPIAgent(model, replace(mppi, seed=1)),
        ics[2:],
        seed=(0, 0),
        first_index=2,
    )
    assert not np.array_equal(other.episodes[0].action, full.episodes[2].action)  # the planner seed still counts


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory, pretrained, pendulum_data):
    from simdist.cli import main

    out = tmp_path_factory.mktemp("uninterrupted") / "run"
    assert main(adapt_argv(out, pretrained, pendulum_data)) == 0
    return run_files(out)


def _default_sigint() -> None:
    """Let the run see Ctrl-C even where the test runs from a shell that ignores it (a background job)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for(condition, proc, timeout_s: float = 120.0) -> None:
    deadline = time.time() + timeout_s
    while time.time() < deadline and not condition() and proc.poll() is None:
        time.sleep(0.01)
    assert proc.poll() is None, "the run ended before it could be interrupted"


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["sigint", "sigterm", "kill9"])
def test_interrupted_twice_and_resumed_it_replays_the_uninterrupted_run(
    tmp_path, pretrained, pendulum_data, uninterrupted, sig
):
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "simdist.cli", *adapt_argv(out, pretrained, pendulum_data)]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    episodes = out / "real_data" / "episodes"
    finetune_dir = out / "round_01" / "model"
    stages = [
        lambda: len(list(episodes.glob("r00_e*.h5"))) >= 1,  # mid round 0's episodes
        lambda: finetune_dir.exists(),
    ]  # mid the finetune before round 1
    for stage in stages:
        proc = subprocess.Popen(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True, preexec_fn=_default_sigint
        )
        _wait_for(stage, proc)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == (-9 if sig == signal.SIGKILL else 128 + sig)
        if sig != signal.SIGKILL:  # one line on how to resume, no traceback, no partial file left
            assert "Traceback" not in err
            assert "rerun the same command to resume" in err.strip().splitlines()[-1]
            assert not list(out.rglob("*.tmp"))
    assert not (finetune_dir / "done").exists()  # the second stop did land mid-finetune
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    resumed = run_files(out)
    assert resumed.keys() == uninterrupted.keys()
    differ = [name for name in resumed if resumed[name] != uninterrupted[name]]
    assert not differ, differ
    assert json.loads(resumed["adapt_results.json"]) == json.loads(uninterrupted["adapt_results.json"])
