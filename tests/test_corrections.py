"""Operator corrections: logged flags, BC-only labels, the takeover agent and the adaptation loop with corrections."""

import json

import numpy as np
import pytest
import torch

from simdist.adaptation.corrections import CorrectedAgent, CorrectionConfig
from simdist.config import LossConfig, model_preset
from simdist.data.episodes import load_episodes
from simdist.data.robot_logger import EpisodeLogger
from simdist.data.windows import WindowDataset
from simdist.model.loss import world_model_loss
from simdist.model.world_model import WorldModel
from simdist.tasks import get_task
from simdist.training import checkpoint as ckpt


def test_logger_keeps_operator_flags_as_bc_only_labels(tmp_path):
    log = EpisodeLogger(tmp_path, "pendulum", {"proprio": (3,)}, action_dim=1, control_period_s=0.1)
    for corrected_steps in ({3, 4, 5, 6}, set()):
        log.start()
        for t in range(10):
            log.log({"proprio": np.full(3, t)}, np.array([0.1 * t]), corrected=t in corrected_steps)
        log.end(success=False)
    info, (with_ops, plain) = load_episodes(tmp_path)
    assert with_ops.expert.tolist() == [t in {3, 4, 5, 6} for t in range(10)]
    assert with_ops.reward is None and with_ops.value is None and with_ops.source_policy == "robot+operator"
    assert plain.expert is None and plain.source_policy == "robot"
    data = WindowDataset(info, [with_ops, plain], history=2, horizon=2)
    b = data.batch(np.arange(len(data)))
    assert (b["labelled"] == 0).all()  # no reward/value anywhere
    assert b["bc_labelled"].tolist() == [1.0] * 8 + [0.0] * 8  # expert flags only where the operator was logged


def _pendulum_model_and_batch(B: int = 4):
    """A fresh pendulum model and a batch of B real-like windows: no reward or value, expert flags on every step."""
    torch.manual_seed(0)
    spec = get_task("pendulum").spec
    model = WorldModel(model_preset("cpu"), spec)
    H, T = model.cfg.history, model.cfg.horizon
    P, A = spec.obs_shapes["proprio"][0], spec.action_dim
    batch = {
        "obs": {"proprio": torch.randn(B, P)},
        "hist_proprio": torch.randn(B, H, P),
        "hist_action": torch.randn(B, H, A),
        "actions": torch.randn(B, T, A),
        "future_obs": {"proprio": torch.randn(B, T, P)},
        "rewards": torch.full((B, T), float("nan")),
        "values": torch.full((B, T), float("nan")),
        "expert": torch.ones(B, T),
        "labelled": torch.zeros(B),
        "bc_labelled": torch.ones(B),
    }
    return model, batch


def test_bc_term_trains_on_correction_windows_without_reward_or_value():
    model, batch = _pendulum_model_and_batch()
    batch["bc_labelled"] = torch.tensor([1.0, 1.0, 0.0, 0.0])
    total, logs = world_model_loss(model, batch, LossConfig())
    assert logs["reward"] == logs["value"] == 0.0 and logs["bc"] > 0 and torch.isfinite(total)
    batch["expert"][:, 0] = 0  # the operator handed back before the window's first step: nothing to clone
    _, logs = world_model_loss(model, batch, LossConfig())
    assert logs["bc"] == 0.0


class _Constant:
    def __init__(self, value: float):
        self.value, self.seen = value, []

    def reset(self) -> None:
        self.seen = []

    def act(self, obs):
        return np.array([self.value], np.float32)

    def observe(self, obs, action):
        self.seen.append(float(action[0]))


@pytest.mark.parametrize("rate, share", [(0.0, 0.0), (1e9, 1.0)])
def test_takeovers_never_or_always(rate, share):
    agent = CorrectedAgent(_Constant(0.0), _Constant(1.0), CorrectionConfig(1, rate, 0.5), control_period_s=0.1)
    agent.reset()
    actions = [float(agent.act({})[0]) for _ in range(20)]
    assert np.mean(agent.flags) == share and actions == [share] * 20
    assert agent.robot.seen == ([1.0] * 20 if share else [])  # the robot's history holds the operator's actions


def test_takeovers_last_their_window():
    agent = CorrectedAgent(_Constant(0.0), _Constant(1.0), CorrectionConfig(1, 0.4, 0.5), control_period_s=0.1, seed=3)
    agent.reset()
    for _ in range(400):
        agent.act({})
    runs = np.diff(np.flatnonzero(np.diff(np.r_[0, np.array(agent.flags, int), 0])))[::2]
    assert len(runs) > 5 and (runs % 5 == 0).all()  # 0.5 s windows of 5 steps (back-to-back ones merge)
    assert 0.05 < np.mean(agent.flags) < 0.5


def test_adapt_with_corrections_clones_only_with_policy_trainable(tmp_path, pretrained, pendulum_data):
    from simdist.adaptation.adapt import AdaptConfig, adapt
    from simdist.config import FinetuneConfig, with_bc_head
    from simdist.planning.settings import mppi_preset

    task, out = get_task("pendulum"), tmp_path / "adapt"
    cfg = AdaptConfig(rounds=1, episodes_per_round=2)
    mppi = mppi_preset("cpu")
    ft = with_bc_head(FinetuneConfig(steps=5, batch_size=16, warmup_steps=1, val_every=5))
    corrections = CorrectionConfig(episodes_per_round=2, takeover_rate_hz=1.0, takeover_s=0.5)
    res = adapt(task, pretrained, out, cfg, mppi, ft, progress=False, corrections=corrections)
    names = sorted(p.stem for p in (out / "real_data" / "episodes").glob("*.h5"))
    assert names == ["r00_c000", "r00_c001", "r00_e000", "r00_e001", "r01_e000", "r01_e001"]  # none after the last
    _, episodes = load_episodes(out / "real_data")
    corrected = [e for e in episodes if e.source_policy.startswith("corrected")]
    assert len(corrected) == 2 and 0 < res["rounds"][0]["operator_share"] < 1
    assert res["rounds"][0]["corrected_episodes"] == 2 and "corrected_episodes" not in res["rounds"][1]
    before = ckpt.load_model(pretrained).state_dict()
    after = ckpt.load_model(out / "round_01" / "model").state_dict()
    model = ckpt.load_model(pretrained)
    for group in ("encoder", "reward", "value", "policy", "dynamics"):
        same = all(torch.equal(before[k], after[k]) for k, _ in model.parameter_group(group))
        assert same == (group not in ("policy", "dynamics")), group
    assert json.loads((out / "adapt_config.json").read_text())["corrections"]["episodes_per_round"] == 2
    again = adapt(task, pretrained, out, cfg, mppi, ft, progress=False, corrections=corrections)  # resumes: no new data
    assert again["rounds"][0]["operator_share"] == res["rounds"][0]["operator_share"]
    assert len(list((out / "real_data" / "episodes").glob("*.h5"))) == 6
    with pytest.raises(ValueError, match="corrections"):
        adapt(task, pretrained, out, cfg, mppi, ft, progress=False, corrections=CorrectionConfig(3))


def test_cli_refuses_bad_takeover_settings(tmp_path, caplog):
    from simdist.cli import main

    assert (
        main(
            [
                "adapt",
                "pendulum",
                "--checkpoint",
                str(tmp_path / "c"),
                "--out",
                str(tmp_path / "a"),
                "--corrected-episodes",
                "2",
                "--takeover-s",
                "0",
            ]
        )
        == 2
    )
    assert "--takeover-s 0.0: must be positive" in caplog.text and not (tmp_path / "a").exists()


def test_cli_corrections_clone_the_operator_with_the_anchor(tmp_path, pretrained, pendulum_data):
    from simdist.adaptation.corrections import CORRECTIONS_POLICY_ANCHOR
    from simdist.cli import main

    out = tmp_path / "a"
    assert (
        main(
            [
                "adapt",
                "pendulum",
                "--checkpoint",
                str(pretrained),
                "--out",
                str(out),
                "--rounds",
                "1",
                "--episodes-per-round",
                "1",
                "--corrected-episodes",
                "1",
                "--finetune-steps",
                "3",
                "--quiet",
                "--sim-data",
                str(pendulum_data),
            ]
        )
        == 0
    )
    ft = json.loads((out / "adapt_config.json").read_text())["finetune"]
    assert ft["trainable"] == ["dynamics", "policy"] and ft["loss"]["bc"] > 0
    assert ft["policy_anchor"] == CORRECTIONS_POLICY_ANCHOR


@pytest.mark.parametrize("replay_labels", [True, False])
def test_replay_labels_decide_whether_sim_windows_train_the_bc_head(tmp_path, pretrained, pendulum_data, replay_labels):
    from simdist.config import FinetuneConfig, with_bc_head
    from simdist.training.finetune import finetune

    task = get_task("pendulum")
    log = EpisodeLogger(tmp_path / "logs", "pendulum", task.spec.obs_shapes, 1, task.spec.control_period_s)
    env = task.make_env("real", seed=0)
    for k in range(3):
        obs, _ = env.reset(seed=k)
        log.start()
        for t in range(20):  # an operator step only at the very end: no window's chunk reaches it
            log.log(obs, np.array([0.5]), corrected=t == 19)
            obs, *_ = env.step(np.array([0.5]))
        log.end(success=False)
    cfg = with_bc_head(
        FinetuneConfig(
            steps=4, batch_size=8, warmup_steps=1, val_every=4, sim_replay_fraction=0.5, replay_labels=replay_labels
        )
    )
    finetune(
        pretrained,
        tmp_path / "logs",
        tmp_path / "ft",
        cfg,
        device=torch.device("cpu"),
        progress=False,
        sim_data=pendulum_data,
    )
    before, after = ckpt.load_model(pretrained), ckpt.load_model(tmp_path / "ft").state_dict()
    policy_same = all(torch.equal(p, after[name]) for name, p in before.parameter_group("policy"))
    assert policy_same != replay_labels  # without replay labels, nothing here teaches the BC head


def test_policy_anchor_keeps_the_head_on_untaught_windows_only():
    from simdist.model.policy_anchor import frozen_copy, policy_anchor_loss

    model, batch = _pendulum_model_and_batch()
    batch["expert"].zero_()  # the robot's own steps
    anchor = frozen_copy(model)
    assert policy_anchor_loss(model, anchor, batch) == 0.0  # unchanged head: nothing to pay
    with torch.no_grad():
        model.policy_position.add_(0.5)
    moved = policy_anchor_loss(model, anchor, batch)
    assert moved > 0 and moved.requires_grad and not any(p.requires_grad for p in anchor.parameters())
    batch["expert"][:, 0] = 1.0  # every window is taught by its expert label: the anchor lets go
    assert policy_anchor_loss(model, anchor, batch) == 0.0
