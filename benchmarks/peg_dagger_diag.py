"""Why DAgger made Peg Insertion's BC head worse (session 18): two checks on `runs/dagger_peg`.

1. The deployed head (PolicyAgent, its own history buffer fed the recorded executed actions) and the training forward
   pass give the same first action on the windows of a DAgger episode, and how far each head is from the labels there.
2. Each head drives 3 Narrow `sim` trials while the expert labels: mean |a - a*| per action dimension and success.

    python benchmarks/peg_dagger_diag.py --heads checkpoints/peg-insertion runs/dagger_peg/round_01
"""

import argparse

import numpy as np
import torch

from simdist.adaptation.dagger import dagger_episode
from simdist.data.episodes import load_episodes
from simdist.data.windows import WindowDataset
from simdist.eval.rollout import PrivilegedAgent
from simdist.model.world_model import ACTION
from simdist.planning.agent import PolicyAgent
from simdist.tasks import get_task
from simdist.training.checkpoint import load_model


def paths_agree(model, info, episode, steps: int = 60) -> tuple[float, float]:
    data = WindowDataset(info, [episode], model.cfg.history, model.cfg.horizon)
    with torch.no_grad():
        out = model(data.batch(np.arange(steps)))
    trained = model.normalizer.denormalize(ACTION, out["policy"][:, 0]).numpy()
    agent, deployed = PolicyAgent(model), []
    agent.reset()
    for t in range(steps):
        obs = {g: episode.obs[g][t] for g in episode.obs}
        deployed.append(agent.bc_action(obs))
        agent.execute(obs, episode.action[t])
    return float(np.abs(trained - np.array(deployed)).max()), float(np.abs(trained - episode.expert_action[:steps]).mean())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--heads", nargs="+", required=True)
    ap.add_argument("--data", default="runs/dagger_peg/dagger_data", help="a simdist dagger dataset (round-1 file first)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    task = get_task("peg-insertion")
    info, episodes = load_episodes(args.data)
    for name in args.heads:
        model = load_model(name).eval()
        gap, fit = paths_agree(model, info, episodes[0])
        print(f"{name}: deployed vs training pass max |diff| {gap:.1e}; mean |a - a*| on a round-1 episode {fit:.3f}")
        env = task.make_env("sim", seed=1)
        head, expert = PolicyAgent(model), PrivilegedAgent(task.expert(), env, seed=1)
        for i, ic in enumerate(task.initial_conditions("narrow", 3, seed=5)):
            e = dagger_episode(task, env, head, expert, ic, 1000 + i)
            print(f"  trial {i}: success {e.success}, mean |a - a*| per dim "
                  f"{np.round(np.abs(e.action - e.expert_action).mean(0).astype(np.float64), 2).tolist()}")


if __name__ == "__main__":
    main()
