"""LossConfig.bc_mu: the BC term adds its error on mu-law companded raw actions, resolving corrections near zero."""

import torch

from simdist.config import LossConfig, model_preset
from simdist.model.loss import companded, world_model_loss
from simdist.model.world_model import ModelSpec, WorldModel

SPEC = ModelSpec({"proprio": (7,)}, action_dim=3, action_low=(-1,) * 3, action_high=(1,) * 3)


def test_companding_weighs_a_small_correction_like_a_large_move():
    model = WorldModel(model_preset("cpu"), SPEC).eval()
    raw = torch.tensor([[0.0, 0.0125, 0.9], [0.0, 0.0, 0.9125]])  # a 0.5 mm error near rest, and at a 36 mm move
    n = model.normalizer.normalize("action", raw)
    plain = (n[0] - n[1]).abs()
    squeezed = (companded(model, n[0], 1000.0) - companded(model, n[1], 1000.0)).abs()
    assert torch.isclose(plain[1], plain[2])  # normalised: the same 0.0125 error weighs the same anywhere
    assert squeezed[1] > 20 * squeezed[2]  # companded: near zero it counts many times more
    ends = model.normalizer.normalize("action", torch.tensor([-1.0, 0.0, 1.0]))
    assert torch.allclose(companded(model, ends, 1000.0), torch.tensor([-1.0, 0.0, 1.0]), atol=1e-5)


def test_companded_bc_is_zero_on_its_own_actions_and_trains_the_head():
    torch.manual_seed(0)
    model = WorldModel(model_preset("cpu"), SPEC).eval()
    B, H, T = 4, model.cfg.history, model.cfg.horizon
    b = {"obs": {"proprio": torch.randn(B, 7)}, "hist_proprio": torch.randn(B, H, 7),
         "hist_action": torch.randn(B, H, 3), "actions": torch.rand(B, T, 3) * 2 - 1,
         "future_obs": {"proprio": torch.randn(B, T, 7)}, "rewards": torch.randn(B, T), "values": torch.randn(B, T),
         "expert": torch.ones(B, T), "labelled": torch.ones(B), "bc_labelled": torch.ones(B)}
    weights = LossConfig(latent=0.0, reward=0.0, value=0.0, bc=1.0, bc_mu=1000.0)
    own = {**b, "bc_actions": model.normalizer.denormalize("action", model(b)["policy"]).detach()}
    assert world_model_loss(model, own, weights)[1]["bc"] < 1e-8
    total, logs = world_model_loss(model, b, weights)
    plain = world_model_loss(model, b, LossConfig(latent=0.0, reward=0.0, value=0.0, bc=1.0))[1]["bc"]
    assert logs["bc"] > plain  # the companded error is added to the plain one
    total.backward()
    assert logs["bc"] > 0 and any(p.grad is not None and p.grad.abs().sum() > 0
                                  for _, p in model.parameter_group("policy"))
