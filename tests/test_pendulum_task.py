import json

import numpy as np
import pytest

from simdist.data.generate import GenerationConfig, NoiseWindows
from simdist.tasks import get_task, task_names
from simdist.tasks.pendulum.physics import REAL, SIM


def test_registry_lists_valid_names():
    assert "pendulum" in task_names()
    with pytest.raises(KeyError, match="valid tasks"):
        get_task("walker")


def test_initial_conditions_are_deterministic_per_seed():
    task = get_task("pendulum")
    assert task.initial_conditions("default", 5, seed=3) == task.initial_conditions("default", 5, seed=3)
    assert task.initial_conditions("default", 5, seed=3) != task.initial_conditions("default", 5, seed=4)
    with pytest.raises(KeyError, match="valid grids"):
        task.initial_conditions("wide", 5)


def test_real_domain_hides_privileged_state_and_dense_reward():
    task = get_task("pendulum")
    env = task.make_env("real", seed=0)
    obs, info = env.reset(seed=0)
    assert set(obs) == {"proprio"}
    task.spec.check_obs(obs)
    obs, reward, _, _, info = env.step(np.zeros(1))
    assert "privileged" not in info and "dense_reward" not in info and reward in (0.0, 1.0)
    sim = task.make_env("sim", seed=0)
    _, info = sim.reset(seed=0)
    assert info["privileged"].shape == (6,)


def test_physics_overrides_from_dict_and_file(tmp_path):
    task = get_task("pendulum")
    env = task.make_env("real", {"mass": 2.0})
    assert env.physics.mass == 2.0 and env.physics.damping == REAL.damping
    path = tmp_path / "phys.json"
    path.write_text(json.dumps({"damping": 0.5, "mass_scale_range": [1.0, 1.0]}))
    env = task.make_env("sim", str(path))
    assert env.physics.damping == 0.5 and env.physics.mass_scale_range == (1.0, 1.0)
    with pytest.raises(KeyError, match="valid names"):
        task.make_env("sim", {"masss": 1.0})
    with pytest.raises(ValueError, match="valid domains"):
        task.make_env("mars")
    assert REAL.max_torque > SIM.max_torque * SIM.torque_scale_range[1]  # outside the randomisation range
    assert REAL.actuator_delay_s > 0 == SIM.actuator_delay_s  # latency the simulator does not model


def test_bad_actions_are_rejected():
    env = get_task("pendulum").make_env("sim")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="finite"):
        env.step(np.array([np.nan]))


def test_expert_beats_suboptimal_policies_in_sim():
    from simdist.rollout import PrivilegedAgent, rollout

    task = get_task("pendulum")
    env = task.make_env("sim", seed=0)
    ics = task.initial_conditions("default", 6, seed=0)
    expert = rollout(task, env, PrivilegedAgent(task.expert(), env), ics).summary(0.1)["success_rate"]
    worst = min(
        rollout(task, env, PrivilegedAgent(p, env), ics).summary(0.1)["success_rate"]
        for p in task.suboptimal_policies()
    )
    assert expert >= 0.8 and worst <= 0.2


def test_noise_windows_alternate_within_bounds():
    cfg = GenerationConfig(noise_on_steps=(1, 5), noise_off_steps=(5, 10), start_noised_prob=0.0)
    windows = NoiseWindows(cfg, action_dim=2, rng=np.random.default_rng(0))
    flags = [windows.step() for _ in range(2000)]
    runs, current, length = [], flags[0], 0
    for f in flags:
        if f == current:
            length += 1
        else:
            runs.append((current, length))
            current, length = f, 1
    on = [n for f, n in runs if f]
    off = [n for f, n in runs[1:] if not f]
    assert on and min(on) >= 1 and max(on) <= 5 and min(off) >= 5 and max(off) <= 10
    assert (0.05 <= windows.std).all() and (windows.std <= 0.5).all()


def test_generated_dataset_has_labels_and_expert_share(pendulum_data):
    from simdist.data.episodes import load_episodes

    info, episodes = load_episodes(pendulum_data)
    stats = json.loads((pendulum_data / "stats.json").read_text())
    assert info.domain == "sim" and stats["episodes"] == len(episodes) == 24
    assert 0.05 < stats["expert_action_share"] < 0.8
    for e in episodes:
        assert e.value is not None and e.reward is not None and e.expert is not None
        if e.source_policy != "expert":
            assert not e.expert.any()  # only the uncorrupted expert's actions are flagged
