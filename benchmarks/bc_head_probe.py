"""Is a world model's BC head limited by its encoder or by the head? A probe on the frozen encoder.

    python benchmarks/bc_head_probe.py foam --checkpoint checkpoints/quadruped-cpu --data runs/quadruped_data_v2 \
        --hidden 128,128 --steps 3000 --trials 5 --out benchmarks/results/bc_head_probe.jsonl

Trains a single-step MLP head (the `bc` baseline's head) on z_t = E(o_t) of the frozen world-model encoder and
the normalised command, on the expert-flagged transitions of the dataset, and reports, on held-out expert
transitions, the first-action error (normalised action units) of the world model's own BC head next to the
probe's (and a `bc` baseline's, with `--bc-baseline`). Then each acts in the task, 5 trials × every grid, in `sim`
and `real`.
If the probe walks where the head does not, the encoder carries the information and the head is what limits it.
"""

from __future__ import annotations

import argparse
import logging

import numpy as np
import torch
from torch import nn

from records import emit

from simdist.data.episodes import load_episodes
from simdist.eval.rollout import rollout
from simdist.model.world_model import ACTION, COMMAND, WorldModel
from simdist.planning.agent import PolicyAgent
from simdist.tasks.base import COMMAND_KEY
from simdist.tasks.registry import get_task
from simdist.training.checkpoint import load_model

log = logging.getLogger("bc_head_probe")


def expert_transitions(data: str, max_episodes: int, seed: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Observation groups (+ command) and actions of every expert-flagged step."""
    _, episodes = load_episodes(data)
    rng = np.random.default_rng(seed)
    if max_episodes and len(episodes) > max_episodes:
        episodes = [episodes[i] for i in rng.choice(len(episodes), max_episodes, replace=False)]
    obs: dict[str, list] = {}
    actions = []
    for e in episodes:
        keep = e.expert.astype(bool) if e.expert is not None else np.ones(len(e), bool)
        groups = {**e.obs, **({COMMAND_KEY: e.command} if e.command is not None else {})}
        for g, v in groups.items():
            obs.setdefault(g, []).append(v[keep])
        actions.append(e.action[keep])
    return {g: np.concatenate(v) for g, v in obs.items()}, np.concatenate(actions)


class ProbeHead(nn.Module):
    def __init__(self, model: WorldModel, hidden: tuple[int, ...]):
        super().__init__()
        dims = (model.cfg.latent_dim + model.spec.command_dim, *hidden)
        layers: list[nn.Module] = []
        for a, b in zip(dims[:-1], dims[1:]):
            layers += [nn.Linear(a, b), nn.ELU()]
        self.net = nn.Sequential(*layers, nn.Linear(dims[-1], model.spec.action_dim))

    def forward(self, z: torch.Tensor, command_n: torch.Tensor | None) -> torch.Tensor:
        return self.net(z if command_n is None else torch.cat((z, command_n), -1))


@torch.no_grad()
def features(model: WorldModel, obs: dict[str, np.ndarray], idx: np.ndarray) -> tuple[torch.Tensor, torch.Tensor | None]:
    t = {g: torch.as_tensor(v[idx]) for g, v in obs.items()}
    z = model.encode({g: t[g] for g in model.spec.obs_shapes})
    cmd = model.normalizer.normalize(COMMAND, t[COMMAND_KEY]) if model.spec.command_dim else None
    return z, cmd


@torch.no_grad()
def head_first_action_n(model: WorldModel, obs: dict[str, np.ndarray], idx: np.ndarray) -> torch.Tensor:
    """The world model's BC head, first action of its chunk (z_t-only heads need no history)."""
    if model.cfg.policy_sees_history:
        raise SystemExit("this probe compares z_t-only BC heads (policy_sees_history = false)")
    z, cmd = features(model, obs, idx)
    kv = model.policy["decoder"].cache(model.latent_token(z))
    command_n = None if cmd is None else cmd.unsqueeze(1).expand(-1, model.cfg.horizon + 1, -1)
    return model.policy_n(kv, z.shape[0], command_n)[:, 0]


class ProbeAgent:
    def __init__(self, model: WorldModel, head: ProbeHead):
        self.model, self.head = model, head.eval()

    def reset(self) -> None:
        pass

    @torch.no_grad()
    def act(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        batch = {g: np.asarray(v, np.float32)[None] for g, v in obs.items()}
        z, cmd = features(self.model, batch, np.array([0]))
        return self.model.normalizer.denormalize(ACTION, self.head(z, cmd))[0].numpy()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("task")
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--max-episodes", type=int, default=0, help="random subset of episodes (0 = all)")
    p.add_argument("--hidden", default="128,128")
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--domains", default="sim,real")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--bc-baseline", default=None, help="a `bc` baseline checkpoint to score on the same transitions")
    p.add_argument("--out", default=None, help="JSON-lines file to append the result to")
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    torch.manual_seed(args.seed)
    task, model = get_task(args.task), load_model(args.checkpoint).eval()
    for param in model.parameters():
        param.requires_grad_(False)

    obs, actions = expert_transitions(args.data, args.max_episodes, args.seed)
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(len(actions))
    held_out, train = order[:4096], order[4096:]
    log.info("%d expert transitions (%d held out)", len(actions), len(held_out))
    target_n = lambda idx: model.normalizer.normalize(ACTION, torch.as_tensor(actions[idx]))

    head = ProbeHead(model, tuple(int(h) for h in args.hidden.split(",")))
    opt = torch.optim.Adam(head.parameters(), lr=args.lr)
    for step in range(args.steps):
        idx = rng.choice(train, args.batch_size)
        loss = (head(*features(model, obs, idx)) - target_n(idx)).pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 500 == 0:
            log.info("step %d probe loss %.4f", step, float(loss.detach()))
    with torch.no_grad():
        probe_err = float((head(*features(model, obs, held_out)) - target_n(held_out)).pow(2).mean())
    head_err = float((head_first_action_n(model, obs, held_out) - target_n(held_out)).pow(2).mean())
    errors = {"bc_head": head_err, "probe": probe_err}
    agents = {"bc_head": PolicyAgent(model), "probe": ProbeAgent(model, head)}
    if args.bc_baseline:
        from simdist.baselines.bc import BCLearner
        actor = BCLearner.load(args.bc_baseline).actor.eval()
        with torch.no_grad():
            raw = actor.to_raw(actor.mode({g: torch.as_tensor(v[held_out]) for g, v in obs.items()}))
        errors["bc_baseline"] = float((model.normalizer.normalize(ACTION, raw) - target_n(held_out)).pow(2).mean())
        agents["bc_baseline"] = BCLearner.load(args.bc_baseline).agent()
    row = {"task": args.task, "checkpoint": args.checkpoint, "data": args.data, "hidden": args.hidden,
           "steps": args.steps, "heldout_first_action_mse_n": errors}
    log.info("held-out first-action MSE (normalised units): %s", errors)
    for domain in args.domains.split(","):
        for name, agent in agents.items():
            success, progress = [], []
            for grid in task.grids:
                env = task.make_env(domain, seed=args.seed)
                ics = task.initial_conditions(grid, args.trials, seed=args.seed)
                s = rollout(task, env, agent, ics, seed=args.seed).summary(task.spec.control_period_s)
                success.append(s["success_rate"])
                progress.append(s.get("mean_progress_m", float("nan")))
            row[f"{domain}_{name}"] = {"success": float(np.mean(success)), "progress": float(np.mean(progress)),
                                       "per_grid_success": success}
            log.info("%s %s: success %.2f progress %.2f", domain, name, np.mean(success), np.mean(progress))
    emit(row, args.out)


if __name__ == "__main__":
    main()
