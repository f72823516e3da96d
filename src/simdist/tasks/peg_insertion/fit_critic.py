"""Fit V^e(s) on discounted returns of the expert, from diverse start states; write critic.safetensors/json.

    python -m simdist.tasks.peg_insertion.fit_critic [--episodes 400] [--seed 0]

States come from episodes where a behaviour policy (a noisy expert or a sub-optimal one) acts for a random number
of steps before the expert takes over; only the expert's part is labelled, with the Monte-Carlo return of the
dense reward. The time limit is lengthened so that truncation barely biases the returns of labelled states.
"""

from __future__ import annotations

import argparse
import logging
import time

import numpy as np
import torch

from simdist.tasks.peg_insertion.critic import CriticConfig, MLPCritic, build_mlp
from simdist.tasks.peg_insertion.task import PegInsertionToolFrameTask
from simdist.tasks.ur5e.rollout import NoisyPolicy, run_episode

log = logging.getLogger(__name__)
EXTRA_STEPS = 150  # extra time-limit steps; returns of the last EXTRA_STEPS states of truncated runs are dropped
MAX_TAKEOVER_STEP = 60


def discounted_returns(rewards: np.ndarray, gamma: float) -> np.ndarray:
    returns = np.zeros_like(rewards)
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + gamma * running
        returns[t] = running
    return returns


def collect(episodes: int, seed: int, gamma: float) -> list[tuple[np.ndarray, np.ndarray]]:
    task = PegInsertionToolFrameTask()
    env = task.make_env("sim", seed=seed)
    env.max_episode_steps = task.spec.episode_steps + EXTRA_STEPS
    expert, suboptimal = task.expert(), list(task.suboptimal_policies())
    rng = np.random.default_rng(seed)
    data = []
    for index in range(episodes):
        takeover = 0 if rng.random() < 0.25 else int(rng.integers(1, MAX_TAKEOVER_STEP))
        if rng.random() < 0.5:
            behaviour = NoisyPolicy(task.expert(), float(rng.uniform(0.2, 1.0)))
        else:
            behaviour = suboptimal[int(rng.integers(len(suboptimal)))]
        schedule = [(behaviour, takeover), (expert, 0)] if takeover else [(expert, 0)]
        episode = run_episode(env, schedule, rng, seed=seed * 100_000 + index)
        returns = discounted_returns(np.array(episode.rewards), gamma)
        last = episode.steps if episode.terminated else episode.steps - EXTRA_STEPS
        keep = slice(min(takeover, episode.steps), max(min(takeover, episode.steps), last))
        data.append((np.array(episode.privileged)[keep], returns[keep]))
        if (index + 1) % 50 == 0:
            log.info("collected %d/%d episodes", index + 1, episodes)
    return data


def fit(
    data: list[tuple[np.ndarray, np.ndarray]], gamma: float, seed: int, steps: int = 3000, holdout: float = 0.2
) -> MLPCritic:
    torch.manual_seed(seed)
    split = int(len(data) * (1 - holdout))  # split by episode, so held-out states are from unseen episodes
    train_x = np.concatenate([x for x, _ in data[:split] if len(x)])
    train_y = np.concatenate([y for x, y in data[:split] if len(x)])
    test_x = np.concatenate([x for x, _ in data[split:] if len(x)])
    test_y = np.concatenate([y for x, y in data[split:] if len(x)])
    mean, std = train_x.mean(0), train_x.std(0)
    std = np.where(std < 1e-6, 1.0, std)  # constant features (e.g. sim latency) pass through unscaled
    config = CriticConfig(
        gamma=gamma,
        input_mean=mean.tolist(),
        input_std=std.tolist(),
        target_mean=float(train_y.mean()),
        target_std=float(train_y.std() + 1e-6),
    )
    network = build_mlp(config.input_dim, config.hidden)
    x = torch.tensor((train_x - mean) / std, dtype=torch.float32)
    y = torch.tensor((train_y - config.target_mean) / config.target_std, dtype=torch.float32)
    optimiser = torch.optim.Adam(network.parameters(), lr=1e-3, weight_decay=1e-5)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, steps)
    for step in range(steps):
        batch = torch.randint(0, len(x), (256,))
        loss = torch.nn.functional.mse_loss(network(x[batch]).squeeze(-1), y[batch])
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        schedule.step()
        if (step + 1) % 500 == 0:
            log.info("step %d loss %.4f", step + 1, loss.item())
    critic = MLPCritic(config, network)
    r2 = lambda xs, ys: float(1 - np.mean((critic.values(xs) - ys) ** 2) / np.var(ys))  # noqa: E731
    config.report = {
        "train_r2": r2(train_x, train_y),
        "heldout_r2": r2(test_x, test_y),
        "train_states": len(train_x),
        "heldout_states": len(test_x),
        "episodes": len(data),
        "gradient_steps": steps,
        "return_range": [float(np.min(train_y)), float(np.max(train_y))],
    }
    return critic


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=400)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    torch.set_num_threads(1)
    gamma = PegInsertionToolFrameTask.spec.gamma
    start = time.perf_counter()
    data = collect(args.episodes, args.seed, gamma)
    log.info("collection took %.0f s", time.perf_counter() - start)
    critic = fit(data, gamma, args.seed, steps=args.steps)
    critic.config.report["seconds"] = round(time.perf_counter() - start, 1)
    critic.config.report["command"] = (
        f"python -m simdist.tasks.peg_insertion.fit_critic --episodes {args.episodes} --steps {args.steps} "
        f"--seed {args.seed}"
    )
    critic.save()
    log.info("critic report: %s", critic.config.report)


if __name__ == "__main__":
    main()
