import numpy as np
import pytest
import torch

from simdist.data.episodes import DatasetError, DatasetInfo, Episode, create_dataset, load_episodes, write_episodes
from simdist.data.windows import WindowDataset

INFO = DatasetInfo(task="toy", domain="sim", control_period_s=0.1, obs_shapes={"proprio": (2,)}, action_dim=1)


def make_episode(L: int, offset: float, labels: bool = True) -> Episode:
    t = np.arange(L, dtype=np.float32) + offset
    return Episode(
        obs={"proprio": np.stack([t, -t], 1)},
        action=t[:, None] * 10,
        reward=t * 100 if labels else None,
        value=t * 1000 if labels else None,
        expert=np.ones(L, bool) if labels else None,
        source_policy="expert",
    )


def test_round_trip_and_tmp_files_ignored(tmp_path):
    create_dataset(tmp_path, INFO)
    write_episodes(tmp_path, [make_episode(8, 0), make_episode(6, 100)], name="a")
    (tmp_path / "episodes" / "b.h5.tmp").write_bytes(b"half-written by a crashed process")
    info, eps = load_episodes(tmp_path)
    assert info.task == "toy" and [len(e) for e in eps] == [8, 6]
    np.testing.assert_array_equal(eps[1].obs["proprio"][:, 0], np.arange(6) + 100)
    with pytest.raises(DatasetError, match="refusing to overwrite"):
        write_episodes(tmp_path, [make_episode(3, 0)], name="a")


def test_truncated_file_gives_clear_error_and_can_be_skipped(tmp_path):
    create_dataset(tmp_path, INFO)
    good = write_episodes(tmp_path, [make_episode(8, 0)], name="good")
    bad = tmp_path / "episodes" / "bad.h5"
    bad.write_bytes(good.read_bytes()[:300])
    with pytest.raises(DatasetError, match="bad.h5"):
        load_episodes(tmp_path)
    _, eps = load_episodes(tmp_path, skip_corrupt=True)
    assert len(eps) == 1


@pytest.mark.parametrize(
    "broken, message",
    [
        (lambda e: e.obs.pop("proprio"), "missing observation group"),
        (lambda e: e.obs.__setitem__("proprio", np.zeros((8, 3), np.float32)), "shape"),
        (lambda e: e.action.__setitem__((2, 0), np.nan), "NaN"),
    ],
)
def test_malformed_episode_is_rejected_and_nothing_written(tmp_path, broken, message):
    create_dataset(tmp_path, INFO)
    ep = make_episode(8, 0)
    broken(ep)
    with pytest.raises(DatasetError, match=message):
        write_episodes(tmp_path, [ep])
    assert list((tmp_path / "episodes").iterdir()) == []


def test_missing_dataset_json(tmp_path):
    with pytest.raises(DatasetError, match="dataset.json"):
        load_episodes(tmp_path)


def test_windows_never_cross_episodes_and_pad_history():
    eps = [make_episode(8, 0), make_episode(6, 100)]
    data = WindowDataset(INFO, eps, history=3, horizon=2)
    assert len(data) == (8 - 2) + (6 - 2)
    b = data.batch(np.arange(len(data)))
    fut = b["future_obs"]["proprio"][:, :, 0]
    cur = b["obs"]["proprio"][:, 0]
    # every future observation comes from the same episode, in order
    assert ((fut - cur[:, None]) == np.array([1.0, 2.0])).all()
    # window at the first step of episode 2: history padded with its first obs and zero actions
    first = int(np.flatnonzero(cur.numpy() == 100)[0])
    assert (b["hist_proprio"][first, :, 0] == 100).all()
    assert (b["hist_action"][first] == 0).all()
    # labels are aligned: rewards r_t.., values v_{t+1}.. (critic at the state after each action)
    assert b["rewards"][first].tolist() == [10000.0, 10100.0]
    assert b["values"][first].tolist() == [101000.0, 102000.0]


def test_real_data_without_labels_is_accepted():
    data = WindowDataset(INFO, [make_episode(8, 0, labels=False)], history=2, horizon=2)
    b = data.batch(np.arange(len(data)))
    assert (b["labelled"] == 0).all()
    assert "reward" not in data.statistics()


def test_success_filtered_bc_drops_only_the_failed_episodes_expert_flags():
    import dataclasses

    eps = [dataclasses.replace(make_episode(8, 100 * i), success=i != 1) for i in range(3)]
    data = WindowDataset(INFO, eps, history=2, horizon=2)
    assert data.bc_labelled_steps.all()
    data.keep_bc_labels_of_successes()
    b = data.batch(np.arange(len(data)))
    failed = data.window_episode == 1
    assert (b["bc_labelled"][failed] == 0).all() and (b["bc_labelled"][~failed] == 1).all()
    assert (b["labelled"] == 1).all()  # reward and value keep every episode


def test_streamed_directory_equals_the_in_memory_windows(tmp_path):
    """WindowDataset.from_dir fills preallocated arrays file by file; it must hold exactly what building from
    the loaded episodes holds (short episodes dropped, labelled and unlabelled episodes mixed)."""
    import dataclasses

    create_dataset(tmp_path, INFO)
    eps = [
        make_episode(8, 0),
        dataclasses.replace(make_episode(6, 100, labels=False), success=True),
        make_episode(2, 200),
        make_episode(5, 300),
    ]
    write_episodes(tmp_path, eps[:1], name="a")
    write_episodes(tmp_path, eps[1:2], name="b")
    write_episodes(tmp_path, eps[2:], name="c")
    streamed = WindowDataset.from_dir(tmp_path, history=2, horizon=2)
    ref = WindowDataset(INFO, eps, history=2, horizon=2)
    assert 0 < streamed.labelled_steps.sum() < len(streamed.labelled_steps)
    assert streamed.n_episodes == ref.n_episodes == 3 and len(streamed) == len(ref)
    ids = np.arange(len(ref))
    for key, value in ref.batch(ids).items():
        got = streamed.batch(ids)[key]
        for g in value if isinstance(value, dict) else [None]:
            np.testing.assert_array_equal(got[g] if g else got, value[g] if g else value, err_msg=key)
    np.testing.assert_array_equal(streamed.step_success, ref.step_success)
    with pytest.raises(DatasetError, match="longer than the horizon"):
        WindowDataset.from_dir(tmp_path, history=2, horizon=8)


def test_dagger_labels_are_bc_targets_while_history_and_dynamics_see_the_executed_actions(tmp_path):
    import dataclasses

    create_dataset(tmp_path, INFO)
    dagger = make_episode(8, 0)
    dagger.expert_action = -dagger.action  # the expert would have done otherwise
    plain = make_episode(6, 100)
    write_episodes(tmp_path, [plain, dagger], name="mixed")
    _, (plain_back, dagger_back) = load_episodes(tmp_path)
    np.testing.assert_array_equal(dagger_back.expert_action, -dagger.action)
    np.testing.assert_array_equal(plain_back.expert_action, plain.action)  # its own actions are its targets
    for data in (
        WindowDataset.from_dir(tmp_path, history=2, horizon=2),
        WindowDataset(INFO, [plain, dagger], history=2, horizon=2),
    ):
        b = data.batch(np.arange(len(data)))
        late = b["obs"]["proprio"][:, 0] < 50  # windows of the DAgger episode, past its first step
        assert torch.equal(b["bc_actions"][late], -b["actions"][late])
        assert torch.equal(b["bc_actions"][~late], b["actions"][~late])
        assert (b["hist_action"][late] >= 0).all()  # the history holds what was executed
    with pytest.raises(DatasetError, match="expert flags"):
        write_episodes(tmp_path, [dataclasses.replace(dagger, expert=None)])


def test_split_is_by_episode():
    eps = [make_episode(10, 100 * i) for i in range(10)]
    data = WindowDataset(INFO, eps, history=2, horizon=2)
    train, val = data.split(0.2, seed=0)
    assert set(data.window_episode[train]).isdisjoint(data.window_episode[val])
    assert len(set(data.window_episode[val])) == 2


def test_merge_links_every_file_and_refuses_incompatible_or_existing(tmp_path):
    from dataclasses import replace as dc_replace

    from simdist.data.episodes import merge_datasets

    for name, offset in (("a", 0), ("b", 50)):
        create_dataset(tmp_path / name, INFO)
        write_episodes(tmp_path / name, [make_episode(5, offset)], name="e0")  # same file name in both
    merge_datasets(tmp_path / "m", [tmp_path / "a", tmp_path / "b"])
    _, eps = load_episodes(tmp_path / "m")
    assert sorted(float(e.obs["proprio"][0, 0]) for e in eps) == [0.0, 50.0]
    assert all((tmp_path / "m" / "episodes").iterdir())
    with pytest.raises(DatasetError, match="already holds"):
        merge_datasets(tmp_path / "m", [tmp_path / "a"])
    create_dataset(tmp_path / "c", dc_replace(INFO, obs_shapes={"proprio": (3,)}))
    with pytest.raises(DatasetError, match="does not match"):
        merge_datasets(tmp_path / "n", [tmp_path / "a", tmp_path / "c"])
    assert not (tmp_path / "n").exists()  # nothing written for a refused merge


def test_window_statistics_in_chunks_match_a_float64_pass(monkeypatch):
    import simdist.data.windows as windows

    rng = np.random.default_rng(0)
    info = DatasetInfo(task="t", domain="sim", control_period_s=0.1, obs_shapes={"proprio": (3,)}, action_dim=2)
    eps = [
        Episode(
            obs={"proprio": (rng.normal(size=(40, 3)) * [1, 10, 0.01] + 5).astype(np.float32)},
            action=rng.normal(size=(40, 2)).astype(np.float32),
        )
        for _ in range(3)
    ]
    monkeypatch.setattr(windows, "STATS_CHUNK", 7)  # several chunks, the last one partial
    st = windows.WindowDataset(info, eps, history=2, horizon=3).statistics()
    ref = np.concatenate([e.obs["proprio"] for e in eps]).astype(np.float64)
    np.testing.assert_allclose(st["proprio"].mean, ref.mean(0), rtol=1e-6)
    np.testing.assert_allclose(st["proprio"].std, ref.std(0), rtol=1e-4)


def test_episode_files_order_is_by_name_not_modification_time(tmp_path):
    import os

    from simdist.data.episodes import episode_files

    info = DatasetInfo(task="t", domain="sim", control_period_s=0.1, obs_shapes={"proprio": (2,)}, action_dim=1)
    create_dataset(tmp_path, info)
    ep = Episode(obs={"proprio": np.zeros((3, 2), np.float32)}, action=np.zeros((3, 1), np.float32))
    for name in ("s0_w1_00000", "s0_w0_00000", "s0_w0_00001"):  # parallel workers finish in any order
        write_episodes(tmp_path, [ep], name=name)
    unnamed = [write_episodes(tmp_path, [ep]) for _ in range(3)]  # e.g. a robot process without names
    for k, path in enumerate(episode_files(tmp_path)):  # a copy or a slow worker reorders modification times
        os.utime(path, ns=(10**18 - k, 10**18 - k))
    names = [p.name for p in episode_files(tmp_path)]
    assert names[:3] == [p.name for p in unnamed]  # unnamed writes sort first, in write order
    assert names[3:] == ["s0_w0_00000.h5", "s0_w0_00001.h5", "s0_w1_00000.h5"]


def test_tail_windows_start_at_every_step_and_mask_past_the_episode_end():
    eps = [make_episode(5, 0), make_episode(2, 100)]  # the second is shorter than the horizon: kept
    data = WindowDataset(INFO, eps, history=2, horizon=3, tail_windows=True)
    assert len(data) == 5 + 2 and data.n_episodes == 2
    b = data.batch(np.arange(len(data)))
    cur = b["obs"]["proprio"][:, 0]
    assert cur.tolist() == [0, 1, 2, 3, 4, 100, 101]
    # o_{t+1..t+3}: the episode's last observation repeats past its end, and future_valid says which exist
    assert b["future_obs"]["proprio"][3, :, 0].tolist() == [4, 4, 4]
    assert b["future_valid"].tolist() == [[1, 1, 1], [1, 1, 1], [1, 1, 0], [1, 0, 0], [0, 0, 0], [1, 0, 0], [0, 0, 0]]
    # BC targets exist for a_t..a_{e-1}: the expert flags stop at the end, so the cumulative BC mask does too
    assert b["expert"].tolist() == [[1, 1, 1], [1, 1, 1], [1, 1, 1], [1, 1, 0], [1, 0, 0], [1, 1, 0], [1, 0, 0]]
    # reward and value only for complete windows (their heads attend over the whole predicted trajectory)
    assert b["labelled"].tolist() == [1, 1, 0, 0, 0, 0, 0]
    assert (b["bc_labelled"] == 1).all()
    # the complete windows are exactly the default dataset's
    full = WindowDataset(INFO, eps, history=2, horizon=3).batch(np.arange(2))
    for key in ("actions", "rewards", "values", "expert", "hist_action"):
        np.testing.assert_array_equal(b[key][:2], full[key], err_msg=key)
    assert "future_valid" not in full


def test_tail_windows_equal_a_dataset_padded_with_unlabelled_repeats_of_the_last_step():
    """A Foam benchmark (docs/tasks/foam.md) padded each DAgger episode with T unlabelled copies of its last step;
    tail windows give the BC term the same windows without touching the data."""
    import dataclasses

    T = 3
    ep = make_episode(6, 0)
    ep.expert_action = -ep.action
    pad = lambda a: np.concatenate([a, np.repeat(a[-1:], T, axis=0)])  # noqa: E731
    padded = dataclasses.replace(
        ep,
        obs={"proprio": pad(ep.obs["proprio"])},
        action=pad(ep.action),
        reward=pad(ep.reward),
        value=pad(ep.value),
        expert_action=pad(ep.expert_action),
        expert=np.concatenate([ep.expert, np.zeros(T, bool)]),
    )
    tail = WindowDataset(INFO, [ep], history=2, horizon=T, tail_windows=True)
    ref = WindowDataset(INFO, [padded], history=2, horizon=T)
    assert len(tail) == len(ref) == 6
    a, b = tail.batch(np.arange(6)), ref.batch(np.arange(6))
    for key in ("obs", "hist_proprio", "hist_action", "actions", "expert", "bc_actions", "bc_labelled"):
        got, want = (a[key]["proprio"], b[key]["proprio"]) if key == "obs" else (a[key], b[key])
        np.testing.assert_array_equal(got, want, err_msg=key)


def test_tail_windows_stream_from_a_directory_like_in_memory(tmp_path):
    create_dataset(tmp_path, INFO)
    eps = [make_episode(4, 0), make_episode(1, 100)]
    write_episodes(tmp_path, eps)
    streamed = WindowDataset.from_dir(tmp_path, history=2, horizon=3, tail_windows=True)
    ref = WindowDataset(INFO, eps, history=2, horizon=3, tail_windows=True)
    assert len(streamed) == len(ref) == 5
    np.testing.assert_array_equal(streamed.batch(np.arange(5))["future_valid"], ref.batch(np.arange(5))["future_valid"])
    with pytest.raises(DatasetError, match="longer than the horizon"):
        WindowDataset.from_dir(tmp_path, history=2, horizon=4)


def test_generation_worker_whose_parent_is_gone_writes_nothing(tmp_path):
    """A `simdist generate` killed by a signal cannot stop its workers: each one stops on its own before the next
    episode, so no orphan keeps writing into a folder the user may already be regenerating."""
    import os

    from simdist.data.generate import _worker, generation_preset
    from simdist.tasks import get_task

    class Count:
        n = 0

        def put(self, k):
            Count.n += k

    spec, cfg = get_task("pendulum").spec, generation_preset("manipulation")
    create_dataset(
        tmp_path,
        DatasetInfo(
            task="pendulum",
            domain="sim",
            control_period_s=spec.control_period_s,
            obs_shapes=spec.obs_shapes,
            action_dim=spec.action_dim,
        ),
    )
    _worker("pendulum", str(tmp_path), 3, 0, 0, cfg, None, Count(), os.getppid() + 1)
    assert Count.n == 0 and not list((tmp_path / "episodes").glob("*.h5"))
    _worker("pendulum", str(tmp_path), 1, 0, 0, cfg, None, Count(), os.getppid())
    assert Count.n == 1 and len(list((tmp_path / "episodes").glob("*.h5"))) == 1


class _ConstantPolicy:
    def __init__(self, name: str, value: float):
        self.name, self.value = name, value

    def reset(self, rng) -> None:
        pass

    def act(self, privileged):
        return np.array([self.value])


def _constant_policies(task, env):
    return env, _ConstantPolicy("constant_expert", 0.25), [_ConstantPolicy("constant_other", -0.25)]


def test_generation_setup_replaces_the_policies_and_notes_reach_the_dataset(tmp_path):
    from simdist.data.generate import GenerationConfig, generate
    from simdist.tasks import get_task

    cfg = GenerationConfig(expert_prob=0.5, never_noise_prob=1.0)  # no noise: actions are the policies' own
    generate(get_task("pendulum"), tmp_path, 6, cfg=cfg, progress=False, setup=_constant_policies, notes="; custom")
    info, episodes = load_episodes(tmp_path)
    assert info.notes.endswith("; custom")
    assert {e.source_policy for e in episodes} <= {"constant_expert", "constant_other"}
    for e in episodes:
        expected = 0.25 if e.source_policy == "constant_expert" else -0.25
        assert np.all(e.action == np.float32(expected)) and np.all(e.expert == (e.source_policy == "constant_expert"))


def test_episode_value_labels_are_the_critics_value_of_each_steps_state():
    """Alg. 2 labels an episode in one batch where the critic has `values`; the labels are V^e of each step's own
    state, as state-by-state calls give, even where the environment reuses its privileged-state buffer."""
    from simdist.data.generate import GenerationConfig, run_episode
    from simdist.tasks import get_task

    class ReusedBuffer:  # hands out one array, overwritten in place every step
        def __init__(self, env):
            self.env, self.buffer = env, None

        def _shared(self, info):
            if self.buffer is None:
                self.buffer = np.array(info["privileged"], np.float64)
            self.buffer[:] = info["privileged"]
            return {**info, "privileged": self.buffer}

        def reset(self, **kw):
            obs, info = self.env.reset(**kw)
            return obs, self._shared(info)

        def step(self, action):
            obs, reward, terminated, truncated, info = self.env.step(action)
            return obs, reward, terminated, truncated, self._shared(info)

    class PerState:  # the same critic without `values`
        def __init__(self, critic):
            self.value = critic.value

    task = get_task("pendulum")
    critic, cfg = task.critic(), GenerationConfig(never_noise_prob=1.0)
    labels = []
    for c in (critic, PerState(critic)):
        env = ReusedBuffer(task.make_env("sim", None, seed=0))
        episode = run_episode(task, env, task.expert(), True, c, cfg, np.random.default_rng(0))
        labels.append(episode.value)
    assert len(np.unique(labels[0])) > 1  # the states differ, so a reused buffer would show as one repeated value
    np.testing.assert_allclose(labels[0], labels[1], rtol=1e-5, atol=1e-5)


def test_noise_regime_in_seconds_and_action_range_units():
    """The `control` regime means the same time and amplitude at any control rate and action range; a regime in
    steps and action units is unchanged by knowing the task (the quadruped's data stays the same)."""
    import numpy as np

    from simdist.data.generate import NoiseWindows, generation_preset
    from simdist.tasks.base import TaskSpec

    def spec(period: float, high: float) -> TaskSpec:
        return TaskSpec("t", {"proprio": (2,)}, 2, (-high, 0.0), (high, 2 * high), period, 100)

    control = generation_preset("control")
    assert control.window_steps(0.1) == ((1, 5), (10, 30)) and control.window_steps(0.04) == ((2, 12), (25, 75))
    fast, slow = (NoiseWindows(control, 2, np.random.default_rng(0), spec(p, 3.0)) for p in (0.02, 0.2))
    assert fast.windows == ((5, 25), (50, 150)) and slow.windows == ((1, 2), (5, 15))
    wide = NoiseWindows(control, 2, np.random.default_rng(0), spec(0.1, 3.0))
    narrow = NoiseWindows(control, 2, np.random.default_rng(0), spec(0.1, 1.0))
    np.testing.assert_allclose(wide.std, 3 * narrow.std)  # fractions of each action's half-range
    quadruped = generation_preset("quadruped")
    plain, told = (
        NoiseWindows(quadruped, 2, np.random.default_rng(1)),
        NoiseWindows(quadruped, 2, np.random.default_rng(1), spec(0.02, 3.0)),
    )
    assert plain.windows == told.windows == ((1, 49), (25, 499)) and np.array_equal(plain.std, told.std)
    with pytest.raises(ValueError, match="spec"):
        NoiseWindows(control, 2, np.random.default_rng(0))
