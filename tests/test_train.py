import json
import math

import pytest
import torch
from safetensors.torch import save_file

from simdist.config import FinetuneConfig, TrainConfig, replace
from simdist.data.episodes import DatasetInfo, create_dataset, load_episodes, write_episodes
from simdist.training import checkpoint as ckpt
from simdist.training.finetune import finetune, steps_for_epochs
from simdist.training.train import lr_at, pretrain


def test_lr_schedule_warmup_then_cosine():
    assert lr_at(0, 1.0, 0.1, 10, 100) == pytest.approx(0.1)
    assert lr_at(9, 1.0, 0.1, 10, 100) == pytest.approx(1.0)
    assert lr_at(100, 1.0, 0.1, 10, 100) == pytest.approx(0.1)
    assert 0.1 < lr_at(55, 1.0, 0.1, 10, 100) < 1.0


def test_pretrain_writes_safetensors_checkpoint_and_metrics(pretrained):
    assert (pretrained / "model.safetensors").exists() and (pretrained / "config.json").exists()
    rows = [json.loads(line) for line in (pretrained / "metrics.jsonl").read_text().splitlines()]
    assert {"train/latent", "train/reward", "train/value", "train/bc", "val/total"} <= set(rows[-1])
    assert rows[-1]["val/total"] < 50
    assert all(r["steps_per_s"] > 0 for r in rows)  # training throughput, validation excluded


def test_a_pretrained_model_records_how_its_data_was_made(pretrained):
    made_by = json.loads((pretrained / "config.json").read_text())["data_made_by"]
    assert made_by["task"] == "pendulum" and made_by["seeds"] == [0] and made_by["episodes"] == 24
    assert "Alg. 2 generation" in made_by["notes"] and len(made_by["sha256"]) == 64


def test_checkpoint_round_trip(pretrained):
    a = ckpt.load_model(pretrained)
    ckpt.save_model(pretrained.parent / "copy", a)
    b = ckpt.load_model(pretrained.parent / "copy")
    for (ka, va), (kb, vb) in zip(a.state_dict().items(), b.state_dict().items()):
        assert ka == kb and torch.equal(va, vb)
    assert torch.equal(a.normalizer.proprio_mean, b.normalizer.proprio_mean)


def test_mismatched_or_truncated_checkpoint_errors(pretrained, tmp_path):
    model = ckpt.load_model(pretrained)
    cfg = json.loads((pretrained / "config.json").read_text())
    cfg["model"]["latent_dim"] = 8
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "config.json").write_text(json.dumps(cfg))
    (bad / "model.safetensors").write_bytes((pretrained / "model.safetensors").read_bytes())
    with pytest.raises(ckpt.CheckpointError, match="mismatched shapes"):
        ckpt.load_model(bad)
    (bad / "config.json").write_text((pretrained / "config.json").read_text())
    (bad / "model.safetensors").write_bytes((pretrained / "model.safetensors").read_bytes()[:100])
    with pytest.raises(ckpt.CheckpointError, match="cannot read"):
        ckpt.load_model(bad)
    with pytest.raises(ckpt.CheckpointError, match="config.json"):
        ckpt.load_model(tmp_path / "nowhere")
    (bad / "config.json").write_text('{"model": {}}')  # e.g. a hand-edited or foreign config
    with pytest.raises(ckpt.CheckpointError, match="has no spec section"):
        ckpt.load_model(bad)
    assert model is not None


def real_like_dataset(src, dst):
    """The sim episodes with their labels removed, as a robot would log them."""
    info, episodes = load_episodes(src)
    info.domain = "real"
    create_dataset(dst, info)
    for e in episodes:
        e.reward = e.value = e.expert = None
    write_episodes(dst, episodes)
    return dst


def test_finetune_changes_only_the_dynamics(pretrained, pendulum_data, tmp_path):
    real = real_like_dataset(pendulum_data, tmp_path / "real")
    before = ckpt.load_model(pretrained)
    finetune(
        pretrained,
        real,
        tmp_path / "ft",
        FinetuneConfig(steps=15, batch_size=16, warmup_steps=2, val_every=15),
        device=torch.device("cpu"),
        progress=False,
    )
    after = ckpt.load_model(tmp_path / "ft")
    changed = {k for k, v in before.state_dict().items() if not torch.equal(v, after.state_dict()[k])}
    assert changed and all(k.startswith("dynamics.") for k in changed), changed
    # every frozen tensor (encoder, action embedding, heads, normaliser) is bit-identical
    for k, v in before.state_dict().items():
        if not k.startswith("dynamics."):
            assert torch.equal(v, after.state_dict()[k]), k


def test_finetune_can_unfreeze_the_value_for_ablations(pretrained, pendulum_data, tmp_path):
    cfg = FinetuneConfig(steps=5, batch_size=16, warmup_steps=1, val_every=5, trainable=("dynamics", "value"))
    finetune(pretrained, pendulum_data, tmp_path / "ft", cfg, device=torch.device("cpu"), progress=False)
    before, after = ckpt.load_model(pretrained), ckpt.load_model(tmp_path / "ft")
    changed = {k.split(".")[0] for k, v in before.state_dict().items() if not torch.equal(v, after.state_dict()[k])}
    # labels unused (value weight 0); the value learns from its TD term; the return error is re-measured on them
    assert changed == {"dynamics", "value", "return_error"}
    with pytest.raises(KeyError, match="valid groups"):
        finetune(
            pretrained,
            pendulum_data,
            tmp_path / "x",
            FinetuneConfig(steps=1, trainable=("brain",)),
            device=torch.device("cpu"),
            progress=False,
        )


def test_finetune_loss_weights_train_a_labelled_head_and_refuse_unlabelled_data(pretrained, pendulum_data, tmp_path):
    from simdist.config import LossConfig

    cfg = FinetuneConfig(
        steps=5,
        batch_size=16,
        warmup_steps=1,
        val_every=5,
        trainable=("dynamics", "policy"),
        loss=LossConfig(latent=1.0, reward=0.0, value=0.0, bc=1.0),
    )
    finetune(pretrained, pendulum_data, tmp_path / "ft", cfg, device=torch.device("cpu"), progress=False)
    before, after = ckpt.load_model(pretrained), ckpt.load_model(tmp_path / "ft")
    changed = {
        k for k, v in before.state_dict().items() if k != "return_error" and not torch.equal(v, after.state_dict()[k])
    }  # re-measured on sim labels
    groups = {g: {name for name, _ in before.parameter_group(g)} for g in ("dynamics", "policy")}
    assert changed <= groups["dynamics"] | groups["policy"] and all(changed & names for names in groups.values())
    real = real_like_dataset(pendulum_data, tmp_path / "real")
    with pytest.raises(ValueError, match=r"\['bc'\] need expert flags"):
        finetune(pretrained, real, tmp_path / "x", cfg, device=torch.device("cpu"), progress=False)
    # labelled simulation replay feeds those terms (e.g. DAgger data, which has no reward, with the world model
    # trained on): then unlabelled data are fine, unless the replay's labels are switched off
    reward = replace(cfg, trainable=("dynamics", "reward"), loss=LossConfig(latent=1.0, reward=1.0, value=0.0, bc=0.0))
    with pytest.raises(ValueError, match=r"\['reward'\] need reward/value labels"):
        finetune(pretrained, real, tmp_path / "x", reward, device=torch.device("cpu"), progress=False)
    finetune(
        pretrained,
        real,
        tmp_path / "replayed",
        replace(reward, sim_replay_fraction=0.5),
        device=torch.device("cpu"),
        progress=False,
        sim_data=pendulum_data,
    )
    with pytest.raises(ValueError, match="replay_labels off"):
        finetune(
            pretrained,
            real,
            tmp_path / "x",
            replace(reward, sim_replay_fraction=0.5, replay_labels=False),
            device=torch.device("cpu"),
            progress=False,
            sim_data=pendulum_data,
        )


def test_finetune_can_let_a_retrained_bc_head_see_the_history_and_nothing_else(pretrained, pendulum_data, tmp_path):
    from simdist.config import LossConfig

    before = ckpt.load_model(pretrained)
    cfg = FinetuneConfig(
        steps=5,
        batch_size=16,
        warmup_steps=1,
        val_every=5,
        trainable=("policy",),
        loss=LossConfig(latent=0.0, reward=0.0, value=0.0, bc=1.0),
    )
    history = not before.cfg.policy_sees_history
    finetune(
        pretrained,
        pendulum_data,
        tmp_path / "ft",
        cfg,
        device=torch.device("cpu"),
        progress=False,
        model_overrides={"policy_sees_history": history},
    )
    after = ckpt.load_model(tmp_path / "ft")
    assert after.cfg.policy_sees_history == history and after.cfg.latent_dim == before.cfg.latent_dim
    changed = {k for k, v in before.state_dict().items() if not torch.equal(v, after.state_dict()[k])}
    assert changed and changed <= {name for name, _ in before.parameter_group("policy")}
    with pytest.raises(ValueError, match=r"cannot change ModelConfig \['latent_dim'\].*policy_sees_history"):
        finetune(
            pretrained,
            pendulum_data,
            tmp_path / "x",
            cfg,
            device=torch.device("cpu"),
            progress=False,
            model_overrides={"latent_dim": 8},
        )


def test_finetune_adds_sensor_noise_to_a_model_pretrained_without_it(pretrained, pendulum_data, tmp_path, monkeypatch):
    from simdist.config import LossConfig
    from simdist.training import train

    cfg = FinetuneConfig(
        steps=3,
        batch_size=16,
        warmup_steps=1,
        val_every=3,
        trainable=("policy",),
        loss=LossConfig(latent=0.0, reward=0.0, value=0.0, bc=1.0),
    )
    assert not ckpt.load_model(pretrained).spec.sensor_noise_std
    with pytest.raises(ValueError, match="'pendulum' documents no sensor noise"):  # before any data is loaded
        finetune(
            pretrained,
            pendulum_data,
            tmp_path / "x",
            cfg,
            device=torch.device("cpu"),
            progress=False,
            model_overrides={"sensor_noise_scale": 1.0},
        )
    monkeypatch.setattr(train, "sensor_noise_std_of", lambda task: {"proprio": (0.1, 0.2, 0.3)})
    finetune(
        pretrained,
        pendulum_data,
        tmp_path / "ft",
        cfg,
        device=torch.device("cpu"),
        progress=False,
        model_overrides={"sensor_noise_scale": 1.0},
    )
    after = ckpt.load_model(tmp_path / "ft")
    assert after.cfg.sensor_noise_scale == 1.0 and after.spec.sensor_noise_std == {"proprio": (0.1, 0.2, 0.3)}


def test_finetune_can_start_a_wider_bc_head_afresh_on_the_frozen_world_model(pretrained, pendulum_data, tmp_path):
    from simdist.config import LossConfig

    before = ckpt.load_model(pretrained)
    width = 3 * (before.cfg.policy_ffn_dim or before.cfg.ffn_dim)
    cfg = FinetuneConfig(
        steps=5,
        batch_size=16,
        warmup_steps=1,
        val_every=5,
        trainable=("policy",),
        loss=LossConfig(latent=0.0, reward=0.0, value=0.0, bc=1.0),
        fresh_policy=True,
    )
    finetune(
        pretrained,
        pendulum_data,
        tmp_path / "ft",
        cfg,
        device=torch.device("cpu"),
        progress=False,
        model_overrides={"policy_ffn_dim": width},
    )
    after = ckpt.load_model(tmp_path / "ft")
    assert after.cfg.policy_ffn_dim == width
    head = {name for name, _ in after.parameter_group("policy")}
    reshaped = {k for k in head if after.state_dict()[k].shape != before.state_dict()[k].shape}
    assert reshaped  # the FFN layers are wider
    for k, v in before.state_dict().items():  # everything but the head: bit-identical
        if k not in head:
            assert torch.equal(v, after.state_dict()[k]), k
    with pytest.raises(ValueError, match=r"cannot change ModelConfig \['policy_ffn_dim'\].*fresh_policy=true"):
        finetune(
            pretrained,
            pendulum_data,
            tmp_path / "x",
            replace(cfg, fresh_policy=False),
            progress=False,
            device=torch.device("cpu"),
            model_overrides={"policy_ffn_dim": width},
        )
    with pytest.raises(ValueError, match="fresh_policy needs 'policy'"):
        finetune(
            pretrained,
            pendulum_data,
            tmp_path / "y",
            replace(cfg, trainable=("dynamics",)),
            progress=False,
            device=torch.device("cpu"),
        )


def test_finetune_adds_a_single_step_head_beside_the_kept_chunk_head(pretrained, pendulum_data, tmp_path):
    from simdist.config import LossConfig

    before = ckpt.load_model(pretrained)
    cfg = FinetuneConfig(
        steps=5,
        batch_size=16,
        warmup_steps=1,
        val_every=5,
        trainable=("policy",),
        loss=LossConfig(latent=0.0, reward=0.0, value=0.0, bc=1.0),
    )
    finetune(
        pretrained,
        pendulum_data,
        tmp_path / "ft",
        cfg,
        device=torch.device("cpu"),
        progress=False,
        model_overrides={"policy_step_width": 8},
    )
    after = ckpt.load_model(tmp_path / "ft")
    assert after.cfg.policy_step_width == 8
    step = {n for n, _ in after.parameter_group("policy") if n.startswith("policy.step.")}
    assert step and not step & set(before.state_dict())
    for k, v in before.state_dict().items():  # the chunk head trains on; everything else is bit-identical
        if not k.startswith(("policy.", "policy_position")):
            assert torch.equal(v, after.state_dict()[k]), k
    assert any(
        not torch.equal(v, after.state_dict()[k]) for k, v in before.state_dict().items() if k.startswith("policy.")
    )
    with pytest.raises(ValueError, match="so does a new single-step head"):
        finetune(
            pretrained,
            pendulum_data,
            tmp_path / "y",
            replace(cfg, trainable=("dynamics",)),
            progress=False,
            device=torch.device("cpu"),
            model_overrides={"policy_step_width": 8},
        )


def test_resume_continues_from_saved_step(pendulum_data, tiny_cfg, tmp_path):
    cfg = TrainConfig(steps=20, batch_size=16, warmup_steps=2, val_every=10, checkpoint_every=10)
    full = pretrain(pendulum_data, tmp_path / "full", tiny_cfg, cfg, device=torch.device("cpu"), progress=False)
    part_cfg = TrainConfig(steps=10, batch_size=16, warmup_steps=2, val_every=10, checkpoint_every=10, decay_steps=20)
    pretrain(pendulum_data, tmp_path / "resumed", tiny_cfg, part_cfg, device=torch.device("cpu"), progress=False)
    cfg20 = TrainConfig(steps=20, batch_size=16, warmup_steps=2, val_every=10, checkpoint_every=10)
    pretrain(pendulum_data, tmp_path / "resumed", tiny_cfg, cfg20, device=torch.device("cpu"), progress=False)
    a, b = ckpt.load_model(full.out_dir), ckpt.load_model(tmp_path / "resumed")
    for k, v in a.state_dict().items():
        assert torch.allclose(v, b.state_dict()[k], atol=1e-5), k


def test_dataset_shape_mismatch_is_rejected(pretrained, tmp_path):
    info = DatasetInfo(task="other", domain="real", control_period_s=0.1, obs_shapes={"proprio": (5,)}, action_dim=1)
    create_dataset(tmp_path / "d", info)
    import numpy as np

    from simdist.data.episodes import Episode

    write_episodes(
        tmp_path / "d", [Episode(obs={"proprio": np.zeros((12, 5), np.float32)}, action=np.zeros((12, 1), np.float32))]
    )
    with pytest.raises(ValueError, match="do not match"):
        finetune(
            pretrained,
            tmp_path / "d",
            tmp_path / "ft",
            FinetuneConfig(steps=1),
            device=torch.device("cpu"),
            progress=False,
        )


def test_sensor_noise_augmentation_needs_a_task_that_documents_it(pendulum_data, tiny_cfg):
    from simdist.config import replace
    from simdist.training.train import build_model, load_windows

    cfg = replace(tiny_cfg, sensor_noise_scale=1.0)
    with pytest.raises(ValueError, match="documents no sensor noise"):
        build_model(cfg, load_windows(pendulum_data, cfg, torch.device("cpu")))


def test_tail_windows_in_pretraining_and_finetuning(pendulum_data, tiny_cfg, pretrained, tmp_path):
    """TrainConfig/FinetuneConfig.tail_windows: every term stays finite (the TD value ablation bootstraps from
    complete windows only), finetuning still moves only what it trains, and the run records the setting."""
    cfg = TrainConfig(steps=6, batch_size=16, warmup_steps=1, val_every=6, checkpoint_every=6, tail_windows=True)
    result = pretrain(pendulum_data, tmp_path / "pre", tiny_cfg, cfg, device=torch.device("cpu"), progress=False)
    assert all(math.isfinite(v) for v in result.train_loss.values()), result.train_loss
    ft = FinetuneConfig(
        steps=5, batch_size=16, warmup_steps=1, val_every=5, trainable=("dynamics", "value"), tail_windows=True
    )
    result = finetune(pretrained, pendulum_data, tmp_path / "ft", ft, device=torch.device("cpu"), progress=False)
    assert all(math.isfinite(v) for v in result.train_loss.values()), result.train_loss
    before, after = ckpt.load_model(pretrained), ckpt.load_model(tmp_path / "ft")
    changed = {k.split(".")[0] for k, v in before.state_dict().items() if not torch.equal(v, after.state_dict()[k])}
    assert changed == {"dynamics", "value", "return_error"}  # the return error is re-measured on the sim labels
    recorded = json.loads((tmp_path / "ft" / "config.json").read_text())
    assert recorded["finetune"]["tail_windows"] is True


@pytest.mark.slow
def test_compiled_training_matches_eager(pendulum_data, tiny_cfg, tmp_path):
    """TrainConfig.compile changes how a step is computed, not what: the same loss and gradients on a batch, and
    the same training run to float rounding (without dropout, whose masks the compiled graph draws differently)."""
    from simdist.model.loss import world_model_loss
    from simdist.training.train import build_model, load_windows

    tiny_cfg = replace(tiny_cfg, attention_dropout=0.0)
    cfg = TrainConfig(steps=4, batch_size=16, warmup_steps=2, val_every=4, checkpoint_every=4)
    data = load_windows(pendulum_data, tiny_cfg, torch.device("cpu"))
    model = build_model(tiny_cfg, data)
    batch = data.batch(torch.arange(16).numpy())
    grads = []
    for forward in (model, torch.compile(model)):
        model.zero_grad()
        loss, _ = world_model_loss(forward, batch, cfg.loss)
        loss.backward()
        grads.append(
            (float(loss.detach()), {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None})
        )
    (eager_loss, eager_grads), (fast_loss, fast_grads) = grads
    assert fast_loss == pytest.approx(eager_loss, rel=1e-5) and eager_grads.keys() == fast_grads.keys()
    for name, g in eager_grads.items():
        assert torch.allclose(g, fast_grads[name], rtol=1e-3, atol=1e-6), name
    eager = pretrain(pendulum_data, tmp_path / "eager", tiny_cfg, cfg, device=torch.device("cpu"), progress=False)
    fast = pretrain(
        pendulum_data,
        tmp_path / "compiled",
        tiny_cfg,
        replace(cfg, compile=True),
        device=torch.device("cpu"),
        progress=False,
    )
    assert json.loads((tmp_path / "compiled" / "config.json").read_text())["train"]["compile"] is True
    assert fast.train_loss["total"] == pytest.approx(eager.train_loss["total"], rel=1e-4)


def test_an_unknown_compile_mode_fails_before_any_step(pendulum_data, tiny_cfg, tmp_path):
    """TrainConfig.compile_mode reaches torch.compile (e.g. "reduce-overhead", CUDA graphs on a GPU); a typo stops
    the run with torch's list of modes before a step is taken or a checkpoint written."""
    cfg = TrainConfig(
        steps=4, batch_size=16, warmup_steps=2, val_every=4, checkpoint_every=4, compile=True, compile_mode="fastest"
    )
    with pytest.raises(ValueError, match="'fastest'.*reduce-overhead"):
        pretrain(pendulum_data, tmp_path / "run", tiny_cfg, cfg, device=torch.device("cpu"), progress=False)
    assert not (tmp_path / "run" / "model.safetensors").exists()
    assert not (tmp_path / "run" / "metrics.jsonl").exists()


def test_pretraining_measures_the_return_error_that_a_robot_finetune_keeps(pretrained, pendulum_data, tmp_path):
    """The planner's gate needs the model's own return error: pretraining measures it on held-out simulation
    windows; a dynamics finetune on unlabelled robot logs cannot, and keeps the pretrained figure; a checkpoint
    saved before the measurement existed loads as 'not measured' (0)."""
    model = ckpt.load_model(pretrained)
    assert 0 < float(model.return_error) < math.inf
    real = real_like_dataset(pendulum_data, tmp_path / "real")
    tuned = finetune(pretrained, real, tmp_path / "ft", FinetuneConfig(steps=3, batch_size=8), progress=False)
    assert float(ckpt.load_model(tuned.out_dir).return_error) == float(model.return_error)
    old = tmp_path / "old"
    old.mkdir()
    (old / "config.json").write_text((pretrained / "config.json").read_text())
    state = {k: v.contiguous() for k, v in model.state_dict().items() if k != "return_error"}
    save_file(state, str(old / "model.safetensors"))
    assert float(ckpt.load_model(old).return_error) == 0.0


def test_a_finetune_in_epochs_passes_over_the_real_data_that_often(pretrained, pendulum_data, tmp_path):
    cfg = FinetuneConfig(steps=7, batch_size=16, warmup_steps=50, sim_replay_fraction=0.5, epochs=2.0)
    assert steps_for_epochs(cfg, 100).steps == 25 and steps_for_epochs(cfg, 100).warmup_steps == 2  # 2 x 100 / 8
    assert steps_for_epochs(replace(cfg, epochs=None), 100).steps == 7
    with pytest.raises(ValueError, match="finetune.epochs is a positive number"):
        FinetuneConfig(epochs=0)
    real = real_like_dataset(pendulum_data, tmp_path / "real")
    finetune(
        pretrained,
        real,
        tmp_path / "ft",
        FinetuneConfig(steps=1000, batch_size=16, warmup_steps=2, val_every=1000, epochs=0.5),
        device=torch.device("cpu"),
        progress=False,
    )
    recorded = json.loads((tmp_path / "ft" / "config.json").read_text())["finetune"]
    assert recorded["epochs"] == 0.5 and 0 < recorded["steps"] < 1000  # half a pass, not the 1,000 steps asked
