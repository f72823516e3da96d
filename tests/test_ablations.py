"""Fig. 10 unfreezing ablations: the value TD term (model/value_td.py) and `simdist ablate` finetuning variants."""

import json

import pytest
import torch

from simdist.cli import main
from simdist.config import FinetuneConfig, TrainConfig
from simdist.experiments.ablations import ABLATIONS, run_ablations
from simdist.model.value_td import discounted_targets, follow, value_target_network, value_td_loss, value_td_terms
from simdist.model.world_model import VALUE
from simdist.training import checkpoint as ckpt
from simdist.training.finetune import finetune, set_trainable
from simdist.training.train import load_windows

GAMMA = 0.9


@pytest.fixture()
def model_and_batch(pretrained, pendulum_data):
    model = ckpt.load_model(pretrained)
    data = load_windows(pendulum_data, model.cfg, torch.device("cpu"))
    return model, data.batch(torch.arange(16).numpy())


def _groups_with_grad(model) -> set[str]:
    return {n.split(".")[0] for n, p in model.named_parameters() if p.grad is not None and p.grad.abs().sum() > 0}


def test_discounted_targets_are_n_step_returns():
    r = torch.tensor([[1.0, 2.0, 3.0]])
    got = discounted_targets(r, torch.tensor([10.0]), GAMMA)
    want = [1 + GAMMA * 2 + GAMMA**2 * 3 + GAMMA**3 * 10, 2 + GAMMA * 3 + GAMMA**2 * 10, 3 + GAMMA * 10]
    assert torch.allclose(got, torch.tensor([want]))


@pytest.mark.parametrize("trainable", [("dynamics", "value"), ("encoder", "dynamics", "reward", "value", "policy")])
def test_value_td_gradient_reaches_the_value_head_only(model_and_batch, trainable):
    model, batch = model_and_batch
    set_trainable(model, trainable)
    target = value_target_network(model)
    value_td_loss(model, target, batch, GAMMA).backward()
    assert _groups_with_grad(model) == {"value"}  # nothing frozen, and no other trainable group, is pushed
    frozen = [p for n, p in model.named_parameters() if not n.startswith(trainable)]
    assert all(p.grad is None for p in frozen)
    assert all(p.grad is None for p in target.parameters())


def test_value_td_drives_the_value_to_a_constructed_target(model_and_batch):
    model, batch = model_and_batch
    norm = model.normalizer
    norm.set_stats("reward", [0.5], [2.0])
    norm.set_stats(VALUE, [3.0], [4.0])
    with torch.no_grad():  # r̂ ≡ 0.25 (normalised) → 1.0 raw; V̄ ≡ 1.5 (normalised) → 9.0 raw
        model.reward.out.weight.zero_()
        model.reward.out.bias.fill_(0.25)
        target = value_target_network(model)
        target.out.weight.zero_()
        target.out.bias.fill_(1.5)
    T = model.cfg.horizon
    want = torch.tensor([sum(GAMMA**k for k in range(T - i)) * 1.0 + GAMMA ** (T - i) * 9.0 for i in range(T)])
    _, tgt = value_td_terms(model, target, batch, GAMMA)
    assert torch.allclose(norm.denormalize(VALUE, tgt), want.expand_as(tgt), atol=1e-5)

    params = set_trainable(model, ("value",))
    model.eval()
    opt = torch.optim.Adam(params, lr=3e-3)
    first = float(value_td_loss(model, target, batch, GAMMA).detach())
    for _ in range(300):
        opt.zero_grad()
        value_td_loss(model, target, batch, GAMMA).backward()
        opt.step()
    pred, _ = value_td_terms(model, target, batch, GAMMA)
    assert float(value_td_loss(model, target, batch, GAMMA).detach()) < 0.01 * first
    assert torch.allclose(norm.denormalize(VALUE, pred.detach()), want.expand_as(pred), atol=0.3)


@pytest.mark.parametrize("rate", [0.0, 0.1])
def test_a_following_target_carries_the_reward_past_the_horizon(model_and_batch, rate):
    """r̂ ≡ 1: a frozen bootstrap (V̄ ≡ 3) settles at the T-step return plus γ^T V̄; a target that follows the head
    (FinetuneConfig.value_iterations) reaches the infinite-horizon value 1 / (1 − γ)."""
    model, batch = model_and_batch
    norm = model.normalizer
    norm.set_stats("reward", [0.5], [2.0])
    norm.set_stats(VALUE, [3.0], [4.0])
    with torch.no_grad():  # r̂ ≡ 1.0 raw; V ≡ 3.0 raw to start with
        model.reward.out.weight.zero_()
        model.reward.out.bias.fill_(0.25)
        model.value.out.weight.zero_()
        model.value.out.bias.zero_()
    target = value_target_network(model)
    params = set_trainable(model, ("value",))
    model.eval()
    opt = torch.optim.Adam(params, lr=1e-2)
    for _ in range(600):
        if rate:
            follow(target, model.value, rate)
        opt.zero_grad()
        value_td_loss(model, target, batch, GAMMA).backward()
        opt.step()
    pred, _ = value_td_terms(model, target, batch, GAMMA)
    T = model.cfg.horizon
    want = 1 / (1 - GAMMA) if rate else (1 - GAMMA**T) / (1 - GAMMA) + GAMMA**T * 3.0
    assert float(norm.denormalize(VALUE, pred.detach())[:, 0].mean()) == pytest.approx(want, abs=0.3)


def _changed_groups(a, b) -> set[str]:  # weights only: the return error is a measurement, re-taken on sim labels
    return {
        k.split(".")[0]
        for k, v in a.state_dict().items()
        if k != "return_error" and not torch.equal(v, b.state_dict()[k])
    }


def test_finetune_uses_the_td_term_only_when_the_value_is_trainable(pretrained, pendulum_data, tmp_path):
    before = ckpt.load_model(pretrained)
    for trainable, expect in (
        (("dynamics",), {"dynamics"}),
        (("dynamics", "value"), {"dynamics", "value"}),
        (("dynamics", "encoder"), {"dynamics", "encoder"}),
    ):
        out = tmp_path / "+".join(trainable)
        cfg = FinetuneConfig(steps=5, batch_size=16, warmup_steps=1, val_every=5, trainable=trainable)
        finetune(pretrained, pendulum_data, out, cfg, device=torch.device("cpu"), progress=False)
        assert _changed_groups(before, ckpt.load_model(out)) == expect
        row = json.loads((out / "metrics.jsonl").read_text().splitlines()[-1])
        assert ("train/value_td" in row) == ("value" in trainable)
        assert ("value_td" in json.loads((out / "config.json").read_text())) == ("value" in trainable)
    # value_iterations wires the following target in: the same finetune ends with another value head
    cfg = FinetuneConfig(
        steps=5, batch_size=16, warmup_steps=1, val_every=5, trainable=("dynamics", "value"), value_iterations=5
    )
    finetune(pretrained, pendulum_data, tmp_path / "following", cfg, device=torch.device("cpu"), progress=False)
    frozen, following = (ckpt.load_model(tmp_path / d) for d in ("dynamics+value", "following"))
    assert _changed_groups(frozen, following) == {"value"}


def test_unknown_ablation_lists_valid_names(pendulum_data, tmp_path, caplog):
    with pytest.raises(KeyError, match="unfreeze-value"):
        run_ablations(None, pendulum_data, tmp_path, ["unfreeze-brain"], None, TrainConfig(), "cpu")
    assert (
        main(
            [
                "ablate",
                "pendulum",
                "--sim-data",
                str(pendulum_data),
                "--out",
                str(tmp_path / "x"),
                "--variants",
                "unfreeze-brain",
                "--json",
            ]
        )
        == 2
    )
    assert "unfreeze-encoder" in caplog.text
    assert ABLATIONS["unfreeze-encoder"].trainable == ("dynamics", "encoder")


@pytest.mark.slow
def test_ablate_runs_unfreezing_variants_from_one_checkpoint(pretrained, pendulum_data, tmp_path, capsys):
    out = tmp_path / "ab"
    argv = [
        "ablate",
        "pendulum",
        "--sim-data",
        str(pendulum_data),
        "--out",
        str(out),
        "--checkpoint",
        str(pretrained),
        "--variants",
        "unfreeze-encoder,unfreeze-value",
        "--rounds",
        "1",
        "--episodes-per-round",
        "2",
        "--finetune-steps",
        "4",
        "--prior-weight",
        "0.5",
        "--grid",
        "all",
        "--json",
        "--quiet",
    ]
    assert main(argv) == 0
    res = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert res["ablations"] == {}  # no Table I variant requested, nothing pretrained
    assert not (out / "simdist").exists()
    ft = res["finetune_ablations"]
    assert list(ft["variants"]) == ["dynamics-only", "unfreeze-encoder", "unfreeze-value"]  # reference first
    for name, r in ft["variants"].items():
        assert len(r["success_per_round"]["0"]) == 2 and r["trainable"] == list(ABLATIONS[name].trainable)
        cfg = json.loads((out / name / "seed_0" / "adapt_config.json").read_text())
        assert cfg["finetune"]["trainable"] == r["trainable"] and cfg["pretrained"] == str(pretrained)
        assert cfg["mppi"]["prior_weight"] == 0.5 and cfg["adapt"]["grid"] == "all"
    base = ckpt.load_model(pretrained)
    changed = {
        n: _changed_groups(base, ckpt.load_model(out / n / "seed_0" / "round_01" / "model")) for n in ft["variants"]
    }
    assert changed == {
        "dynamics-only": {"dynamics"},
        "unfreeze-encoder": {"dynamics", "encoder"},
        "unfreeze-value": {"dynamics", "value"},
    }
    shift = {n: r["final_model_shift"]["0"] for n, r in ft["variants"].items()}
    assert shift["dynamics-only"] == {"latent_shift": 0.0, "value_shift": 0.0}
    assert shift["unfreeze-encoder"]["latent_shift"] > 0 and shift["unfreeze-encoder"]["value_shift"] > 0
    assert shift["unfreeze-value"]["latent_shift"] == 0 and shift["unfreeze-value"]["value_shift"] > 0
    table = (out / "finetune_ablations.md").read_text()
    assert "| unfreeze-value | dynamics+value | 0 |" in table
    assert res["plot"] == "ablations.png" and (out / "ablations.png").stat().st_size > 0
    assert "![ablations](ablations.png)" in table
    assert main(argv) == 0  # resumes: every episode and finetune is reused
    again = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert again["finetune_ablations"] == ft


def test_ablation_plot_shows_progress_with_a_confidence_band(tmp_path):
    from simdist.eval.comparison import _mean_ci, write_ablation_plot

    mean, ci = _mean_ci({"0": [0.0, 1.0], "1": [0.0, 0.0]})
    assert mean == [0.0, 0.5] and ci[0] == 0.0 and ci[1] == pytest.approx(1.96 * 0.5 / 2**0.5)  # std 0.5 of 2
    assert _mean_ci({"0": [0.2, 0.4]}) == ([0.2, 0.4], [0.0, 0.0])  # one seed: no band
    variant = {"success_per_round": {"0": [0.0, 0.1]}, "progress_per_round": {"0": [1.2, 1.5]}}
    summary = {
        "ablations": {"data-10": {"success_rate": 0.3}},
        "finetune_ablations": {"variants": {"dynamics-only": variant}},
    }
    assert write_ablation_plot(tmp_path, summary) == "ablations.png"
    assert (tmp_path / "ablations.png").stat().st_size > 0
    assert write_ablation_plot(tmp_path / "none", {"ablations": {}}) is None


def test_table_one_sets_each_variant_against_simdist():
    from simdist.experiments.ablations import table_one

    def variant(success, trials=20):
        return {"steps": 100, "success_rate": success, "settings": {"trials": trials}}

    rows = table_one({"simdist": variant(0.95), "data-10": variant(0.3), "data-50": variant(0.8)})
    assert rows[0] == "| variant | sim steps | sim success | against SimDist |"
    assert "| simdist | 100 | 0.95 | – |" in rows
    assert "| data-10 | 100 | 0.30 | -0.65 (beyond chance) |" in rows
    assert "| data-50 | 100 | 0.80 | -0.15 (within chance) |" in rows
    assert "against SimDist" not in table_one({"data-10": variant(0.3)})[0]  # no reference run: no column
