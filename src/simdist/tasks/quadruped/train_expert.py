"""Train (resumably) and export the privileged PPO expert of the quadruped tasks.

    python -m simdist.tasks.quadruped.train_expert --run runs/quadruped_ppo --iterations 300 --envs 128
    python -m simdist.tasks.quadruped.train_expert --run runs/quadruped_ppo --export

Each call resumes from the newest ``model_<it>.pt`` in the run folder and adds ``--iterations`` PPO iterations,
so a long run is a sequence of short jobs (keep each under ~20 minutes on the shared 2-core box). Checkpoints
are written every 50 iterations; they are the sub-optimal policies of Alg. 2. ``progress.jsonl`` holds the
reward curve. ``--export`` writes TorchScript actors for the authors' checkpoint iterations {0, 50, 100, 150,
200, 250, 300, 400, 500, 1000, 2000} that exist plus the newest (the expert), and the newest critic, into the
package's ``checkpoints/`` folder (see experts.py). ``--probe`` runs the newest checkpoint for 10 s on flat ground
with a 0.5 m/s forward command (16 envs, DR on) and reports survival and mean forward velocity.
"""

from __future__ import annotations

import argparse
import logging
import re
import time
from pathlib import Path

import torch

from simdist.tasks.quadruped.experts import CHECKPOINT_DIR
from simdist.tasks.quadruped.ppo import NUM_STEPS_PER_ENV, QuadrupedVecEnv, ppo_config

log = logging.getLogger(__name__)
SUBOPTIMAL_ITERATIONS = (0, 50, 100, 150, 200, 250, 300, 400, 500, 1000, 2000)


def checkpoints(run: Path) -> dict[int, Path]:
    found = {}
    for p in run.glob("model_*.pt"):
        m = re.fullmatch(r"model_(\d+)\.pt", p.name)
        if m:
            found[int(m.group(1))] = p
    return dict(sorted(found.items()))


def make_runner(run: Path, num_envs: int, seed: int, hidden: tuple[int, ...], start_iteration: int = 0,
                normalize_obs: bool = False):
    from rsl_rl.runners import OnPolicyRunner

    env = QuadrupedVecEnv(num_envs, seed=seed, progress_path=run / "progress.jsonl", start_iteration=start_iteration)
    cfg = ppo_config(hidden, obs_normalization=normalize_obs)
    return OnPolicyRunner(env, cfg, log_dir=str(run), device="cpu"), env


def train(run: Path, iterations: int, num_envs: int, seed: int, hidden: tuple[int, ...],
          normalize_obs: bool = False) -> None:
    run.mkdir(parents=True, exist_ok=True)
    existing = checkpoints(run)
    start = max(existing) + 1 if existing else 0
    # a fresh seed per chunk so resumed chunks do not replay the same terrains and commands
    runner, env = make_runner(run, num_envs, seed + start, hidden, start, normalize_obs)
    if existing:
        runner.load(str(existing[max(existing)]))
        runner.current_learning_iteration = start
        log.info("resuming from %s", existing[max(existing)])
    t0 = time.time()
    runner.learn(iterations, init_at_random_ep_len=not existing)
    wall = time.time() - t0
    steps = iterations * NUM_STEPS_PER_ENV * num_envs
    log.info("%d iterations, %d env steps in %.0f s: %.0f env-steps/s including PPO updates",
             iterations, steps, wall, steps / wall)


def export(run: Path, num_envs: int, hidden: tuple[int, ...], out_dir: Path = CHECKPOINT_DIR,
           normalize_obs: bool = False) -> list[Path]:
    found = checkpoints(run)
    if not found:
        raise FileNotFoundError(f"no model_<it>.pt checkpoints in {run}; train first")
    newest = max(found)
    keep = [it for it in found if it in SUBOPTIMAL_ITERATIONS and it != newest] + [newest]
    runner, _ = make_runner(run / "export_tmp", num_envs, 0, hidden, normalize_obs=normalize_obs)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for it in keep:
        runner.load(str(found[it]))
        path = out_dir / f"policy_{it}.pt"
        torch.jit.script(runner.alg.get_policy().as_jit().cpu()).save(str(path))
        written.append(path)
    path = out_dir / "critic.pt"
    torch.jit.script(runner.alg.critic.as_jit().cpu()).save(str(path))  # the newest checkpoint is loaded last
    written.append(path)
    log.info("exported %s", [p.name for p in written])
    return written


def probe(run: Path, num_envs: int, hidden: tuple[int, ...], normalize_obs: bool = False, speed: float = 0.5,
          seconds: float = 10.0) -> dict:
    """How far the newest checkpoint is from walking: flat ground, DR on, a constant forward command."""
    import numpy as np

    from simdist.tasks.quadruped.batch_env import QuadrupedBatchEnv
    from simdist.tasks.quadruped.physics import SIM
    from simdist.tasks.quadruped.scenes import TrainingScene

    found = checkpoints(run)
    runner, _ = make_runner(run / "export_tmp", 8, 0, hidden, normalize_obs=normalize_obs)
    runner.load(str(found[max(found)]))
    actor = runner.alg.get_policy().as_jit().cpu().eval()
    env = QuadrupedBatchEnv(num_envs, TrainingScene(num_envs, curriculum=False, kinds=("flat",)), SIM, seed=123,
                            random_commands=False, auto_reset=False)
    env.set_command(np.tile([speed, 0.0, 0.0], (num_envs, 1)))
    alive, forward = np.ones(num_envs, bool), []
    for _ in range(int(seconds / env.dt)):
        with torch.no_grad():
            action = actor(torch.from_numpy(env.privileged())).numpy()
        _, _, terminated, _, _ = env.step(action, observe=False, with_privileged=False)
        alive &= ~terminated
        forward.append(np.where(alive, env.lin_vel_body[:, 0], np.nan))
    result = {"iteration": max(found), "command_vx": speed, "seconds": seconds,
              "survived": float(alive.mean()), "mean_forward_velocity": float(np.nanmean(forward))}
    log.info("probe: %s", result)
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", type=Path, default=Path("runs/quadruped_ppo"))
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--envs", type=int, default=128)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--hidden", type=int, nargs="+", default=[256, 256, 128])
    parser.add_argument("--threads", type=int, default=1, help="torch threads (the box has 2 shared cores)")
    parser.add_argument("--normalize-obs", action="store_true", help="rsl-rl empirical normalisation (run 1 used it)")
    parser.add_argument("--export", action="store_true", help="export policies and critic instead of training")
    parser.add_argument("--out", type=Path, default=CHECKPOINT_DIR, help="export folder")
    parser.add_argument("--probe", action="store_true", help="test the newest checkpoint walking at 0.5 m/s on flat")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    torch.set_num_threads(args.threads)
    if args.export:
        export(args.run, args.envs, tuple(args.hidden), args.out, args.normalize_obs)
    elif args.probe:
        probe(args.run, 16, tuple(args.hidden), args.normalize_obs)
    else:
        train(args.run, args.iterations, args.envs, args.seed, tuple(args.hidden), args.normalize_obs)


if __name__ == "__main__":
    main()
