"""Does SimDist's latent z_t = E(o_t) keep what a policy needs? An MLP cloned on it against the same MLP on o_t.

    python benchmarks/latent_bc_probe.py --task table-leg --checkpoint runs/tl_noact_200k/step_100000 \
        --sim-data runs/tl_data --input latent|obs --out benchmarks/results/latent_bc_probe.jsonl

Single-step BC on the simulation data's uncorrupted expert steps (what `simdist compare … bc` trains on), with the
world model frozen: the input is either its latent E(o_t) (`latent`) or the observation z-scored by the model's own
normaliser (`obs`, the control: BC without SimDist's encoder). Same MLP (`--hidden`), Adam, MSE on normalised actions
(`--box`: a tanh output and MSE in the action box's units, and `--constant-lr`, as `simdist compare`'s BC baseline);
the latents are computed once, so a 100,000-step run takes a minute or two on one core. Then the staged evaluation of
`manipulation_stages.py` in each `--domains` over `--eval-seeds` × `--trials`; one JSON line per (domain, seed).
Session 31 (docs/results.md, Table Leg) asked it why SimDist's head reaches and grasps less than single-step BC.
"""

from __future__ import annotations

import argparse
import logging
import time

import numpy as np
import torch
from manipulation_stages import stage_means, staged_rollouts
from records import emit

from simdist.baselines.bc import sim_expert_transitions
from simdist.model.world_model import ACTION
from simdist.tasks.base import domain_physics
from simdist.tasks.registry import get_task
from simdist.training.checkpoint import load_model


class ProbeAgent:
    def __init__(self, model, head: torch.nn.Module, latent: bool, box: bool = False):
        self.model, self.head, self.latent, self.box = model, head.eval(), latent, box
        spec = model.spec
        self.low, self.high = np.asarray(spec.action_low, np.float32), np.asarray(spec.action_high, np.float32)

    def reset(self) -> None:
        pass

    @torch.no_grad()
    def act(self, obs: dict) -> np.ndarray:
        batch = {g: torch.as_tensor(np.asarray(obs[g], np.float32))[None] for g in self.model.spec.obs_shapes}
        out = self.head(features(self.model, batch, self.latent))[0].numpy()
        if self.box:  # the unit box back to the action bounds
            return self.low + (out + 1.0) * 0.5 * (self.high - self.low)
        return np.clip(self.model.normalizer.denormalize(ACTION, torch.as_tensor(out)).numpy(), self.low, self.high)


@torch.no_grad()
def features(model, obs: dict[str, torch.Tensor], latent: bool) -> torch.Tensor:
    if latent:
        return model.encode(obs)
    return torch.cat([v.flatten(1) for v in model.normalize_obs(obs).values()], dim=1)


def train_head(model, sim_data: str, latent: bool, hidden: list[int], steps: int, batch: int, lr: float,
               seed: int, box: bool = False, decay: bool = True) -> tuple[torch.nn.Module, float]:
    torch.manual_seed(seed)
    data = sim_expert_transitions(sim_data)
    obs = {g: torch.as_tensor(v) for g, v in data.obs.items() if g in model.spec.obs_shapes}
    n = len(data)
    x = torch.cat([features(model, {g: v[i:i + 65536] for g, v in obs.items()}, latent)
                   for i in range(0, n, 65536)])
    if box:  # as `simdist compare`'s BC: tanh output, MSE in the action box's units
        low, high = (torch.tensor(b, dtype=torch.float32) for b in (model.spec.action_low, model.spec.action_high))
        y = (2.0 * (torch.as_tensor(data.action) - low) / (high - low) - 1.0).clamp(-1.0, 1.0)
    else:
        y = model.normalizer.normalize(ACTION, torch.as_tensor(data.action))
    layers, width = [], x.shape[1]
    for h in hidden:
        layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
        width = h
    head = torch.nn.Sequential(*layers, torch.nn.Linear(width, y.shape[1]), *([torch.nn.Tanh()] if box else []))
    opt = torch.optim.Adam(head.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps, eta_min=lr / 10 if decay else lr)
    gen = torch.Generator().manual_seed(seed)
    loss = torch.zeros(())
    for _ in range(steps):
        idx = torch.randint(0, n, (batch,), generator=gen)
        loss = (head(x[idx]) - y[idx]).pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
    return head, float(loss)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--task", default="table-leg")
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--sim-data", required=True)
    p.add_argument("--input", choices=("latent", "obs"), required=True)
    p.add_argument("--box", action="store_true", help="tanh output and MSE in the action box's units (as the "
                   "comparison's BC baseline) instead of MSE on the dataset-normalised actions")
    p.add_argument("--constant-lr", action="store_true", help="no cosine decay to lr/10 (as the comparison's BC)")
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    p.add_argument("--steps", type=int, default=100_000)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--domains", nargs="+", default=["sim", "real"])
    p.add_argument("--eval-seeds", type=int, nargs="+", default=[0, 1, 2, 3])
    p.add_argument("--trials", type=int, default=10)
    p.add_argument("--grid", default="narrow")
    p.add_argument("--out", default=None)
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    task, model = get_task(args.task), load_model(args.checkpoint)
    t0 = time.time()
    head, loss = train_head(model, args.sim_data, args.input == "latent", args.hidden, args.steps, args.batch,
                            args.lr, args.seed, args.box, not args.constant_lr)
    train_s = time.time() - t0
    logging.info("trained the %s probe in %.0f s, last batch loss %.4f", args.input, train_s, loss)
    agent = ProbeAgent(model, head, args.input == "latent", args.box)
    for domain in args.domains:
        for seed in args.eval_seeds:
            rows = staged_rollouts(task, domain, domain_physics(task, domain, None), agent, args.grid, args.trials,
                                   seed)
            agent_name = f"probe_{args.input}" + ("_box" if args.box else "") + ("_constlr" if args.constant_lr else "")
            emit({"task": args.task, "checkpoint": args.checkpoint, "agent": agent_name,
                  "hidden": args.hidden, "steps": args.steps, "train_seed": args.seed, "train_s": round(train_s),
                  "last_loss": loss, "grid": args.grid, "domain": domain, "seed": seed, "trials": args.trials,
                  "mean": stage_means(rows), "episodes": rows}, args.out)


if __name__ == "__main__":
    main()
