"""DAgger for the BC head (simdist.adaptation.dagger): labels from the privileged expert, only the head trained,
resumable."""

import json

import numpy as np
import pytest
import torch

from simdist.adaptation.dagger import DaggerConfig, dagger
from simdist.data.episodes import episode_files, load_episodes
from simdist.tasks import get_task
from simdist.training import checkpoint as ckpt

TINY = DaggerConfig(
    rounds=2, episodes_per_grid=2, steps=3, sensor_noise_steps=2, batch_size=8, warmup_steps=1, eval_episodes_per_grid=2
)


def test_dagger_labels_with_the_expert_trains_only_the_head_and_resumes(tmp_path, pretrained, pendulum_data):
    task = get_task("pendulum")
    out = tmp_path / "dagger"
    result = dagger(task, pretrained, pendulum_data, out, TINY, device=torch.device("cpu"), progress=False)
    # each round's episodes: driven by the head, every step labelled by the expert, no reward or value
    info, episodes = load_episodes(out / "dagger_data")
    assert info.domain == "sim" and len(episodes) == TINY.rounds * TINY.episodes_per_grid * len(task.grids)
    assert all(e.expert.all() and e.reward is None and e.value is None for e in episodes)
    # the executed actions are the head's (its history at deployment), the BC targets the expert's
    assert all(e.expert_action.shape == e.action.shape for e in episodes)
    assert not all(np.allclose(e.action, e.expert_action) for e in episodes)
    assert [r["driving_head"] for r in result["rounds"]] == [str(pretrained), str(out / "round_01")]
    assert set(result["final_head_sim_success"]) == set(task.grids)  # the output head alone, on fresh episodes
    # the head changed; everything else (encoder, dynamics, reward, value, normaliser) is bit-identical
    before, after = ckpt.load_model(pretrained), ckpt.load_model(result["checkpoint"])
    head = {name for name, _ in before.parameter_group("policy")}
    changed = {k for k, v in before.state_dict().items() if not torch.equal(v, after.state_dict()[k])}
    assert changed and changed <= head
    # the pendulum documents no sensor noise: no noise stage, and the model keeps the checkpoint's setting
    assert not list(out.glob("*sensor_noise*"))
    assert after.cfg.sensor_noise_scale == before.cfg.sensor_noise_scale
    # a rerun collects and trains nothing more; a changed setting is refused before any work
    files = [p.stat().st_mtime_ns for p in episode_files(out / "dagger_data")]
    again = dagger(task, pretrained, pendulum_data, out, TINY, device=torch.device("cpu"), progress=False)
    assert [p.stat().st_mtime_ns for p in episode_files(out / "dagger_data")] == files
    assert again["rounds"] == result["rounds"]
    with pytest.raises(ValueError, match="episodes_per_grid"):
        dagger(
            task,
            pretrained,
            pendulum_data,
            out,
            DaggerConfig(**{**TINY.__dict__, "episodes_per_grid": 3}),
            device=torch.device("cpu"),
            progress=False,
        )


def test_dagger_can_take_round_one_from_another_drivers_labels(tmp_path, pretrained, pendulum_data):
    """--initial-labels: round 1's files are another run's labels (copied once, nothing collected), the head trains
    on them and drives from round 2; a dataset of another task or shape is refused before any work."""
    from simdist.data.episodes import DatasetError, DatasetInfo, create_dataset

    task = get_task("pendulum")
    one = DaggerConfig(**{**TINY.__dict__, "rounds": 1, "sensor_noise_steps": 0, "eval_episodes_per_grid": 0})
    source = tmp_path / "other" / "dagger_data"
    dagger(task, pretrained, pendulum_data, tmp_path / "other", one, device=torch.device("cpu"), progress=False)
    out = tmp_path / "d"
    cfg = DaggerConfig(**{**one.__dict__, "rounds": 2})
    result = dagger(
        task, pretrained, pendulum_data, out, cfg, device=torch.device("cpu"), progress=False, initial_labels=source
    )
    assert result["rounds"][0] == {"round": 1, "initial_labels": str(source)}
    assert result["rounds"][1]["driving_head"] == str(out / "round_01")
    names = [p.name for p in episode_files(out / "dagger_data")]
    assert [n for n in names if n.startswith("r01_")] == [p.name for p in episode_files(source)]
    assert sum(n.startswith("r02_") for n in names) == len(task.grids)
    for a, b in zip(episode_files(source), episode_files(out / "dagger_data")):
        assert a.read_bytes() == b.read_bytes()
    wrong = tmp_path / "wrong"
    create_dataset(
        wrong,
        DatasetInfo(task="other", domain="sim", control_period_s=0.05, obs_shapes={"proprio": (3,)}, action_dim=1),
    )
    with pytest.raises(DatasetError, match="initial labels"):
        dagger(
            task,
            pretrained,
            pendulum_data,
            tmp_path / "e",
            cfg,
            device=torch.device("cpu"),
            progress=False,
            initial_labels=wrong,
        )
    assert not (tmp_path / "e" / "round_01").exists()


@pytest.mark.slow
def test_dagger_command_line(tmp_path, pretrained, pendulum_data, capsys):
    from simdist.cli import main

    argv = [
        "dagger",
        "pendulum",
        "--checkpoint",
        str(pretrained),
        "--sim-data",
        str(pendulum_data),
        "--out",
        str(tmp_path / "d"),
        "--rounds",
        "1",
        "--episodes-per-grid",
        "1",
        "--set",
        "dagger.steps=2",
        "--set",
        "dagger.batch_size=4",
        "--set",
        "dagger.warmup_steps=0",
        "--grid",
        "default",
        "--grid",
        "default",
        "--workers",
        "2",
        "--json",
        "--quiet",
    ]
    assert main(argv) == 0  # two grid files, collected by two worker processes
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["dagger_episodes"] == 2 and len(episode_files(tmp_path / "d" / "dagger_data")) == 2
    assert np.isfinite(result["rounds"][0]["head_sim_success_mean"])
    assert (
        main(argv[:-2] + ["--set", "dagger.rounds=0", "--quiet"]) == 2
    )  # a bad config is a clear error, not a traceback


def test_dagger_warns_when_its_head_does_worse_in_sim_than_the_input_head(
    tmp_path, pretrained, pendulum_data, monkeypatch, caplog
):
    import simdist.adaptation.dagger.run as dagger_module

    monkeypatch.setattr(dagger_module, "evaluate_head", lambda task, *a, **k: {g: -1.0 for g in task.grids})
    cfg = DaggerConfig(**{**TINY.__dict__, "rounds": 1})
    with caplog.at_level("WARNING", logger="simdist.adaptation.dagger"):
        result = dagger(
            get_task("pendulum"),
            pretrained,
            pendulum_data,
            tmp_path / "d",
            cfg,
            device=torch.device("cpu"),
            progress=False,
        )
    assert result["final_head_sim_success_mean"] == -1.0
    assert "worse" in caplog.text and str(pretrained) in caplog.text


def test_dagger_keeps_the_candidate_head_with_the_best_sim_evaluation(tmp_path, pretrained, pendulum_data, monkeypatch):
    import simdist.adaptation.dagger.run as dagger_module

    calls = []

    def fake_evaluation(task, head, cfg, physics, progress):  # the second candidate (seed 1) does better
        calls.append(str(head))
        return {g: 0.9 if str(head).endswith("_c1") else 0.1 for g in task.grids}

    monkeypatch.setattr(dagger_module, "evaluate_head", fake_evaluation)
    cfg = DaggerConfig(**{**TINY.__dict__, "rounds": 1, "candidates": 2})
    run = lambda: dagger(
        get_task("pendulum"),
        pretrained,
        pendulum_data,
        tmp_path / "d",
        cfg,  # noqa: E731
        device=torch.device("cpu"),
        progress=False,
    )
    result = run()
    assert [c["sim_success_mean"] for c in result["candidates"]] == [0.1, 0.9]
    chosen = ckpt.load_model(tmp_path / "d" / "model").state_dict()
    second = ckpt.load_model(tmp_path / "d" / "round_01_c1").state_dict()
    first = ckpt.load_model(tmp_path / "d" / "round_01").state_dict()
    assert all(torch.equal(v, second[k]) for k, v in chosen.items())
    assert not all(torch.equal(v, first[k]) for k, v in chosen.items())  # other training seed, other head
    assert len(calls) == 2
    run()  # resumed: the evaluations are read back, not redone
    assert len(calls) == 2
    with pytest.raises(ValueError, match="eval_episodes_per_grid"):
        DaggerConfig(candidates=2, eval_episodes_per_grid=0)


def _tiny_bc(directory, task, data):
    from simdist.baselines.bc import BCConfig, BCLearner
    from simdist.baselines.common import set_normalizer_stats, spec_of
    from simdist.baselines.replay import TransitionBuffer, observation_stats, sparse_success

    _, episodes = load_episodes(data)
    bc = BCLearner(spec_of(task.spec), BCConfig.preset("cpu", steps=5, batch_size=8))
    set_normalizer_stats([bc.actor], observation_stats(episodes))
    bc.train(TransitionBuffer.from_episodes(episodes, sparse_success, expert_only=True))
    return bc.save(directory)


def test_dagger_refines_the_single_step_bc_baseline(tmp_path, pendulum_data, capsys, caplog):
    from simdist.baselines.bc import BCLearner, dagger_labels, retrain_on_labels
    from simdist.baselines.checkpoints import baseline_method
    from simdist.cli import main

    task = get_task("pendulum")
    start = _tiny_bc(tmp_path / "bc", task, pendulum_data)
    cfg = DaggerConfig(**{**TINY.__dict__, "rounds": 1})
    result = dagger(task, start, pendulum_data, tmp_path / "d", cfg, device=torch.device("cpu"), progress=False)
    assert baseline_method(result["checkpoint"]) == "bc"
    _, episodes = load_episodes(tmp_path / "d" / "dagger_data")
    assert len(episodes) == cfg.episodes_per_grid * len(task.grids)
    assert all(e.expert_action is not None for e in episodes)
    before, after = BCLearner.load(start).actor.state_dict(), BCLearner.load(result["checkpoint"]).actor.state_dict()
    assert any(not torch.equal(v, after[k]) for k, v in before.items())
    stats = [k for k in before if "normalizer" in k]  # the simulation statistics stay those of the input policy
    assert stats and all(torch.equal(before[k], after[k]) for k in stats)
    # the update fits the labels: with no replay, the policy moves towards the expert's actions on its own states
    labels = dagger_labels(episodes)
    error = lambda learner: float(
        (
            learner.actor.mode(labels.batch(np.arange(len(labels)))["obs"])  # noqa: E731
            - learner.actor.to_unit(torch.as_tensor(labels.action))
        )
        .pow(2)
        .mean()
        .detach()
    )
    fitted = retrain_on_labels(
        start,
        labels,
        labels,
        tmp_path / "fit",
        steps=200,
        lr=3e-3,
        lr_end=1e-3,
        batch_size=32,
        replay_fraction=0.0,
        seed=0,
    )
    assert error(fitted) < 0.5 * error(BCLearner.load(start))
    # `simdist evaluate` deploys a baseline's checkpoint as its policy, and refuses to plan with it
    argv = ["evaluate", "pendulum", "--checkpoint", str(result["checkpoint"]), "--trials", "1", "--json", "--quiet"]
    assert main(argv + ["--agent", "policy"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["grids"]
    assert main(argv + ["--agent", "mppi"]) == 2
    assert "no world model to plan with" in caplog.text
    assert main(argv + ["--agent", "policy", "--ensemble-decay", "1"]) == 2
    assert "apply to a world model's agents" in caplog.text


def test_dagger_adds_a_single_step_head_in_round_one(tmp_path, pretrained, pendulum_data):
    """DaggerConfig.step_head_width: round 1 adds an MLP head beside the chunk; round 2 trains it on; only the policy
    group moves. The single-step BC baseline refuses it (it is one already). With tail_windows the head also trains
    on windows that start in each episode's last steps."""
    task = get_task("pendulum")
    cfg = DaggerConfig(**{**TINY.__dict__, "step_head_width": 8, "tail_windows": True})
    result = dagger(task, pretrained, pendulum_data, tmp_path / "d", cfg, device=torch.device("cpu"), progress=False)
    before, after = ckpt.load_model(pretrained), ckpt.load_model(result["checkpoint"])
    round_1 = ckpt.load_model(tmp_path / "d" / "round_01")
    assert before.cfg.policy_step_width == 0 and round_1.cfg.policy_step_width == after.cfg.policy_step_width == 8
    step = [k for k in after.state_dict() if k.startswith("policy.step.")]
    assert step and any(not torch.equal(round_1.state_dict()[k], after.state_dict()[k]) for k in step)
    head = {name for name, _ in after.parameter_group("policy")}
    assert all(torch.equal(v, after.state_dict()[k]) for k, v in before.state_dict().items() if k not in head)
    assert json.loads((tmp_path / "d" / "round_01" / "config.json").read_text())["finetune"]["tail_windows"] is True
    with pytest.raises(ValueError, match="single-step BC baseline"):
        dagger(
            task,
            _tiny_bc(tmp_path / "bc", task, pendulum_data),
            pendulum_data,
            tmp_path / "e",
            cfg,
            device=torch.device("cpu"),
        )
    with pytest.raises(ValueError, match="step_head_width"):
        DaggerConfig(step_head_width=-1)


def test_dagger_refuses_a_baseline_it_cannot_refine(tmp_path, pendulum_data):
    start = _tiny_bc(tmp_path / "bc", get_task("pendulum"), pendulum_data)
    config = json.loads((start / "config.json").read_text())
    (start / "config.json").write_text(json.dumps({**config, "method": "iql"}))
    with pytest.raises(ValueError, match="'iql'"):
        dagger(get_task("pendulum"), start, pendulum_data, tmp_path / "d", TINY, device=torch.device("cpu"))


def test_sim_expert_transitions_read_file_by_file_equal_the_whole_dataset(tmp_path, pendulum_data):
    from simdist.baselines.bc import sim_expert_transitions
    from simdist.baselines.replay import TransitionBuffer, sparse_success
    from simdist.data.episodes import create_dataset, write_episodes

    info, episodes = load_episodes(pendulum_data)
    create_dataset(tmp_path / "two_files", info)
    write_episodes(tmp_path / "two_files", episodes[:10], name="a")
    write_episodes(tmp_path / "two_files", episodes[10:], name="b")
    whole = TransitionBuffer.from_episodes(episodes, sparse_success, expert_only=True)
    streamed = sim_expert_transitions(tmp_path / "two_files")
    assert len(streamed) == len(whole) > 0 and streamed.expert.all()
    assert np.array_equal(streamed.action, whole.action)
    assert all(np.array_equal(streamed.obs[g], whole.obs[g]) for g in whole.obs)
