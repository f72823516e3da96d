"""A planner that makes the finetuned dynamics follow what the pretrained dynamics predicts for the BC head's chunk.

    python benchmarks/table_leg_tracking_planner.py --checkpoint ADAPT/round_03/model \
        --reference runs/tl_noact_200k/step_090000 --domain real --trials 10 [--delta] [--fix-gripper] \
        --out benchmarks/results/table_leg_tracking.jsonl

The idea of transfer through inverse dynamics (Christiano et al. 2016) on SimDist's parts: the frozen head proposes
what it would do in `sim`, the pretrained (`sim`) dynamics says where that takes the latent state, and MPPI looks
for the actions under which the dynamics finetuned on `real` (Alg. 1) gets there too:
    score(a) = −weight · mean ‖ẑ_ft(a) − ẑ_ref(a_BC)‖² − prior · mean ‖a − a_BC‖²   (normalised units),
no reward or value head involved. `--delta` compares motions relative to holding the pose (the chunk's gripper, zero
pose deltas), so that an offset the finetuned model predicts whatever the action (sag, bias) cancels;
`--fix-gripper` keeps the head's gripper command. With `--checkpoint` = `--reference` the score is maximal at the
chunk (a control). Staged outcomes as `manipulation_stages.py` (session 31, docs/results/table-leg.md).
"""

from __future__ import annotations

import argparse
import logging
import time

import numpy as np
import torch
from manipulation_stages import STAGE_TERMS, stage_means, staged_rollouts
from records import emit

from simdist.model.world_model import ACTION
from simdist.planning.agent import _HistoryAgent
from simdist.planning.mppi import refit
from simdist.planning.settings import MPPIConfig
from simdist.tasks.base import domain_physics
from simdist.tasks.registry import get_task
from simdist.training.checkpoint import load_model


class TrackingAgent(_HistoryAgent):
    def __init__(self, model, reference, cfg: MPPIConfig, weight: float, prior: float, delta: bool, fix_gripper: bool):
        super().__init__(model)
        self.reference, self.cfg, self.weight, self.prior = reference.eval(), cfg, weight, prior
        self.delta, self.fix_gripper = delta, fix_gripper
        self.generator = torch.Generator().manual_seed(cfg.seed)
        norm, spec = model.normalizer, model.spec
        self.low, self.high = torch.tensor(spec.action_low), torch.tensor(spec.action_high)
        self.low_n, self.high_n = norm.normalize(ACTION, self.low), norm.normalize(ACTION, self.high)
        self.zero_n = norm.normalize(ACTION, torch.zeros(spec.action_dim))
        self.scores: list[tuple[float, float]] = []  # (score of the chunk, score of the plan) per step

    def _clip(self, a: torch.Tensor) -> torch.Tensor:
        return torch.maximum(torch.minimum(a, self.high_n), self.low_n)

    @torch.no_grad()
    def act(self, obs: dict) -> np.ndarray:
        obs_t, hist_p, hist_a, command = self.model_inputs(obs)
        ctx = self.model.planning_context(obs_t, hist_p, hist_a, command)
        ref_ctx = self.reference.planning_context(obs_t, hist_p, hist_a, command)
        chunk = self._clip(self.model.plan_policy_n(ctx)[0])  # the head is frozen: the same in both models
        target = self.reference.latents_n(ref_ctx.dynamics_kv, chunk[None])
        offset = 0.0
        if self.delta:
            hold = torch.cat((self.zero_n[:-1].expand(len(chunk), -1), chunk[:, -1:]), dim=1)[None]
            target = target - self.reference.latents_n(ref_ctx.dynamics_kv, hold)
            offset = self.model.latents_n(ctx.dynamics_kv, hold)

        def score(candidates: torch.Tensor) -> torch.Tensor:
            gap = self.model.latents_n(ctx.dynamics_kv, candidates) - offset - target
            return (-self.weight * gap.pow(2).mean(dim=(1, 2))
                    - self.prior * (candidates - chunk).pow(2).mean(dim=(1, 2)))

        cfg, (T, A) = self.cfg, chunk.shape
        mean, std = chunk.clone(), torch.full((T, A), cfg.init_std)
        for _ in range(cfg.iterations):
            noise = torch.randn((cfg.samples, T, A), generator=self.generator)
            policy_noise = torch.randn((cfg.policy_samples, T, A), generator=self.generator)
            candidates = self._clip(torch.cat((mean + std * noise, chunk + cfg.policy_noise_std * policy_noise,
                                               chunk[None])))
            if self.fix_gripper:
                candidates[..., -1] = chunk[:, -1]
            mean, std, _ = refit(candidates, score(candidates), cfg)
        self.scores.append((float(score(chunk[None])[0]), float(score(mean[None])[0])))
        action = self.model.normalizer.denormalize(ACTION, self._clip(mean)[0])
        action = torch.maximum(torch.minimum(action, self.high), self.low).numpy()
        self._record(obs, action)
        return action


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--task", default="table-leg", choices=sorted(STAGE_TERMS))
    p.add_argument("--checkpoint", required=True, help="the finetuned model (its dynamics are planned with)")
    p.add_argument("--reference", required=True, help="the pretrained model (its dynamics give the target)")
    p.add_argument("--grid", default="narrow")
    p.add_argument("--trials", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--domain", default="real", choices=("sim", "real"))
    p.add_argument("--weight", type=float, default=1000.0, help="on the latent tracking error")
    p.add_argument("--prior", type=float, default=1.0, help="on the distance to the BC chunk")
    p.add_argument("--std", type=float, default=0.3, help="initial sampling std, normalised action units")
    p.add_argument("--delta", action="store_true")
    p.add_argument("--fix-gripper", action="store_true")
    p.add_argument("--out", default=None)
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    task = get_task(args.task)
    cfg = MPPIConfig(samples=128, policy_samples=32, iterations=3, elites=16, temperature=1.0, init_std=args.std,
                     policy_noise_std=0.05, seed=args.seed)
    agent = TrackingAgent(load_model(args.checkpoint), load_model(args.reference), cfg, args.weight, args.prior,
                          args.delta, args.fix_gripper)
    t0 = time.time()
    rows = staged_rollouts(task, args.domain, domain_physics(task, args.domain, None), agent, args.grid, args.trials,
                           args.seed)
    scores = np.array(agent.scores)
    emit({"task": args.task, "checkpoint": args.checkpoint, "agent": "tracking", "reference": args.reference,
          "weight": args.weight, "prior": args.prior, "std": args.std, "delta": args.delta,
          "fix_gripper": args.fix_gripper, "grid": args.grid, "domain": args.domain, "seed": args.seed,
          "trials": args.trials, "mean": stage_means(rows),
          "score_chunk_vs_plan": [float(scores[:, 0].mean()), float(scores[:, 1].mean())],
          "wall_s": round(time.time() - t0, 1), "episodes": rows}, args.out)


if __name__ == "__main__":
    main()
