"""Operator corrections during adaptation: the robot drives, an operator takes over now and then (HG-DAgger style).

Dynamics-only adaptation cannot teach the planner a behaviour its frozen BC head never learnt in simulation (on
Slippery Slope at μ = 0.19, the slow climb; docs/tasks/slippery-slope.md). An operator who takes over
for a moment shows it, in the states the robot itself reaches. Every step of a corrected episode is real data for the
dynamics; the steps the operator drove are flagged (`Episode.expert`), and a finetune with the policy head trainable
and the Eq. 2 BC term on (`config.with_bc_head`) clones exactly those steps (model/loss.py: the BC mask stops at the
first robot-driven step); `FinetuneConfig.policy_anchor` keeps the head where it was on the other steps.

On a robot a human decides when to take over and logs it with `EpisodeLogger.log(..., corrected=True)`. In the
simulated `real` domains the operator is the task's privileged teleoperator (baselines/demonstrations.py) and takes
over at random moments: `takeover_rate_hz` per second of robot control, for `takeover_s` seconds each time.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from simdist.adaptation.demonstrations import teleoperator
from simdist.adaptation.rounds import round_initial_conditions
from simdist.data.episodes import episode_files, read_episode_file, read_info, write_episodes
from simdist.rollout import Agent, PrivilegedAgent, reseed_agent, rollout


@dataclass(frozen=True)
class CorrectionConfig:
    """Operator corrections during adaptation ; the rate and length drive the simulated operator."""

    episodes_per_round: int = 0  # corrected episodes after each round's evaluation episodes (0: plain Alg. 1)
    takeover_rate_hz: float = 0.5  # chance per second of robot control that the operator takes over
    takeover_s: float = 1.0  # length of each takeover

    def __post_init__(self) -> None:
        if self.episodes_per_round < 0 or self.takeover_rate_hz < 0 or self.takeover_s <= 0:
            raise ValueError(
                f"corrections need episodes_per_round >= 0, takeover_rate_hz >= 0 and takeover_s > 0, got {self}"
            )


CORRECTION_SEED_OFFSET = 20_011  # corrected episodes start from initial conditions the evaluation never uses
# FinetuneConfig.policy_anchor for `simdist adapt --corrected-episodes`: without it a few minutes of corrections broke
# the Slippery Slope head (0.00); at 30 it held (0.47), docs/tasks/slippery-slope.md
CORRECTIONS_POLICY_ANCHOR = 30.0


class CorrectedAgent:
    """The robot's agent, with an operator taking over in windows; `flags` marks the operator's steps this episode."""

    def __init__(self, robot, operator: Agent, cfg: CorrectionConfig, control_period_s: float, seed: int = 0):
        self.robot, self.operator = robot, operator
        self.p_takeover = min(1.0, cfg.takeover_rate_hz * control_period_s)
        self.window = max(1, round(cfg.takeover_s / control_period_s))
        self.seed, self.rng = seed, np.random.default_rng(seed)
        self.flags: list[bool] = []
        self._left = 0

    def reseed(self, seed: int) -> None:
        self.rng = np.random.default_rng([self.seed, seed])
        for agent in (self.robot, self.operator):
            reseed_agent(agent, seed)

    def reset(self) -> None:
        self.robot.reset()
        self.operator.reset()
        self.flags, self._left = [], 0

    def act(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        if self._left == 0 and self.rng.random() < self.p_takeover:
            self._left = self.window
        operator_drives = self._left > 0
        if operator_drives:
            self._left -= 1
            action = np.asarray(self.operator.act(obs), np.float32)
            self.robot.observe(obs, action)  # the robot's history holds what was executed
        else:
            action = self.robot.act(obs)
        self.flags.append(operator_drives)
        return action


def collect_corrections(
    task, env, robot, cfg: CorrectionConfig, data_dir: Path, j: int, seed: int, grid: str, progress: bool = False
) -> list:
    """Run (or resume) round j's corrected episodes, writing each as `r{j}_c{i}.h5` the moment it ends."""
    n = cfg.episodes_per_round
    ics, _ = round_initial_conditions(task, grid, n, seed + CORRECTION_SEED_OFFSET + 7919 * j)
    info = read_info(data_dir)
    done = {p.stem: p for p in episode_files(data_dir) if p.stem.startswith(f"r{j:02d}_c")}
    episodes = [None] * n
    for i in range(n):
        if (path := done.get(f"r{j:02d}_c{i:03d}")) is not None:
            (episodes[i],) = read_episode_file(path, info)
    todo = [i for i in range(n) if episodes[i] is None]
    if todo:
        operator = PrivilegedAgent(teleoperator(task), env, seed=seed + j)
        agent = CorrectedAgent(robot, operator, cfg, task.spec.control_period_s, seed=seed * 1009 + j)

        def save(k: int, ep, metrics) -> None:
            ep = replace(ep, expert=np.asarray(agent.flags, bool), source_policy=f"corrected-round-{j}")
            write_episodes(data_dir, [ep], name=f"r{j:02d}_c{todo[k]:03d}")
            episodes[todo[k]] = ep

        rollout(
            task,
            env,
            agent,
            [ics[i] for i in todo],
            seed=(seed + CORRECTION_SEED_OFFSET, j),
            first_index=todo[0],
            progress=progress,
            on_episode=save,
            source=f"corrected-round-{j}",
        )
    return episodes


def operator_share(episodes: list) -> float:
    """Share of the steps of `episodes` that the operator drove."""
    flags = [e.expert for e in episodes if e is not None and e.expert is not None]
    return float(np.mean(np.concatenate(flags))) if flags else 0.0
