"""Baselines end to end on the pendulum's `real` domain, and `simdist compare` (settings, resume, physics)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

SMALL = dict(
    steps=30,
    offline_steps=30,
    value_fit_steps=30,
    max_updates_per_round=3,
    utd_ratio=2,
    batch_size=16,
    diffusion_steps=4,
    hidden=(16,),
)


def baseline(method, task, sim_data, out, seed=0, **settings):
    """`run_baseline` with `settings` as its BaselineRunConfig (looked up at each call: tests patch the module)."""
    from simdist.experiments import baseline_run

    return baseline_run.run_baseline(method, task, sim_data, out, baseline_run.BaselineRunConfig(**settings), seed)


@pytest.mark.parametrize("method", ["iql", "rlpd", "sgft", "dp_cotrain"])
def test_run_baseline_on_pendulum_real_domain(method, pendulum_data, tmp_path):
    from simdist.data.episodes import load_episodes
    from simdist.experiments.baseline_run import RESULTS_FILE

    result = baseline(
        method,
        "pendulum",
        pendulum_data,
        tmp_path,
        real_episode_budget=3,
        episodes_per_update=2,
        seed=0,
        preset="cpu",
        episodes_per_round=2,
        demos=2,
        overrides=SMALL,
    )
    rounds = result["rounds"]
    assert result["setting"] == "manipulation" and result["demos"] == 2
    assert [r["episodes"] for r in rounds] == ([2] if method == "dp_cotrain" else [2, 1])  # budget 3, M = 2
    minutes = [r["real_minutes"] for r in rounds]
    assert minutes == sorted(minutes) and minutes[0] > result["demo_minutes"] > 0
    assert all(0.0 <= r["success_rate"] <= 1.0 for r in rounds)
    assert all(r["metrics"]["success"] == r["success_rate"] for r in rounds)  # task metrics averaged per round
    assert json.loads((tmp_path / RESULTS_FILE).read_text())["final_success"] == result["final_success"]
    _, real = load_episodes(tmp_path / "real_data")
    assert len(real) == sum(r["episodes"] for r in rounds) and (tmp_path / "checkpoint" / "config.json").exists()


def test_compare_command_parses_and_rejects_unknown_methods(tmp_path):
    from simdist.cli import build_parser

    parser = build_parser()
    args = parser.parse_args(
        [
            "compare",
            "pendulum",
            "--methods",
            "bc,nope",
            "--seeds",
            "2",
            "--sim-data",
            "x",
            "--out",
            str(tmp_path),
            "--json",
        ]
    )
    assert args.json and args.seeds == "2" and args.demos is None
    assert parser.parse_args(["compare", "foam", "--sim-data", "x", "--out", "y", "--demos", "20"]).demos == 20
    with pytest.raises(KeyError, match="nope"):
        args.fn(args)
    for bad, why in (("0", "names no run"), ("two", "neither a count")):
        args = parser.parse_args(
            ["compare", "pendulum", "--methods", "bc", "--seeds", bad, "--sim-data", "x", "--out", str(tmp_path)]
        )
        with pytest.raises(ValueError, match=why):
            args.fn(args)
    from simdist.cli.experiment_commands import parse_seeds as _seeds

    assert _seeds("3") == [0, 1, 2] and _seeds("0,") == [0] and _seeds("0,4,7") == [0, 4, 7]
    with pytest.raises(ValueError, match="names no run"):
        _seeds("-1,")


def test_comparison_table_shows_progress_for_legged_tasks(tmp_path):
    from simdist.eval.comparison import write_comparison

    summary = {
        "bc": {
            "seeds": [0],
            "success_mean": [0.0],
            "success_std": [0.0],
            "real_minutes": [0.4],
            "final_success_mean": 0.0,
            "progress_mean": [0.52],
        },
        "iql": {
            "seeds": [0, 1],
            "success_mean": [0.0, 0.5],
            "success_std": [0.0, 0.5],
            "real_minutes": [0.4, 0.8],
            "final_success_mean": 0.5,
            "successes": [0, 10],
            "trials": [20, 20],
        },
    }
    md = write_comparison(tmp_path, summary).read_text()
    assert "| bc | 1 | 0.00 ± 0.00 |  | 0.4 | 0.00 | 0.52 m |" in md  # a record without trials: no pooled cell
    assert "| iql | 2 | 0.00 ± 0.00, 0.50 ± 0.69 | 0 / 20 (0.00–0.16), 10 / 20 (0.30–0.70) | 0.4, 0.8 | 0.50 |  |" in md
    assert "SimDist" not in md  # no SimDist row: nothing to compare it with


def test_comparison_states_simdist_against_the_best_baseline():
    from simdist.eval.comparison import comparison_verdict

    def method(final, successes):
        return {"final_success_mean": final, "successes": [successes], "trials": [40]}

    two_x = comparison_verdict({"simdist": method(0.9, 36), "bc": method(0.1, 4), "iql": method(0.3, 12)})
    assert "0.90 against the best baseline's (iql) 0.30: 3.0×" in two_x
    assert "target (≥ 2× the best baseline) is met" in two_x
    assert "beyond chance" in two_x
    level = comparison_verdict({"simdist": method(0.25, 10), "simdist_bc": method(0.9, 36), "bc": method(0.2, 8)})
    assert "(bc) 0.20: 1.2×" in level and "is not met" in level and "within chance" in level  # SimDist+BC: a variant
    assert comparison_verdict({"simdist": method(0.25, 10), "simdist_bc": method(0.2, 8)}) == ""  # no baseline
    assert "is not met" in comparison_verdict({"simdist": method(0.0, 0), "bc": method(0.0, 0)})  # all at 0
    assert "is not met" in comparison_verdict({"simdist": method(0.05, 2), "bc": method(0.0, 0)})  # chance
    assert "is met" in comparison_verdict({"simdist": method(0.5, 20), "bc": method(0.0, 0)})


def test_world_model_reward_labels_every_transition(pretrained, pendulum_data):
    from simdist.baselines.replay import world_model_reward
    from simdist.data.episodes import load_episodes
    from simdist.training.checkpoint import load_model

    _, eps = load_episodes(pendulum_data)
    rewards, terminals = world_model_reward(load_model(pretrained))(eps[0])
    assert rewards.shape == terminals.shape == (len(eps[0]) - 1,) and np.isfinite(rewards).all()
    assert not terminals.any()


def test_simdist_bc_finetunes_the_policy_head_on_demonstrations(pretrained, tmp_path):
    from simdist.adaptation.adapt import AdaptConfig
    from simdist.adaptation.demonstrations import collect_demonstrations
    from simdist.config import FinetuneConfig
    from simdist.experiments.simdist_bc import run_simdist_bc
    from simdist.planning.settings import MPPIConfig
    from simdist.tasks import get_task
    from simdist.training.checkpoint import load_model

    task = get_task("pendulum")
    demos = collect_demonstrations(task, 2, "default", seed=0)
    ft = FinetuneConfig(steps=3, batch_size=8, warmup_steps=1, val_fraction=0.0, val_every=10)
    mppi = MPPIConfig(samples=8, policy_samples=4, iterations=1, elites=4)
    result = run_simdist_bc(task, pretrained, tmp_path, demos, AdaptConfig(rounds=1, episodes_per_round=1), mppi, ft)
    assert result["method"] == "simdist_bc" and len(result["rounds"]) == 2
    before, after = load_model(pretrained), load_model(tmp_path / "round_01" / "model")
    changed = lambda group: any(
        not torch.equal(p, dict(after.named_parameters())[n]) for n, p in before.parameter_group(group)
    )
    assert changed("policy") and changed("dynamics") and not changed("encoder")


def test_only_demonstration_methods_get_demonstrations():
    from simdist.experiments.baseline_run import _default_demos

    assert [_default_demos(m, "manipulation") for m in ("bc", "sgft", "iql", "rlpd", "simdist_bc", "dp")] == [
        0,
        0,
        20,
        20,
        20,
        100,
    ]
    assert _default_demos("rlpd", "quadruped") == 0
    # `simdist compare --demos N` gives N to the methods that use demonstrations (the quadruped too), never to others
    from simdist.experiments.compare import demos_for

    assert [demos_for(m, 5) for m in ("bc", "sgft", "simdist", "simdist_bc", "iql", "dp")] == [
        None,
        None,
        None,
        5,
        5,
        5,
    ]
    assert demos_for("simdist_bc", None) is None


@pytest.mark.slow
def test_compare_runs_simdist_itself_under_the_same_budget(tmp_path, capsys, pretrained, pendulum_data):
    from simdist.cli import main
    from simdist.planning.settings import mppi_preset

    argv = [
        "compare",
        "pendulum",
        "--methods",
        "simdist,simdist_bc",
        "--seeds",
        "1",
        "--sim-data",
        str(pendulum_data),
        "--checkpoint",
        str(pretrained),
        "--budget",
        "4",
        "--episodes-per-round",
        "2",
        "--prior-weight",
        "0.5",
        "--mppi",
        "cpu",
        "--set",
        "mppi.init_std=0.3",
        "--finetune-steps",
        "7",
        "--out",
        str(tmp_path),
        "--json",
        "--quiet",
    ]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    methods = result["methods"]
    for method in ("simdist", "simdist_bc"):
        run = json.loads((tmp_path / method / "seed_0" / "baseline_results.json").read_text())
        assert run["method"] == method and [r["episodes"] for r in run["rounds"]] == [2, 2]  # zero shot + 1 round
        cfg = json.loads((tmp_path / method / "seed_0" / "adapt_config.json").read_text())
        assert cfg["mppi"]["prior_weight"] == 0.5 and cfg["finetune"]["sim_replay_fraction"] > 0  # replay reached
        assert cfg["mppi"]["init_std"] == 0.3
        assert cfg["finetune"]["steps"] == 7 and cfg["mppi"]["samples"] == mppi_preset("cpu").samples
        assert cfg["mppi"] == result["inputs"]["mppi"]  # compare's own record names the planner its runs used
        minutes = methods[method]["real_minutes"]
        assert len(minutes) == 2 and 0 < minutes[0] < minutes[1]
        assert methods[method]["trials"] == [2, 2] and 0 <= min(methods[method]["successes"])
        assert [k / 2 for k in methods[method]["successes"]] == methods[method]["success_mean"]  # one seed
    # SimDist+BC's demonstrations count as robot time from the start; SimDist has none
    assert methods["simdist_bc"]["real_minutes"][0] > methods["simdist"]["real_minutes"][0]
    assert (tmp_path / "comparison.png").exists()


def test_a_finished_run_is_reused_and_other_settings_are_refused(pendulum_data, tmp_path, monkeypatch):
    """An interrupted `simdist compare` reruns only what is missing; a folder is never reused for other settings."""
    from simdist.experiments import baseline_run

    kwargs = dict(
        real_episode_budget=2,
        episodes_per_update=2,
        seed=0,
        preset="cpu",
        episodes_per_round=2,
        demos=2,
        overrides=SMALL,
    )
    first = baseline("iql", "pendulum", pendulum_data, tmp_path, **kwargs)
    monkeypatch.setattr(baseline_run, "run_demonstrations", lambda *a, **k: pytest.fail("ran again"))
    again = baseline("iql", "pendulum", pendulum_data, tmp_path, **kwargs)
    assert again == json.loads(json.dumps(first))  # as saved
    with pytest.raises(ValueError, match="other settings .*real_episode_budget"):
        baseline("iql", "pendulum", pendulum_data, tmp_path, **{**kwargs, "real_episode_budget": 4})


def test_an_interrupted_seed_starts_again_and_keeps_its_episodes(pendulum_data, tmp_path):
    from simdist.data.episodes import episode_files

    kwargs = dict(
        real_episode_budget=2,
        episodes_per_update=2,
        seed=0,
        preset="cpu",
        episodes_per_round=2,
        demos=0,
        overrides=SMALL,
    )
    baseline("bc", "pendulum", pendulum_data, tmp_path, **kwargs)
    (tmp_path / "baseline_results.json").unlink()  # as if killed after writing its episodes
    result = baseline("bc", "pendulum", pendulum_data, tmp_path, **kwargs)
    (aside,) = tmp_path.glob("real_data.interrupted-*")
    assert len(episode_files(aside)) == 2 and len(episode_files(tmp_path / "real_data")) == 2
    assert result["rounds"][0]["episodes"] == 2


def test_a_resumed_seed_reuses_its_demonstrations(pendulum_data, tmp_path, monkeypatch):
    """Demonstrations are real-robot data, collected once: a seed killed after collecting them resumes with them,
    and an incomplete set is moved aside, never overwritten."""
    from simdist.adaptation import demonstrations
    from simdist.data.episodes import load_episodes

    kwargs = dict(
        real_episode_budget=2,
        episodes_per_update=2,
        seed=0,
        preset="cpu",
        episodes_per_round=2,
        demos=2,
        overrides=SMALL,
    )
    baseline("iql", "pendulum", pendulum_data, tmp_path, **kwargs)
    first = [e.action for e in load_episodes(tmp_path / "demos")[1]]
    (tmp_path / "baseline_results.json").unlink()  # killed after its episodes
    monkeypatch.setattr(demonstrations, "collect_demonstrations", lambda *a, **k: pytest.fail("collected again"))
    baseline("iql", "pendulum", pendulum_data, tmp_path, **kwargs)
    assert all(np.array_equal(a, b) for a, b in zip(first, (e.action for e in load_episodes(tmp_path / "demos")[1])))
    monkeypatch.undo()
    (tmp_path / "baseline_results.json").unlink()
    (tmp_path / "demos" / "episodes" / "demo_001.h5").unlink()  # as if killed while writing them
    baseline("iql", "pendulum", pendulum_data, tmp_path, **kwargs)
    assert len(load_episodes(tmp_path / "demos")[1]) == 2 and len(list(tmp_path.glob("demos.incomplete-*"))) == 1


def test_compare_physics_reaches_every_real_episode_and_is_part_of_the_settings(pendulum_data, tmp_path, monkeypatch):
    """`simdist compare --physics FILE`: the baseline's real episodes run on the overridden robot, and a folder
    run on one robot is not resumed on another."""
    from simdist.tasks import get_task

    task = get_task("pendulum")
    made = []
    real_env = task.make_env
    monkeypatch.setattr(task, "make_env", lambda *a, **k: made.append(real_env(*a, **k)) or made[-1])
    (tmp_path / "heavy.json").write_text(json.dumps({"mass": 1.7}))
    kwargs = dict(
        real_episode_budget=2,
        episodes_per_update=2,
        seed=0,
        preset="cpu",
        episodes_per_round=2,
        demos=0,
        overrides=SMALL,
    )
    result = baseline("bc", task, pendulum_data, tmp_path / "run", physics=tmp_path / "heavy.json", **kwargs)
    assert made and all(env.physics.mass == 1.7 for env in made)
    assert result["physics"] == str(tmp_path / "heavy.json")
    with pytest.raises(ValueError, match="other settings .*physics"):
        baseline("bc", task, pendulum_data, tmp_path / "run", **kwargs)


def test_baselines_start_from_a_saved_bc_policy(pendulum_data, tmp_path, monkeypatch):
    """`start_policy` (e.g. `simdist dagger`'s output for a BC checkpoint): BC deploys it unchanged, RLPD starts its
    actor from it; other methods and a missing policy are refused before any work."""
    from simdist.baselines.bc import BCLearner
    from simdist.baselines.learners import LearnerSetup

    kwargs = dict(real_episode_budget=2, episodes_per_update=2, episodes_per_round=2, preset="cpu", overrides=SMALL)
    first = baseline("bc", "pendulum", pendulum_data, tmp_path / "bc_0", seed=0, **kwargs)
    policy = str(tmp_path / "bc_{seed}" / "checkpoint")
    again = baseline("bc", "pendulum", pendulum_data, tmp_path / "again", seed=0, start_policy=policy, **kwargs)
    assert again["start_policy"] == str(tmp_path / "bc_0" / "checkpoint")
    assert again["rounds"][0]["successes"] == first["rounds"][0]["successes"]  # the same deterministic policy
    saved = BCLearner.load(tmp_path / "again" / "checkpoint").actor.state_dict()
    assert all(
        torch.equal(v, saved[k]) for k, v in BCLearner.load(tmp_path / "bc_0" / "checkpoint").actor.state_dict().items()
    )
    started = {}
    real_start = LearnerSetup.start_from_bc

    def spy(setup, learner, *args):
        real_start(setup, learner, *args)
        started.update({k: v.clone() for k, v in learner.actor.state_dict().items()})

    monkeypatch.setattr(LearnerSetup, "start_from_bc", spy)
    baseline("rlpd", "pendulum", pendulum_data, tmp_path / "rlpd", seed=0, start_policy=policy, **kwargs)
    bc = BCLearner.load(tmp_path / "bc_0" / "checkpoint").actor.state_dict()
    assert started and all(torch.equal(v, started[k]) for k, v in bc.items() if "head.2" not in k)  # all but the std
    with pytest.raises(ValueError, match="'sgft' does not take one"):
        baseline("sgft", "pendulum", pendulum_data, tmp_path / "s", start_policy=policy, **kwargs)
    with pytest.raises(FileNotFoundError, match="not a saved policy"):
        baseline("rlpd", "pendulum", pendulum_data, tmp_path / "r", seed=5, start_policy=policy, **kwargs)
