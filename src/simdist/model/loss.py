"""The SimDist pretraining loss (paper Eq. 2) and the finetuning loss (Eq. 3, the latent term alone).

All terms are mean squared errors on z-scored targets:
    latent : ‖ẑ_{t+i+1} − sg(E(o_{t+i+1}))‖²
    reward : (r̂_{t+i} − r_{t+i})²
    value  : (v̂_{t+i+1} − V^e(s_{t+i+1}))²
    bc     : 1_e · ‖â_{t+i} − a*_{t+i}‖², a* the expert's action (the executed one, or a DAgger label), plus the
             single-step head's 1_e · ‖â_t − a*_t‖² where the model has one, and
             1_e = cumulative product of the expert flags along the chunk, so
             behaviour cloning stops at the first corrupted or sub-optimal action. Masked entries count as
             zero in the mean, as in the authors' code.
Each term averages over the windows that carry its labels: reward/value over simulation windows, bc over windows
with expert flags (simulation, demonstrations, operator corrections). Plain robot logs feed the latent term only.
Windows that run past their episode's end (`future_valid` in the batch, data/windows.py) count only their valid
steps in the latent and reconstruction terms.
"""

from __future__ import annotations

import torch

from simdist.config import LossConfig
from simdist.model.world_model import ACTION, REWARD, VALUE, WorldModel


def bc_mask(expert: torch.Tensor) -> torch.Tensor:
    """(B, T) expert flags → cumulative-product mask along the chunk."""
    return torch.cumprod(expert.float(), dim=1)


def world_model_loss(model: WorldModel, batch: dict, weights: LossConfig) -> tuple[torch.Tensor, dict[str, float]]:
    """Return the weighted total and every term separately (floats, for logging)."""
    out = {k: v.float() for k, v in model(batch).items()}  # under bf16 autocast: the errors and means in fp32
    valid = batch.get("future_valid")  # (B, T) or None: every window complete

    def future_mean(err: torch.Tensor) -> torch.Tensor:  # (B, T, D) squared errors over the predicted steps
        if valid is None:
            return err.mean()
        return (err.mean(-1) * valid).sum() / valid.sum().clamp_min(1)

    terms: dict[str, torch.Tensor] = {"latent": future_mean((out["zhat"] - out["z_target"]).pow(2))}
    extra_logs: dict[str, torch.Tensor] = {}  # parts of a term, logged apart

    def labelled_mean(per_window: torch.Tensor, key: str = "labelled") -> torch.Tensor:
        labelled = batch[key] > 0  # (B,) windows with these labels; missing labels never poison the loss
        return torch.where(labelled, per_window, torch.zeros_like(per_window)).sum() / labelled.sum().clamp_min(1)

    if weights.reward:
        target = model.normalizer.normalize(REWARD, batch["rewards"])
        terms["reward"] = labelled_mean((out["reward"] - target).pow(2).mean(1))
    if weights.value:
        target = model.normalizer.normalize(VALUE, batch["values"])
        terms["value"] = labelled_mean((out["value"] - target).pow(2).mean(1))
    if weights.bc:
        mask = bc_mask(batch["expert"])
        # DAgger windows: the expert's labels, not the executed actions (batches built by hand may lack them)
        target = model.normalizer.normalize(ACTION, batch["bc_actions"]) if "bc_actions" in batch else out["actions_n"]

        def action_error(pred: torch.Tensor, label: torch.Tensor) -> torch.Tensor:  # (..., A) → (...)
            return (pred - label).pow(2).mean(-1)

        err = action_error(out["policy"], target) * mask  # (B, T)
        terms["bc"] = labelled_mean(err.mean(1) + weights.bc_first_step * err[:, 0], "bc_labelled")
        if "policy_step" in out:  # the single-step head: the chunk's first target, under the same mask and weight
            step = labelled_mean(action_error(out["policy_step"], target[:, 0]) * mask[:, 0], "bc_labelled")
            extra_logs["bc_step"] = step
            terms["bc"] = terms["bc"] + step
    if weights.ensemble and "zhat_members" in out:  # each member fits its own bootstrap of the windows
        K, B = out["zhat_members"].shape[:2]
        boot = -torch.rand(K, B, 1, device=out["zhat"].device).clamp_min(1e-6).log()  # Exp(1): Bayesian bootstrap
        err = (out["zhat_members"] - out["z_target"]).pow(2).mean(-1)  # (K, B, T)
        terms["ensemble"] = future_mean((boot * err).mean(0).unsqueeze(-1))
    if weights.reconstruction and "recon" in out:
        terms["reconstruction"] = future_mean((out["recon"] - out["recon_target"]).pow(2))
    total = sum(getattr(weights, name) * value for name, value in terms.items())
    logged = {**terms, "total": total, **extra_logs}
    # one device-to-host copy for all the floats: on a GPU each float() would be a synchronisation of its own
    values = torch.stack([v.detach().float() for v in logged.values()]).tolist()
    return total, dict(zip(logged, values))
