"""Session 19 probe: is the world model's latent what fails on `real` foam? Single-step BC given a DAgger round in `sim`
transfers to Foam's `real` domain (0.50), the world model's head given the same round does not (0.04). This trains the
BC baseline's MLP head, unchanged, on the *frozen* encoder and normaliser of the SimDist model, on the same data as
BC + DAgger seed S (the simulation expert transitions and that run's DAgger labels, half of each batch each, sensor
noise on), for BC's 1,000 + 5,000 steps, and evaluates it alone in `real` and `sim` (eval seeds 0 1 2 × 5 trials × 3
speeds), appending to benchmarks/results/foam_bc_dagger.jsonl as model `latent_bc_sS`.

    python benchmarks/foam_latent_bc_probe.py --seed 0 [--checkpoint checkpoints/quadruped-cpu] [--runs runs]
        [--labels simdist]   # the labels of the SimDist head's DAgger round (foam_dagger_cli.sh) instead: `latent_bc_simdist_sS`
        [--labels-dir DIR --tag TAG]   # any DAgger dataset (session 20): `latent_bc_TAG_sS`
        [--replay F] [--loss normalised] [--drop-tail 25]   # one of the world-model head's training choices at a time
        [--worlds real sim rigid noise_off rigid_noise_off]   # session 22: `real` variants from
                                                              # benchmarks/physics/foam_real_WORLD.json (rows: "world")
        [--height-offset 0.028]   # diagnostic: add this (m) to the height scan the policy sees (foam_obs_shift.py)
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
from pathlib import Path

import numpy as np

from simdist.baselines.bc import BCLearner, dagger_labels, sim_expert_transitions
from simdist.baselines.replay import SymmetricSampler
from simdist.data.episodes import Episode, load_episodes
from simdist.eval.rollout import evaluate_grids
from simdist.model.augment import add_sensor_noise
from simdist.tasks import get_task
from simdist.training import checkpoint as ckpt

RECORD = Path(__file__).parent / "results" / "foam_bc_dagger.jsonl"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--checkpoint", default="checkpoints/quadruped-cpu")
    p.add_argument("--runs", default="runs")
    p.add_argument("--steps", type=int, default=6000, help="BC's 1,000 steps plus the DAgger stage's 5,000")
    p.add_argument("--labels", choices=("bc", "simdist"), default="bc", help="whose DAgger round's labels: the states "
                   "BC drove to (runs/dagger_bc_foam_sS) or those SimDist's head drove to (runs/dagger_cli_foam_sS)")
    p.add_argument("--labels-dir", help="another DAgger dataset instead (e.g. runs/dagger_step_foam_s0/dagger_data, "
                   "both rounds of foam_dagger_step_head.sh); rows `latent_bc_TAG_sS` with --tag")
    p.add_argument("--tag", default="other")
    p.add_argument("--height-offset", type=float, default=0.0, help="diagnostic: metres added to every height-scan "
                   "cell the policy sees (the foam lowers the base by about 0.028 m; benchmarks/foam_obs_shift.py)")
    p.add_argument("--worlds", nargs="+", default=["real", "sim"], help="where to evaluate: real, sim, or a `real` "
                   "variant with benchmarks/physics/foam_real_WORLD.json (noise_off, rigid, rigid_noise_off)")
    p.add_argument("--replay", type=float, default=0.5, help="share of each batch from the simulation expert data "
                   "(rows get `_replayR`; 0.29 is the share SimDist's head effectively gets, session 20)")
    p.add_argument("--loss", choices=("unit", "normalised"), default="unit",
                   help="BC's loss (tanh output, MSE in the unit action box) or the world model's (linear output, MSE "
                   "in the normaliser's action units, clipped to the bounds when deployed); rows get `_normalised`")
    p.add_argument("--drop-tail", type=int, default=0, help="leave out each DAgger episode's last N steps, as the "
                   "world model's (H, T) windows do for N = T = 25; rows get `_tailN`")
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    runs, task, model = Path(args.runs), get_task("foam"), ckpt.load_model(args.checkpoint)
    start = BCLearner.load(runs / f"compare_foam_bc/bc/seed_{args.seed}/checkpoint")
    cfg = dataclasses.replace(start.cfg, encoder_preset="quadruped-cpu", seed=args.seed)
    bc = BCLearner(start.spec, cfg)  # a fresh head (the BC preset's) on SimDist's encoder and normaliser, frozen
    bc.actor.encoder.encoder.load_state_dict(model.encoder.state_dict())
    for name in bc.actor.encoder.normalizer.fields:
        bc.actor.encoder.normalizer.set_stats(name, *(getattr(model.normalizer, f"{name}_{s}") for s in ("mean", "std")))
    bc.actor.encoder.requires_grad_(False)
    source = {"bc": "dagger_bc_foam", "simdist": "dagger_cli_foam"}[args.labels]
    labels_dir = Path(args.labels_dir) if args.labels_dir else runs / f"{source}_s{args.seed}" / "dagger_data"
    episodes = load_episodes(labels_dir)[1]
    if args.drop_tail:  # the steps the world model's windows never start at; shorter episodes give no window at all
        episodes = [trimmed(e, len(e) - args.drop_tail) for e in episodes if len(e) > args.drop_tail]
    labels = dagger_labels(episodes)
    tag = f"latent_bc_s{args.seed}" if args.labels == "bc" else f"latent_bc_simdist_s{args.seed}"
    if args.labels_dir:
        tag = f"latent_bc_{args.tag}_s{args.seed}"
    if args.replay != 0.5:
        tag += f"_replay{args.replay}"
    tag += ("_normalised" if args.loss == "normalised" else "") + (f"_tail{args.drop_tail}" if args.drop_tail else "")
    if args.loss == "normalised":
        world_model_loss_units(bc, model)
    sampler, rng = SymmetricSampler(sim_expert_transitions(runs / "quadruped_data_v2"), labels, args.replay), \
        np.random.default_rng(args.seed)
    for step in range(args.steps):
        info = bc.update(sampler.sample(cfg.batch_size, rng))
        if step % 1000 == 0:
            logging.info("step %d: %s", step, info)
    agent = bc.agent() if not args.height_offset else HeightOffset(bc.agent(), args.height_offset)
    if args.height_offset:
        tag += f"_height{args.height_offset:+g}"
    with RECORD.open("a") as f:
        for seed in (0, 1, 2):
            for world in args.worlds:
                domain = "sim" if world == "sim" else "real"
                physics = None if world in ("real", "sim") else f"benchmarks/physics/foam_real_{world}.json"
                out = evaluate_grids(task, lambda env: agent, domain, task.grids, 5, seed, physics=physics)
                out.update(model=tag, agent="policy", seed=seed, world=world,
                           command=f"python benchmarks/foam_latent_bc_probe.py --seed {args.seed} --labels {args.labels}"
                           + (f" --labels-dir {args.labels_dir} --tag {args.tag}" if args.labels_dir else "")
                           + (f" --replay {args.replay}" if args.replay != 0.5 else "")
                           + (f" --loss {args.loss}" if args.loss != "unit" else "")
                           + (f" --drop-tail {args.drop_tail}" if args.drop_tail else "")
                           + (f" --worlds {' '.join(args.worlds)}" if args.worlds != ["real", "sim"] else "")
                           + (f" --height-offset {args.height_offset:g}" if args.height_offset else ""))
                f.write(json.dumps(out) + "\n")
                logging.info("%s seed %d: success %.2f", world, seed, out["success_rate"])


class HeightOffset:
    """An agent that sees the height scan shifted by `offset` metres (the foam's sinking, put back)."""

    def __init__(self, agent, offset: float):
        self.agent, self.offset = agent, offset

    def reset(self) -> None:
        self.agent.reset()

    def act(self, obs: dict) -> np.ndarray:
        return self.agent.act({**obs, "height": obs["height"] + np.float32(self.offset)})


def trimmed(e: Episode, n: int) -> Episode:
    """The first n steps of a DAgger episode (the fields this probe reads)."""
    cut = lambda a: None if a is None else a[:n]  # noqa: E731
    return dataclasses.replace(e, obs={g: v[:n] for g, v in e.obs.items()}, action=e.action[:n],
                               command=cut(e.command), expert=cut(e.expert), expert_action=cut(e.expert_action),
                               reward=cut(e.reward), value=cut(e.value))


def world_model_loss_units(bc: BCLearner, model) -> None:
    """Give `bc` the world model's BC loss: the head's mean read as a normalised action (no tanh), MSE against the
    normalised target; deployed as mean·std + μ clipped to the bounds (PolicyAgent)."""
    mu, std = model.normalizer.action_mean, model.normalizer.action_std
    actor = bc.actor
    actor.mode = lambda obs: actor.to_unit(mu + std * actor(obs)[0])

    def update(batch: dict) -> dict[str, float]:
        obs = add_sensor_noise(batch["obs"], bc.spec.sensor_noise_std, bc.cfg.sensor_noise_scale)
        loss = (actor(obs)[0] - (batch["action"] - mu) / std).pow(2).mean()
        bc.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        bc.optimizer.step()
        return {"bc_loss": float(loss.detach())}
    bc.update = update


if __name__ == "__main__":
    main()
