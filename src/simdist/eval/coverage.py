"""How far a planner's predicted states lie from the data the model was trained on, in the data's own units.

The frozen reward and value heads are only as good as their training data's coverage: a candidate whose predicted
end latent lies far from every encoded data state is scored by extrapolation. `LatentCoverage` encodes a sample of
the dataset's observations once; `distance(z)` is each latent's Euclidean distance to its nearest data latent divided
by the median nearest-neighbour distance among the data latents themselves (1: as far as data states lie from each
other; 10: ten times further).
"""

from __future__ import annotations

import numpy as np
import torch

from simdist.data.episodes import Episode
from simdist.model.world_model import WorldModel

DATA_LATENTS = 4096  # encoded data states kept (evenly spaced over the dataset's steps)
EXACT = "donot_use_mm_for_euclid_dist"  # cdist's matrix-product shortcut is off by 1e-2 near zero


class LatentCoverage:
    def __init__(self, model: WorldModel, episodes: list[Episode], samples: int = DATA_LATENTS):
        groups = [g for g in model.spec.obs_shapes]
        counts = np.array([len(ep.action) for ep in episodes])
        picks = np.linspace(0, counts.sum() - 1, min(samples, int(counts.sum()))).astype(int)
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        which = np.searchsorted(starts, picks, side="right") - 1
        device = next(model.parameters()).device
        obs = {
            g: torch.as_tensor(
                np.stack([episodes[e].obs[g][i - starts[e]] for e, i in zip(which, picks)]),
                dtype=torch.float32,
                device=device,
            )
            for g in groups
        }
        with torch.no_grad():
            self.latents = model.encode(obs)  # (M, d)
            d = torch.cdist(self.latents, self.latents, compute_mode=EXACT)
            d.fill_diagonal_(torch.inf)
            self.unit = float(d.min(dim=1).values.median().clamp(min=1e-8))

    def probe(self, end_latents: torch.Tensor, value_error: np.ndarray) -> dict[str, float]:
        """How far candidates' predicted end latents (the plan's and the head chunk's last) lie from the data, and
        how that tracks the value head's error there (Spearman ρ; > 0: further off the data, wronger)."""
        distance = self.distance(end_latents)
        near = distance <= np.median(distance)
        return {
            "end_distance_to_data": float(distance[:-2].mean()),
            "plan_end_distance_to_data": float(distance[-2]),
            "head_end_distance_to_data": float(distance[-1]),
            "rho_distance_value_error": spearman(distance, value_error),
            "value_error_nearer_half": float(value_error[near].mean()),
            "value_error_further_half": float(value_error[~near].mean()) if (~near).any() else float("nan"),
        }

    @torch.no_grad()
    def distance(self, z: torch.Tensor) -> np.ndarray:
        """(N,) nearest-data distance of latents z (N, d), in units of the data's median nearest-neighbour gap."""
        return (
            (torch.cdist(z.to(self.latents.dtype), self.latents, compute_mode=EXACT).min(dim=1).values / self.unit)
            .cpu()
            .numpy()
        )


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation (average ranks for ties); NaN when either side is constant."""

    def ranks(v):
        r = np.empty(len(v))
        r[np.argsort(v, kind="mergesort")] = np.arange(len(v))
        _, group, size = np.unique(v, return_inverse=True, return_counts=True)
        return np.bincount(group, weights=r)[group] / size[group]  # tied values share their mean rank

    rx, ry = ranks(np.asarray(x, float)), ranks(np.asarray(y, float))
    if rx.std() == 0 or ry.std() == 0:
        return float("nan")
    return float(np.corrcoef(rx, ry)[0, 1])


__all__ = ["DATA_LATENTS", "LatentCoverage", "spearman"]
