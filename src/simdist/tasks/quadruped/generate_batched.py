"""Batched Alg. 2 data generation for the quadruped: N robots on the randomised training terrain in one process.

The generic generator (simdist.data.generate) steps one single-robot env per process; this one steps a
:class:`QuadrupedBatchEnv` of N robots and runs each policy once per step on all the robots it drives, which is
what makes the quadruped's data affordable on a CPU. Per episode it does exactly what the generic loop does
(paper Alg. 2 / Appendix A, preset ``quadruped``): the expert drives it with probability ``expert_prob``, else a
uniformly chosen sub-optimal checkpoint; Gaussian action noise comes in on/off windows with a per-episode,
per-joint std (``NoiseWindows``); each step records o_t (proprio, height scan), g_t, a_t after noise, the dense
reward, V^e(s_t) from the expert critic and whether a_t is the uncorrupted expert's. Setting: the paper's
data-generation distribution, i.e. ``scene: terrain`` (terrain_env.py): a fresh sub-terrain at a uniformly
random difficulty, DR, the paper's command mixture, 20 s episodes, no observation noise. Episodes are written
in the standard dataset format, so ``simdist pretrain --data`` reads them.

    python -m simdist.tasks.quadruped.generate_batched --task foam --out runs/quadruped_data \\
        --transitions 1000000 --envs 64 --max-seconds 1200
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from simdist.data.episodes import DatasetInfo, Episode, create_dataset, write_episodes
from simdist.data.generate import GenerationConfig, NoiseWindows, dataset_statistics, generation_preset
from simdist.tasks.quadruped.batch_env import EPISODE_S, QuadrupedBatchEnv
from simdist.tasks.quadruped.physics import SIM
from simdist.tasks.quadruped.scenes import TrainingScene

log = logging.getLogger(__name__)


class _Recorder:
    """Per-env lists for the episode in progress."""

    def __init__(self) -> None:
        self.proprio, self.height, self.command, self.action = [], [], [], []
        self.reward, self.value, self.expert = [], [], []


def generate_batched(task, out: str | Path, transitions: int, num_envs: int = 64, seed: int = 0,
                     cfg: GenerationConfig | None = None, max_seconds: float | None = None,
                     policies: list | None = None, critic=None, progress: bool = True) -> dict:
    """Generate about ``transitions`` steps (whole episodes; stops early after ``max_seconds``) into ``out``.

    ``policies`` (expert first, then the sub-optimal ones) and ``critic`` default to the task's exported ones.
    """
    cfg = cfg or generation_preset("quadruped")
    spec = task.spec
    create_dataset(out, DatasetInfo(task=spec.name, domain="sim", control_period_s=spec.control_period_s,
                                    obs_shapes=spec.obs_shapes, action_dim=spec.action_dim,
                                    command_dim=spec.command_dim, action_low=spec.action_low,
                                    action_high=spec.action_high,
                                    notes=f"Alg. 2 generation (batched, terrain scene) {asdict(cfg)}"))
    if policies is None:
        policies = [task.expert()] + list(task.suboptimal_policies())
    critic = critic or task.critic()
    others = policies[1:]
    rng = np.random.default_rng([seed, 1])
    env = QuadrupedBatchEnv(num_envs, TrainingScene(num_envs, curriculum=False), SIM, seed=seed,
                            random_commands=True, auto_reset=False, episode_s=EPISODE_S)
    low, high = np.array(spec.action_low), np.array(spec.action_high)
    which = np.zeros(num_envs, dtype=int)
    noise: list[NoiseWindows] = [None] * num_envs  # type: ignore[list-item]
    rec = [_Recorder() for _ in range(num_envs)]
    start_xy = env.qpos[:, :2].copy()

    def assign(ids: np.ndarray) -> None:
        for i in ids:
            use_expert = not others or rng.random() < cfg.expert_prob
            which[i] = 0 if use_expert else 1 + int(rng.integers(len(others)))
            noise[i] = NoiseWindows(cfg, spec.action_dim, rng)
            rec[i] = _Recorder()
        start_xy[ids] = env.qpos[ids, :2]

    assign(np.arange(num_envs))
    buffer: list[Episode] = []
    steps_done, episodes_done, files, written = 0, 0, 0, 0
    t0 = time.perf_counter()
    bar = tqdm(total=transitions, unit="step", desc=f"generate {task.spec.name} ({num_envs} robots)",
               disable=not progress)
    while steps_done < transitions and (max_seconds is None or time.perf_counter() - t0 < max_seconds):
        state = env.privileged()
        obs = env.observations()
        action = np.zeros((num_envs, spec.action_dim))
        with torch.no_grad():
            for k in np.unique(which):
                ids = np.flatnonzero(which == k)
                action[ids] = policies[k].act(state[ids])
            values = critic.values(state)
        noised = np.array([noise[i].step() for i in range(num_envs)])
        stds = np.stack([noise[i].std for i in range(num_envs)])
        action = np.clip(action + noised[:, None] * rng.normal(0.0, 1.0, action.shape) * stds, low, high)
        for i in range(num_envs):
            r = rec[i]
            r.proprio.append(obs["proprio"][i])
            r.height.append(obs["height"][i])
            r.command.append(obs["command"][i])
            r.action.append(action[i])
            r.value.append(values[i])
            r.expert.append(which[i] == 0 and not noised[i])
        _, reward, terminated, truncated, _ = env.step(action, observe=False, with_privileged=False)
        for i in range(num_envs):
            rec[i].reward.append(reward[i])
        steps_done += num_envs
        bar.update(num_envs)
        done = np.flatnonzero(terminated | truncated)
        for i in done:
            r, fell = rec[i], bool(terminated[i])
            metrics = {"success": float(not fell), "fell": float(fell), "time_s": len(r.action) * env.dt,
                       "progress_m": float(np.linalg.norm(env.qpos[i, :2] - start_xy[i]))}
            buffer.append(Episode(
                obs={"proprio": np.asarray(r.proprio, np.float32), "height": np.asarray(r.height, np.float32)},
                action=np.asarray(r.action, np.float32), command=np.asarray(r.command, np.float32),
                reward=np.asarray(r.reward, np.float32), value=np.asarray(r.value, np.float32),
                expert=np.asarray(r.expert, bool), success=not fell, source_policy=policies[which[i]].name,
                metrics=metrics))
            episodes_done += 1
            written += len(r.action)
        if len(done):
            env.reset(done)
            assign(done)
        if len(buffer) >= cfg.episodes_per_file:
            write_episodes(out, buffer, name=f"b{seed}_{files:05d}")
            files, buffer = files + 1, []
            log.info("%d episodes, %d steps recorded (incl. unfinished), %.0f steps/s", episodes_done, steps_done,
                     steps_done / (time.perf_counter() - t0))
    bar.close()
    if buffer:
        write_episodes(out, buffer, name=f"b{seed}_{files:05d}")
    wall = time.perf_counter() - t0
    stats = dataset_statistics(out)
    stats.update(wall_s=wall, num_envs=num_envs, steps_simulated=steps_done, steps_written_this_run=written,
                 transitions_per_s=written / wall, simulated_steps_per_s=steps_done / wall,
                 note="steps/episodes count the whole dataset; the rates count this run only (unfinished episodes "
                      "at the stop are dropped)")
    Path(out, "stats.json").write_text(json.dumps(stats, indent=2))
    return stats


def main(argv: list[str] | None = None) -> None:
    from simdist.tasks import get_task

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default="foam", choices=("foam", "slippery-slope"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--transitions", type=int, default=1_000_000)
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-seconds", type=float, default=None, help="stop after this wall time")
    parser.add_argument("--stats-out", type=Path, default=None, help="also copy stats.json here")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    torch.set_num_threads(1)
    stats = generate_batched(get_task(args.task), args.out, args.transitions, args.envs, args.seed,
                             max_seconds=args.max_seconds)
    if args.stats_out:
        args.stats_out.parent.mkdir(parents=True, exist_ok=True)
        args.stats_out.write_text(json.dumps(stats, indent=2))
    log.info("stats: %s", json.dumps(stats))


if __name__ == "__main__":
    main()
