"""Batched Alg. 2 data generation for the quadruped: N robots on the randomised training terrain in one process.

The generic generator (simdist.data.generate) steps one single-robot env per process; this one steps a
:class:`QuadrupedBatchEnv` of N robots and runs each policy once per step on all the robots it drives, which is
what makes the quadruped's data affordable on a CPU. Per episode it does exactly what the generic loop does
(paper Alg. 2 / Appendix A, preset ``quadruped``): the expert drives it with probability ``expert_prob``, else a
uniformly chosen sub-optimal checkpoint; Gaussian action noise comes in on/off windows with a per-episode,
per-joint std (``NoiseWindows``); each step records o_t (proprio, height scan), g_t, a_t after noise, the dense
reward, V^e(s_t) from the expert critic and whether a_t is the uncorrupted expert's. Setting: the paper's
data-generation distribution, i.e. ``scene: terrain`` (terrain_env.py): a fresh sub-terrain at a uniformly
random difficulty, DR, the paper's command mixture, 20 s episodes, no observation noise. With ``--scene course``
the robots walk the task's own course instead (rigid, ``sim`` physics and DR), each trial at a speed drawn
uniformly over the task's trial speeds, driven by the straight-line P-controller as in evaluation, and ending
at the finish line, on a fall or at the trial's time limit. Episodes are written in the standard dataset
format, so ``simdist pretrain --data`` reads them.

    python -m simdist.data.quadruped_batched --task foam --out runs/quadruped_data \\
        --transitions 1000000 --envs 64 --max-seconds 1200 [--scene course]
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

from simdist.data.episodes import DatasetInfo, Episode, create_dataset, write_episodes
from simdist.data.generate import GenerationConfig, NoiseWindows, dataset_statistics, expert_only, generation_preset
from simdist.progress import progress_bar
from simdist.tasks import get_task
from simdist.tasks.base import domain_physics
from simdist.tasks.quadruped import INITIAL_YAW_RAD
from simdist.tasks.quadruped.batch_env import EPISODE_S, QuadrupedBatchEnv
from simdist.tasks.quadruped.commands import StraightLineCommand
from simdist.tasks.quadruped.course_env import time_limit_s
from simdist.tasks.quadruped.scenes import CourseScene, TrainingScene, course_for

SCENES = ("terrain", "course")

log = logging.getLogger(__name__)


class _Recorder:
    """Per-env lists for the episode in progress."""

    def __init__(self) -> None:
        self.proprio, self.height, self.command, self.action = [], [], [], []
        self.reward, self.value, self.expert = [], [], []

    def record(self, obs: dict, i: int, action: np.ndarray, value: float, expert: bool) -> None:
        """Robot i's step before it is taken (its reward follows with `self.reward`)."""
        self.proprio.append(obs["proprio"][i])
        self.height.append(obs["height"][i])
        self.command.append(obs["command"][i])
        self.action.append(action)
        self.value.append(value)
        self.expert.append(expert)

    def episode(self, success: bool, metrics: dict, source_policy: str) -> Episode:
        return Episode(
            obs={"proprio": np.asarray(self.proprio, np.float32), "height": np.asarray(self.height, np.float32)},
            action=np.asarray(self.action, np.float32),
            command=np.asarray(self.command, np.float32),
            reward=np.asarray(self.reward, np.float32),
            value=np.asarray(self.value, np.float32),
            expert=np.asarray(self.expert, bool),
            success=success,
            source_policy=source_policy,
            metrics=metrics,
        )


class _CourseTrials:
    """Evaluation-style trials on the task's course for every robot of a batch: speed ~ U[slowest, fastest trial
    speed], heading error ~ U[±INITIAL_YAW_RAD], the straight-line P-controller's command, the trial time limit."""

    def __init__(self, task, env: QuadrupedBatchEnv, rng: np.random.Generator, course):
        self.course, self.env, self.rng = course, env, rng
        self.speed_range = (min(task.config.speeds), max(task.config.speeds))
        n = env.num_envs
        self.controllers: list[StraightLineCommand] = [StraightLineCommand(0.0)] * n
        self.limit_steps, self.start_x = np.zeros(n, dtype=int), np.zeros(n)
        self.reset(np.arange(n))

    def reset(self, ids: np.ndarray) -> None:
        env = self.env
        for i in ids:
            speed = float(self.rng.uniform(*self.speed_range))
            env.reset(np.array([i]), initial_yaw=float(self.rng.uniform(-INITIAL_YAW_RAD, INITIAL_YAW_RAD)))
            self.controllers[i] = StraightLineCommand(
                speed, start_xy=tuple(env.qpos[i, :2]), start_yaw=float(env.yaw[i])
            )
            self.limit_steps[i] = int(round(time_limit_s(self.course, speed) / env.dt))
            self.start_x[i] = env.qpos[i, 0]
        self.update_commands()

    def update_commands(self) -> None:
        env, t = self.env, self.env.step_count * self.env.dt
        env.set_command(np.stack([c(t[i], env.qpos[i, :2], float(env.yaw[i])) for i, c in enumerate(self.controllers)]))

    def progress(self) -> np.ndarray:
        return np.clip(self.env.qpos[:, 0] - self.start_x, 0.0, self.course.length_m)

    def finished(self) -> np.ndarray:
        """Past the finish line (an episode success) or out of time."""
        return (self.progress() >= self.course.length_m - 1e-9) | (self.env.step_count >= self.limit_steps)


def _batch_env(task, scene: str, physics, num_envs: int, seed: int, rng: np.random.Generator):
    """The robots and, on the course, the evaluation-style trials that command them (None on the terrain, whose
    commands are random and whose episodes end after EPISODE_S)."""
    if scene == "course":
        course = course_for(task.config.name, physics)  # the geometry of these physics
        env = QuadrupedBatchEnv(
            num_envs,
            CourseScene(course, physics),
            physics,
            seed=seed,
            random_commands=False,
            auto_reset=False,
            episode_s=1e6,
        )
        return env, _CourseTrials(task, env, rng, course)
    env = QuadrupedBatchEnv(
        num_envs,
        TrainingScene(num_envs, curriculum=False),
        physics,
        seed=seed,
        random_commands=True,
        auto_reset=False,
        episode_s=EPISODE_S,
    )
    return env, None


class _Alg2Robots:
    """Alg. 2 on every robot of a batch env: each robot's episode has its driving policy (the expert with
    probability ``expert_prob``, else a uniformly chosen sub-optimal one), its noise windows and its recorder; a
    robot whose episode ends starts the next one at once."""

    def __init__(
        self,
        task,
        env: QuadrupedBatchEnv,
        trials: _CourseTrials | None,
        policies: list,
        critic,
        cfg: GenerationConfig,
        rng: np.random.Generator,
    ):
        self.task, self.env, self.trials, self.rng = task, env, trials, rng
        self.policies, self.critic, self.cfg = policies, critic, cfg
        n, spec = env.num_envs, task.spec
        self.low, self.high = np.array(spec.action_low), np.array(spec.action_high)
        self.which = np.zeros(n, dtype=int)  # index into policies: 0 is the expert
        self.noise: list[NoiseWindows] = [None] * n  # type: ignore[list-item]
        self.rec = [_Recorder() for _ in range(n)]
        self.start_xy = env.qpos[:, :2].copy()
        self._start(np.arange(n))

    def _start(self, ids: np.ndarray) -> None:
        """New episodes for robots ``ids`` (already reset): their policy, noise windows and recorder."""
        others = len(self.policies) - 1
        for i in ids:
            use_expert = not others or self.rng.random() < self.cfg.expert_prob
            self.which[i] = 0 if use_expert else 1 + int(self.rng.integers(others))
            self.noise[i] = NoiseWindows(self.cfg, self.task.spec.action_dim, self.rng, self.task.spec)
            self.rec[i] = _Recorder()
        self.start_xy[ids] = self.env.qpos[ids, :2]

    def _actions(self, state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every robot's action after its noise window, and whether it is the uncorrupted expert's. Each policy
        runs once, on all the robots it drives."""
        n = self.env.num_envs
        action = np.zeros((n, self.task.spec.action_dim))
        with torch.no_grad():
            for k in np.unique(self.which):
                ids = np.flatnonzero(self.which == k)
                action[ids] = self.policies[k].act(state[ids])
        noised = np.array([self.noise[i].step() for i in range(n)])
        stds = np.stack([self.noise[i].std for i in range(n)])
        action = np.clip(action + noised[:, None] * self.rng.normal(0.0, 1.0, action.shape) * stds, self.low, self.high)
        return action, (self.which == 0) & ~noised

    def step(self) -> list[Episode]:
        """One control step of every robot; returns the episodes that ended with it."""
        env, trials = self.env, self.trials
        state, obs = env.privileged(), env.observations()
        action, uncorrupted_expert = self._actions(state)
        with torch.no_grad():
            values = self.critic.values(state)
        for i in range(env.num_envs):
            self.rec[i].record(obs, i, action[i], values[i], bool(uncorrupted_expert[i]))
        _, reward, terminated, truncated, _ = env.step(action, observe=False, with_privileged=False)
        if trials is not None:
            truncated = trials.finished() & ~terminated
        for i in range(env.num_envs):
            self.rec[i].reward.append(reward[i])
        done = np.flatnonzero(terminated | truncated)
        episodes = [self._episode(i, fell=bool(terminated[i])) for i in done]
        if len(done):
            if trials is None:
                env.reset(done)
            else:
                trials.reset(done)
            self._start(done)
        if trials is not None:
            trials.update_commands()
        return episodes

    def _episode(self, i: int, fell: bool) -> Episode:
        """Robot i's finished episode. Success on the terrain: surviving it; on the course: reaching the finish."""
        if self.trials is None:
            success, progress_m = not fell, float(np.linalg.norm(self.env.qpos[i, :2] - self.start_xy[i]))
        else:
            progress_m = float(self.trials.progress()[i])
            success = not fell and progress_m >= self.trials.course.length_m - 1e-9
        rec = self.rec[i]
        metrics = {
            "success": float(success),
            "fell": float(fell),
            "time_s": len(rec.action) * self.env.dt,
            "progress_m": progress_m,
        }
        return rec.episode(success, metrics, self.policies[self.which[i]].name)


def generate_batched(
    task,
    out: str | Path,
    transitions: int,
    num_envs: int = 64,
    seed: int = 0,
    cfg: GenerationConfig | None = None,
    max_seconds: float | None = None,
    policies: list | None = None,
    critic=None,
    progress: bool = True,
    scene: str = "terrain",
    domain: str = "sim",
    physics: dict | str | None = None,
) -> dict:
    """Generate about ``transitions`` steps (whole episodes; stops early after ``max_seconds``) into ``out``.

    ``policies`` (expert first, then the sub-optimal ones) and ``critic`` default to the task's exported ones.
    ``domain="real"`` (course scene only) runs the same recipe on the task's `real` physics, sensor noise
    included: privileged data that SimDist itself never gets, for upper-bound diagnostics. ``physics`` overrides
    fields of the domain's physics (dict or JSON/YAML file), e.g. a lower foot-friction range.
    """
    if scene not in SCENES:
        raise ValueError(f"unknown scene {scene!r}; valid scenes: {list(SCENES)}")
    if domain == "real" and scene != "course":
        raise ValueError("domain 'real' needs scene 'course': the training terrain exists only in simulation")
    physics = domain_physics(task, domain, physics)
    cfg = cfg or generation_preset("quadruped")
    if cfg.teacher != "expert":
        raise ValueError(f"data.teacher={cfg.teacher!r} needs the per-episode generator: `simdist generate`")
    if cfg.mid_task_prob > 0:
        raise ValueError("mid-task starts (data.mid_task_prob) need the per-episode generator: `simdist generate`")
    spec = task.spec
    create_dataset(
        out,
        DatasetInfo.of_task(
            spec,
            domain,
            f"Alg. 2 generation (batched, {scene} scene, {domain} physics {asdict(physics)}) {asdict(cfg)}",
        ),
    )
    if policies is None:
        policies = [task.expert()] + list(task.suboptimal_policies())
    rng = np.random.default_rng([seed, 1])
    env, trials = _batch_env(task, scene, physics, num_envs, seed, rng)
    robots = _Alg2Robots(task, env, trials, policies, critic or task.critic(), cfg, rng)
    buffer: list[Episode] = []
    steps_done, episodes_done, files, written = 0, 0, 0, 0
    t0 = time.perf_counter()
    bar = progress_bar(
        total=transitions, unit="step", desc=f"generate {task.spec.name} ({num_envs} robots)", disable=not progress
    )
    while steps_done < transitions and (max_seconds is None or time.perf_counter() - t0 < max_seconds):
        finished = robots.step()
        steps_done += num_envs
        bar.update(num_envs)
        buffer += finished
        episodes_done += len(finished)
        written += sum(len(e) for e in finished)
        if len(buffer) >= cfg.episodes_per_file:
            write_episodes(out, buffer, name=f"b{seed}_{files:05d}")
            files, buffer = files + 1, []
            log.info(
                "%d episodes, %d steps recorded (incl. unfinished), %.0f steps/s",
                episodes_done,
                steps_done,
                steps_done / (time.perf_counter() - t0),
            )
    bar.close()
    if buffer:
        write_episodes(out, buffer, name=f"b{seed}_{files:05d}")
    wall = time.perf_counter() - t0
    stats = dataset_statistics(out)
    stats.update(
        scene=scene,
        wall_s=wall,
        num_envs=num_envs,
        steps_simulated=steps_done,
        steps_written_this_run=written,
        transitions_per_s=written / wall,
        simulated_steps_per_s=steps_done / wall,
        note="steps/episodes count the whole dataset; the rates count this run only (unfinished episodes "
        "at the stop are dropped)",
    )
    Path(out, "stats.json").write_text(json.dumps(stats, indent=2))
    return stats


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default="foam", choices=("foam", "slippery-slope"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--transitions", type=int, default=1_000_000)
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-seconds", type=float, default=None, help="stop after this wall time")
    parser.add_argument("--stats-out", type=Path, default=None, help="also copy stats.json here")
    parser.add_argument(
        "--scene",
        default="terrain",
        choices=SCENES,
        help="terrain: the paper's training terrains; course: the task's own course, as evaluated",
    )
    parser.add_argument(
        "--domain",
        default="sim",
        choices=("sim", "real"),
        help="physics of the course scene; real = the task's held-out robot (privileged diagnostics)",
    )
    parser.add_argument("--physics", help="JSON/YAML override of the domain's physics, e.g. a foot_friction_range")
    parser.add_argument(
        "--expert-only",
        action="store_true",
        help="the clean expert alone, no sub-optimal policies or noise (Table I's expert-only data)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    torch.set_num_threads(1)
    stats = generate_batched(
        get_task(args.task),
        args.out,
        args.transitions,
        args.envs,
        args.seed,
        cfg=expert_only(generation_preset("quadruped")) if args.expert_only else None,
        max_seconds=args.max_seconds,
        scene=args.scene,
        domain=args.domain,
        physics=args.physics,
    )
    if args.stats_out:
        args.stats_out.parent.mkdir(parents=True, exist_ok=True)
        args.stats_out.write_text(json.dumps(stats, indent=2))
    log.info("stats: %s", json.dumps(stats))


if __name__ == "__main__":
    main()
