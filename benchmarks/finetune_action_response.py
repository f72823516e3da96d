"""Does dynamics-only finetuning keep the model's response to actions? (what MPPI ranks candidates by)

    python benchmarks/finetune_action_response.py --pretrained runs/peg46/pm35k \
        --finetuned runs/adapt_peg35k_s0/round_01/model --real runs/adapt_peg35k_s0/real_data --sim runs/peg10k46

For each model, on real windows (episodes of --real whose file name starts with --real-prefix, default `r01`: the
round after the first finetune, so held out from it) and on simulation windows (the first --sim-episodes of --sim):
  * latent error ‖ẑ_{t+k} − E(o_{t+k})‖² per horizon step (Fig. 8a),
  * action response: mean ‖ẑ(a + δ) − ẑ(a)‖² over Gaussian perturbations δ of the recorded actions (std --delta in
    normalised action units), per horizon step,
  * return spread: the std, over 32 perturbations, of the predicted return R (what MPPI compares), mean over windows,
  * rank agreement: Spearman correlation between the two models' returns over the same 32 perturbations.
One JSON line to stdout (and appended to --out).
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from records import emit

from simdist.data.episodes import episode_files, read_episode_file, read_info
from simdist.data.windows import WindowDataset
from simdist.model.world_model import ACTION
from simdist.training.checkpoint import load_model

PERTURBATIONS = 32


def windows(model, info, episodes, n: int, seed: int):
    data = WindowDataset(info, episodes, model.cfg.history, model.cfg.horizon)
    ids = np.random.default_rng(seed).choice(len(data), size=min(n, len(data)), replace=False)
    return data.batch(np.sort(ids))


@torch.no_grad()
def measure(model, batch, delta: float, seed: int, value_weight: float = 1.0) -> dict:
    out = model(batch)
    err = (out["zhat"] - out["z_target"]).pow(2).mean(dim=(0, 2))
    gen = torch.Generator().manual_seed(seed)
    base_n = model.normalizer.normalize(ACTION, batch["actions"])
    returns, response = [], []
    for b in range(base_n.shape[0]):
        one = {k: (v[b:b + 1] if torch.is_tensor(v) else v) for k, v in batch.items()}
        command = batch["commands"][b:b + 1, 0] if "commands" in batch else None  # the step's command (quadruped)
        ctx = model.planning_context({k: v[b:b + 1] for k, v in batch["obs"].items()}, one["hist_proprio"],
                                     one["hist_action"], command)
        a = base_n[b:b + 1].expand(PERTURBATIONS, -1, -1)
        noise = delta * torch.randn(a.shape, generator=gen)
        noise[0] = 0.0
        zhat = model.latents_n(ctx.dynamics_kv, a + noise)
        response.append((zhat[1:] - zhat[:1]).pow(2).mean(dim=(0, 2)))
        returns.append(model.plan_returns_n(ctx, a + noise, 0.99, value_weight))
    R = torch.stack(returns)
    return {"latent_error": err.tolist(), "action_response": torch.stack(response).mean(0).tolist(),
            "return_spread": float(R.std(dim=1).mean()), "_returns": R}


def spearman(a: torch.Tensor, b: torch.Tensor) -> float:
    ra, rb = a.argsort(dim=1).argsort(dim=1).float(), b.argsort(dim=1).argsort(dim=1).float()
    ra, rb = ra - ra.mean(1, keepdim=True), rb - rb.mean(1, keepdim=True)
    return float(((ra * rb).sum(1) / (ra.norm(dim=1) * rb.norm(dim=1))).mean())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pretrained", required=True)
    p.add_argument("--finetuned", required=True)
    p.add_argument("--real", required=True)
    p.add_argument("--real-prefix", default="r01")
    p.add_argument("--sim", required=True)
    p.add_argument("--sim-episodes", type=int, default=200)
    p.add_argument("--windows", type=int, default=256)
    p.add_argument("--delta", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--value-weight", type=float, default=1.0, help="the planner's MPPIConfig.value_weight")
    p.add_argument("--out", default=None)
    args = p.parse_args()
    models = {"pretrained": load_model(args.pretrained), "finetuned": load_model(args.finetuned)}
    real_info = read_info(args.real)
    real = [e for f in episode_files(args.real) if f.name.startswith(args.real_prefix)
            for e in read_episode_file(f, real_info)]
    sim_info = read_info(args.sim)
    sim = []
    for f in episode_files(args.sim):
        sim += read_episode_file(f, sim_info)
        if len(sim) >= args.sim_episodes:
            break
    result = {"pretrained": args.pretrained, "finetuned": args.finetuned, "real": args.real,
              "real_prefix": args.real_prefix, "real_episodes": len(real), "delta": args.delta,
              "value_weight": args.value_weight}
    for domain, (info, eps) in {"real": (real_info, real), "sim": (sim_info, sim)}.items():
        batch = windows(models["pretrained"], info, eps, args.windows, args.seed)
        got = {name: measure(m, batch, args.delta, args.seed, args.value_weight) for name, m in models.items()}
        result[domain] = {name: {k: v for k, v in g.items() if not k.startswith("_")} for name, g in got.items()}
        result[domain]["rank_agreement"] = spearman(got["pretrained"]["_returns"], got["finetuned"]["_returns"])
    emit(result, args.out)


if __name__ == "__main__":
    main()
