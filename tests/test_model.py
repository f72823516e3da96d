import pytest
import torch

from simdist.config import MODEL_PRESETS, LossConfig, ModelConfig, model_preset, replace
from simdist.model.loss import bc_mask, world_model_loss
from simdist.model.normalizer import Normalizer
from simdist.model.world_model import ModelSpec, WorldModel

SPECS = {
    "proprio": ModelSpec({"proprio": (7,)}, action_dim=3, action_low=(-1,) * 3, action_high=(1,) * 3),
    "height+command": ModelSpec({"proprio": (35,), "height": (21, 15)}, action_dim=12, command_dim=3),
}


def batch_for(model: WorldModel, B: int = 3) -> dict:
    spec, H, T = model.spec, model.cfg.history, model.cfg.horizon
    b = {
        "obs": {k: torch.randn(B, *s) for k, s in spec.obs_shapes.items()},
        "hist_proprio": torch.randn(B, H, spec.obs_shapes["proprio"][0]),
        "hist_action": torch.randn(B, H, spec.action_dim),
        "actions": torch.randn(B, T, spec.action_dim),
        "future_obs": {k: torch.randn(B, T, *s) for k, s in spec.obs_shapes.items()},
        "rewards": torch.randn(B, T),
        "values": torch.randn(B, T),
        "expert": torch.ones(B, T),
        "labelled": torch.ones(B),
        "bc_labelled": torch.ones(B),
    }
    if spec.command_dim:
        b["commands"] = torch.randn(B, T + 1, spec.command_dim)
    return b


@pytest.mark.parametrize("preset", sorted(MODEL_PRESETS))
@pytest.mark.parametrize("spec_name", sorted(SPECS))
def test_shapes_for_every_preset(preset, spec_name):
    model = WorldModel(model_preset(preset), SPECS[spec_name])
    T, d, A = model.cfg.horizon, model.cfg.latent_dim, model.spec.action_dim
    out = model(batch_for(model))
    assert out["zhat"].shape == (3, T, d) and out["z_target"].shape == (3, T, d)
    assert out["reward"].shape == (3, T) and out["value"].shape == (3, T)
    assert out["policy"].shape == (3, T, A)
    assert not out["z_target"].requires_grad  # stop-gradient target


def test_paper_quadruped_size_matches_authors():
    # The authors' checkpoint has ≈668k parameters; ours adds one 64×64 dynamics read-out (4.2k).
    model = WorldModel(model_preset("paper-quadruped"), SPECS["height+command"])
    n = sum(p.numel() for p in model.parameters())
    assert 660_000 < n < 680_000


def test_dynamics_is_causal_in_actions():
    torch.manual_seed(0)
    model = WorldModel(model_preset("cpu"), SPECS["proprio"]).eval()
    b = batch_for(model, 1)
    z1 = model(b)["zhat"]
    b["actions"][:, -1] += 5.0  # changing the last action must not change earlier predicted latents
    z2 = model(b)["zhat"]
    assert torch.allclose(z1[:, :-1], z2[:, :-1], atol=1e-5)
    assert not torch.allclose(z1[:, -1], z2[:, -1])


@pytest.mark.parametrize("sees_actions", [True, False])
def test_policy_without_action_history_ignores_past_actions_only(sees_actions):
    from simdist.config import replace

    torch.manual_seed(0)
    model = WorldModel(replace(model_preset("cpu"), policy_sees_actions=sees_actions), SPECS["proprio"]).eval()
    b = batch_for(model, 2)
    before = model(b)
    b["hist_action"] += 3.0
    after = model(b)
    assert torch.equal(before["policy"], after["policy"]) is (not sees_actions)
    assert not torch.allclose(before["zhat"], after["zhat"])  # the dynamics still reads the past actions
    ctx = model.planning_context({k: v[:1] for k, v in b["obs"].items()}, b["hist_proprio"][:1], b["hist_action"][:1])
    assert torch.allclose(model.plan_policy_n(ctx)[0], after["policy"][0], atol=1e-5)
    b["hist_proprio"] += 3.0
    assert not torch.allclose(model(b)["policy"], after["policy"])  # it still reads the proprio history


def test_a_removed_field_at_its_old_value_still_loads_and_any_other_value_is_refused():
    """Saved configs (checkpoints, recorded run settings) may hold fields removed since, at the value that left them
    off; they read as before. Set to anything else, the config is refused with the field named."""
    from simdist.config import from_dict, to_dict
    from simdist.overrides import without_removed_fields

    saved = {**to_dict(model_preset("cpu")), "policy_action_dropout": 0.0}
    assert from_dict(ModelConfig, saved) == model_preset("cpu")
    with pytest.raises(KeyError, match="policy_action_dropout"):
        from_dict(ModelConfig, {**saved, "policy_action_dropout": 0.5})
    assert from_dict(LossConfig, {**to_dict(LossConfig()), "bc_mu": 0.0}) == LossConfig()
    assert without_removed_fields({"finetune": {"loss": {"bc": 1.0, "bc_mu": 0.0}}}) == {
        "finetune": {"loss": {"bc": 1.0}}
    }


def test_policy_without_history_reads_only_the_current_latent():
    from simdist.config import replace

    torch.manual_seed(0)
    model = WorldModel(replace(model_preset("cpu"), policy_sees_history=False), SPECS["proprio"]).eval()
    b = batch_for(model, 2)
    before = model(b)
    b["hist_action"] += 3.0
    b["hist_proprio"] += 3.0
    assert torch.equal(before["policy"], model(b)["policy"])
    b["obs"]["proprio"] += 3.0
    assert not torch.allclose(before["policy"], model(b)["policy"])


def test_policy_ffn_width_is_the_policy_heads_own(tmp_path):
    from simdist.config import replace
    from simdist.training import checkpoint as ckpt

    cfg = model_preset("cpu")
    wide = WorldModel(replace(cfg, policy_ffn_dim=3 * cfg.ffn_dim), SPECS["proprio"])
    narrow = WorldModel(cfg, SPECS["proprio"])
    widths = lambda m, group: {p.shape for n, p in m.parameter_group(group) if p.dim() == 2}
    assert widths(wide, "dynamics") == widths(narrow, "dynamics")  # the planner's cost is untouched
    assert (cfg.latent_dim, 3 * cfg.ffn_dim) in widths(wide, "policy")
    assert (cfg.latent_dim, 3 * cfg.ffn_dim) not in widths(narrow, "policy")
    ckpt.save_model(tmp_path, wide)
    assert ckpt.load_model(tmp_path).cfg.policy_ffn_dim == 3 * cfg.ffn_dim
    # and z_t as the BC head reads it is the context's last token
    z = torch.randn(2, cfg.latent_dim)
    ctx = wide.context_n(z, torch.zeros(2, cfg.history, 7), torch.zeros(2, cfg.history, 3))
    assert torch.equal(wide.latent_token(z), ctx[:, -1:])


def test_planning_path_matches_training_path():
    torch.manual_seed(0)
    model = WorldModel(model_preset("cpu"), SPECS["height+command"]).eval()
    b = batch_for(model, 1)
    out = model(b)
    ctx = model.planning_context(b["obs"], b["hist_proprio"], b["hist_action"], b["commands"][:, 0])
    b["commands"][:] = b["commands"][:, :1]  # the planner holds the command constant
    out = model(b)
    actions_n = model.normalizer.normalize("action", b["actions"])
    rewards = model.normalizer.denormalize("reward", out["reward"])[0]
    values = model.normalizer.denormalize("value", out["value"])[0]
    g = 0.9 ** torch.arange(model.cfg.horizon + 1, dtype=torch.float32)
    expected = (rewards * g[:-1]).sum() + g[-1] * values[-1]
    assert torch.allclose(model.plan_returns_n(ctx, actions_n, 0.9)[0], expected, atol=1e-4)
    # MPPIConfig.value_weight scales the terminal value alone
    reweighted = expected - 0.7 * g[-1] * values[-1]
    assert torch.allclose(model.plan_returns_n(ctx, actions_n, 0.9, value_weight=0.3)[0], reweighted, atol=1e-4)


def test_bc_mask_is_cumulative_product():
    flags = torch.tensor([[1, 1, 0, 1, 1], [1, 1, 1, 1, 1], [0, 1, 1, 1, 1]])
    assert bc_mask(flags).tolist() == [[1, 1, 0, 0, 0], [1, 1, 1, 1, 1], [0, 0, 0, 0, 0]]


def test_loss_masks_bc_and_unlabelled_windows():
    torch.manual_seed(0)
    model = WorldModel(model_preset("cpu"), SPECS["proprio"])
    b = batch_for(model, 4)
    b["expert"][:] = 0
    _, logs = world_model_loss(model, b, LossConfig())
    assert logs["bc"] == 0.0
    b["labelled"][:] = 0
    b["bc_labelled"][:] = 0  # real data: no reward/value/flags → only the latent term remains
    b["rewards"][:] = float("nan")  # missing labels must not poison the loss
    b["values"][:] = float("nan")
    total, logs = world_model_loss(model, b, LossConfig())
    assert logs["reward"] == logs["value"] == logs["bc"] == 0.0
    assert torch.isclose(total, torch.tensor(logs["latent"]))


def test_latent_term_counts_only_the_steps_inside_the_episode():
    """A tail window (data/windows.py) masks its predictions past the episode's end: whatever the targets there,
    the latent term is the mean over the valid steps; with every step valid it is the plain mean."""
    torch.manual_seed(0)
    model = WorldModel(model_preset("cpu"), SPECS["proprio"]).eval()
    b = batch_for(model, 4)
    T = b["actions"].shape[1]
    _, plain = world_model_loss(model, b, LossConfig())
    _, all_valid = world_model_loss(model, {**b, "future_valid": torch.ones(4, T)}, LossConfig())
    assert all_valid["latent"] == pytest.approx(plain["latent"], rel=1e-6)
    valid = torch.ones(4, T)
    valid[:, T // 2 :] = 0
    moved = {g: v.clone() for g, v in b["future_obs"].items()}
    for v in moved.values():
        v[:, T // 2 :] += 100.0  # targets past the end: must not count
    _, masked = world_model_loss(model, {**b, "future_valid": valid}, LossConfig())
    _, masked_moved = world_model_loss(model, {**b, "future_valid": valid, "future_obs": moved}, LossConfig())
    assert masked["latent"] == pytest.approx(masked_moved["latent"], rel=1e-6)
    _, unmasked_moved = world_model_loss(model, {**b, "future_obs": moved}, LossConfig())
    assert unmasked_moved["latent"] > 10 * plain["latent"]


def test_bc_term_targets_the_labels_and_the_rest_the_executed_actions():
    """DAgger windows carry the expert's labels (bc_actions) besides the executed actions: only the BC term moves."""
    torch.manual_seed(0)
    model = WorldModel(model_preset("cpu"), SPECS["proprio"]).eval()
    b = batch_for(model, 4)
    b["expert"][:] = 1
    b["bc_labelled"][:] = 1
    _, own = world_model_loss(model, b, LossConfig())
    _, same = world_model_loss(model, {**b, "bc_actions": b["actions"].clone()}, LossConfig())
    _, labelled = world_model_loss(model, {**b, "bc_actions": b["actions"] + 1.0}, LossConfig())
    assert same == own
    assert labelled["bc"] != own["bc"] and {k: v for k, v in labelled.items() if k not in ("bc", "total")} == {
        k: v for k, v in own.items() if k not in ("bc", "total")
    }


def test_bc_first_step_weight_adds_the_first_actions_error_alone():
    """LossConfig.bc_first_step: the chunk mean plus w × the first step's error (the action a deployed head executes);
    an error in a later step of the chunk is unaffected by w."""
    torch.manual_seed(0)
    model = WorldModel(model_preset("cpu"), SPECS["proprio"]).eval()
    b = batch_for(model, 4)
    b["expert"][:] = 1
    b["bc_labelled"][:] = 1
    loss = lambda batch, w: world_model_loss(model, batch, LossConfig(bc_first_step=w))[1]["bc"]  # noqa: E731
    exact = {**b, "bc_actions": model.normalizer.denormalize("action", model(b)["policy"]).detach()}
    moved = {**exact, "bc_actions": exact["bc_actions"].clone()}
    moved["bc_actions"][:, 1] += 1.0  # only a later step is wrong: the first-step weight adds nothing
    assert loss(exact, 5.0) < 1e-6 and abs(loss(moved, 5.0) - loss(moved, 0.0)) < 1e-6
    moved["bc_actions"][:, 0] += 1.0  # now the first is wrong too: it counts 1/T + w
    assert loss(moved, 5.0) > loss(moved, 0.0) + 1e-3


def test_single_step_head_deploys_its_action_and_is_trained_on_the_first_label():
    """ModelConfig.policy_step_width: an MLP on (z_t, g_t) beside the chunk; its action replaces the chunk's first for
    planning and deployment, and the BC term adds its error on the first label under the same expert mask."""
    torch.manual_seed(0)
    cfg = replace(model_preset("cpu"), policy_step_width=16)
    model = WorldModel(cfg, SPECS["height+command"]).eval()
    assert {n for n, _ in model.parameter_group("policy") if n.startswith("policy.step.")}  # frozen with the head
    b = batch_for(model, 4)
    out = model(b)
    assert out["policy_step"].shape == (4, 12)
    ctx = model.planning_context(
        {k: v[:1] for k, v in b["obs"].items()}, b["hist_proprio"][:1], b["hist_action"][:1], b["commands"][:1, 0]
    )
    plan = model.plan_policy_n(ctx)
    command_n = model.normalizer.normalize("command", b["commands"][:1, :1])
    assert torch.allclose(plan[0, 0], model.step_policy_n(ctx.z, command_n)[0], atol=1e-6)
    assert torch.allclose(plan[:, 1:], model.policy_n(ctx.policy_kv, 1, ctx.command_n)[:, 1:])
    exact = {**b, "bc_actions": model.normalizer.denormalize("action", out["policy"]).detach()}
    _, logs = world_model_loss(model, exact, LossConfig())
    assert logs["bc_step"] > 1e-3 and abs(logs["bc"] - logs["bc_step"]) < 1e-5  # the chunk is exact, the step not
    corrupted = {**exact, "expert": exact["expert"].clone()}
    corrupted["expert"][:, 0] = 0  # a corrupted first action: neither head clones it
    assert world_model_loss(model, corrupted, LossConfig())[1]["bc_step"] == 0.0
    total, _ = world_model_loss(model, b, LossConfig())
    total.backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in model.policy["step"].parameters())


def test_normalizer_round_trip_and_floor():
    norm = Normalizer({"x": (3,)})
    norm.set_stats("x", [1.0, 2.0, 3.0], [2.0, 0.0, 0.5])
    x = torch.randn(5, 3)
    assert torch.allclose(norm.denormalize("x", norm.normalize("x", x)), x, atol=1e-6)
    assert norm.x_std[1] > 0  # a constant dimension never divides by zero
    with pytest.raises(ValueError, match="NaN"):
        norm.set_stats("x", [float("nan")] * 3, [1.0] * 3)
    with pytest.raises(KeyError, match="fields"):
        norm.normalize("y", x)


def test_config_errors_list_valid_names():
    with pytest.raises(KeyError, match="valid presets"):
        model_preset("huge")
    with pytest.raises(ValueError, match="divisible"):
        ModelConfig(latent_dim=30)


def test_every_model_preset_has_training_and_finetuning_presets():
    from simdist.config import finetune_preset, train_preset

    for name in MODEL_PRESETS:  # `--preset NAME` must work for pretrain, finetune and adapt alike
        assert train_preset(name).steps > 0 and finetune_preset(name).trainable == ("dynamics",)
    assert model_preset("quadruped-cpu").horizon == model_preset("paper-quadruped").horizon == 25
    with pytest.raises(KeyError, match="valid presets"):
        model_preset("nope")


@pytest.mark.parametrize(
    "name, task_name",
    [
        ("quadruped-cpu", "slippery-slope"),
        ("quadruped-lowfric", "slippery-slope"),
        ("quadruped-lowfric-history", "slippery-slope"),
        ("quadruped-foam-dagger", "foam"),
    ],
)
def test_shipped_quadruped_model_walks_in_sim(name, task_name):
    """A shipped quadruped model loads (weights, normaliser, config) and its BC head crosses the sim slope or pads."""
    from pathlib import Path

    from simdist.planning.agent import PolicyAgent
    from simdist.rollout import rollout
    from simdist.tasks.registry import get_task
    from simdist.training.checkpoint import load_model

    root = Path(__file__).resolve().parents[1] / "checkpoints" / name
    model = load_model(root)
    assert model.cfg.horizon == 25 and model.cfg.policy_sees_history == name.endswith("-history")
    task = get_task(task_name)
    ics = task.initial_conditions("0.5" if task_name == "slippery-slope" else "0.7", 1, seed=0)
    result = rollout(task, task.make_env("sim", seed=0), PolicyAgent(model), ics, seed=0)
    assert result.summary(task.spec.control_period_s)["success_rate"] == 1.0


def test_sensor_noise_reaches_the_inputs_in_training_only_and_never_the_targets(tmp_path):
    from simdist.training import checkpoint as ckpt

    spec = ModelSpec(
        {"proprio": (3,), "height": (2, 2)},
        action_dim=2,
        sensor_noise_std={"proprio": (0.5, 0.0, 1.0), "height": (0.2,)},
    )
    quiet = replace(model_preset("cpu"), attention_dropout=0.0, mlp_dropout=0.0)  # noise the only randomness
    batch = batch_for(WorldModel(quiet, spec), B=2)
    for scale, noisy_in_training in ((1.0, True), (0.0, False)):
        model = WorldModel(replace(quiet, sensor_noise_scale=scale), spec).train()
        a, b = model(batch), model(batch)
        assert torch.equal(a["z_target"], b["z_target"])  # stop-gradient targets: clean future observations
        assert torch.equal(a["zhat"], b["zhat"]) != noisy_in_training
        model.eval()
        assert torch.equal(model(batch)["zhat"], model(batch)["zhat"])  # evaluation and planning never see it
    ckpt.save_model(tmp_path / "m", model)
    assert ckpt.load_model(tmp_path / "m").spec.sensor_noise_std == spec.sensor_noise_std


def test_add_sensor_noise_uses_raw_units_per_element():
    from simdist.model.augment import add_sensor_noise

    obs = {"proprio": torch.zeros(50_000, 3), "height": torch.zeros(50_000, 2, 2), "command": torch.ones(50_000, 3)}
    noised = add_sensor_noise(obs, {"proprio": (0.5, 0.0, 1.0), "height": (0.2,)}, scale=2.0)
    assert torch.allclose(noised["proprio"].std(0), torch.tensor([1.0, 0.0, 2.0]), atol=0.02)
    assert torch.allclose(noised["height"].std(0), torch.full((2, 2), 0.4), atol=0.02)
    assert torch.equal(noised["command"], obs["command"])  # commands are not sensed
    assert all(torch.equal(add_sensor_noise(obs, {"proprio": (1.0,)}, 0.0)[k], v) for k, v in obs.items())
    with pytest.raises(ValueError, match="documents no sensor noise"):
        add_sensor_noise(obs, {}, 1.0)


def test_task_spec_rejects_sensor_noise_for_unknown_groups():
    from simdist.tasks.base import TaskSpec

    with pytest.raises(ValueError, match="unknown groups"):
        TaskSpec("t", {"proprio": (2,)}, 1, (-1.0,), (1.0,), 0.1, 10, sensor_noise_std={"camera": (0.1,)})
    with pytest.raises(ValueError, match="give 1 or 2"):
        TaskSpec("t", {"proprio": (2,)}, 1, (-1.0,), (1.0,), 0.1, 10, sensor_noise_std={"proprio": (0.1, 0.1, 0.1)})


def test_group_offset_is_one_constant_per_window_and_reaches_training_inputs_only():
    from simdist.model.augment import add_group_offset

    obs = {"proprio": torch.zeros(20_000, 3), "height": torch.zeros(20_000, 2, 2)}
    shifted = add_group_offset(obs, "height", 0.05)
    per_window = shifted["height"].reshape(20_000, -1)
    assert torch.equal(per_window, per_window[:, :1].expand_as(per_window))  # the whole scan moves together
    assert abs(float(per_window[:, 0].std()) - 0.05) < 0.002
    assert torch.equal(shifted["proprio"], obs["proprio"])
    with pytest.raises(ValueError, match="not an observation group"):
        add_group_offset(obs, "camera", 0.05)

    spec = ModelSpec({"proprio": (3,), "height": (2, 2)}, action_dim=2)
    quiet = replace(model_preset("cpu"), attention_dropout=0.0, mlp_dropout=0.0)
    batch = batch_for(WorldModel(quiet, spec), B=2)
    model = WorldModel(replace(quiet, input_offset_group="height", input_offset_std=0.1), spec).train()
    a, b = model(batch), model(batch)
    assert torch.equal(a["z_target"], b["z_target"]) and not torch.equal(a["zhat"], b["zhat"])
    model.eval()
    assert torch.equal(model(batch)["zhat"], model(batch)["zhat"])
    with pytest.raises(ValueError, match="not an observation group"):
        WorldModel(replace(quiet, input_offset_group="camera", input_offset_std=0.1), spec)


def test_shipped_peg_model_seats_the_peg_in_sim():
    """checkpoints/peg-insertion fits its task, is refused by the tool-frame variant, and its BC head seats the peg
    from most Narrow starts (`sim`; about three quarters of them): at least 2 of the first 4."""
    from pathlib import Path

    from simdist.planning.agent import PolicyAgent
    from simdist.tasks.registry import get_task
    from simdist.training.checkpoint import CheckpointError, check_model_fits_task, load_model

    root = Path(__file__).resolve().parents[1] / "checkpoints" / "peg-insertion"
    model, task = load_model(root), get_task("peg-insertion")
    check_model_fits_task(model, task, root)
    with pytest.raises(CheckpointError, match="action frame"):
        check_model_fits_task(model, get_task("peg-insertion-tool-frame"), root)
    env, agent, seated_trials = task.make_env("sim", seed=0), PolicyAgent(model), 0
    for i, ic in enumerate(task.initial_conditions("narrow", 4, seed=0)):
        obs, _ = env.reset(seed=i, options={"initial_condition": ic})
        agent.reset()
        for _ in range(task.spec.episode_steps):
            obs, _, seated, truncated, _ = env.step(agent.act(obs))
            if seated or truncated:
                break
        seated_trials += bool(seated)
    assert seated_trials >= 2
