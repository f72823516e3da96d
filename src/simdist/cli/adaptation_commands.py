"""`simdist adapt | dagger`: Alg. 1 in the task's real domain, and DAgger for the BC head in `sim`."""

from __future__ import annotations

from dataclasses import replace

from simdist.adaptation.adapt import AdaptConfig, adapt
from simdist.adaptation.corrections import CORRECTIONS_POLICY_ANCHOR, CorrectionConfig
from simdist.adaptation.dagger import DaggerConfig, dagger
from simdist.cli.parser import PLAN_DEVICE_HELP, add_alias, add_command, add_set
from simdist.cli.run_config import configure
from simdist.config import FINETUNE_PRESETS, with_bc_head
from simdist.planning.settings import task_planner
from simdist.tasks import get_task
from simdist.tasks.base import default_grid
from simdist.training.finetune import task_finetune
from simdist.training.train import plan_device


def cmd_adapt(args) -> dict:
    task = get_task(args.task)
    corrections = CorrectionConfig(args.corrected_episodes, args.takeover_rate, args.takeover_s)

    def finetune_base(name: str | None):
        ft = task_finetune(task, name)
        if corrections.episodes_per_round:  # clone the operator, keep the head elsewhere (docs/real-robot.md §3)
            ft = replace(with_bc_head(ft), policy_anchor=CORRECTIONS_POLICY_ANCHOR)
        return ft

    makers = {
        "adapt": lambda _: AdaptConfig(
            rounds=args.rounds,
            episodes_per_round=args.episodes_per_round,
            grid=args.grid or default_grid(task),
            seed=args.seed,
            initial_data=args.initial_data,
            evaluate_head=args.evaluate_head,
        ),
        "corrections": lambda _: corrections,
        "finetune": finetune_base,
        "mppi": lambda name: task_planner(task, name),
    }
    legged = bool(task.spec.command_dim)
    sections = configure(args, makers, args.preset, aliases={"loss": "finetune.loss"}, legged=legged)
    result = adapt(
        task,
        args.checkpoint,
        args.out,
        sections["adapt"],
        sections["mppi"],
        sections["finetune"],
        physics=args.physics,
        progress=not args.quiet,
        sim_data=args.sim_data,
        corrections=sections["corrections"],
        planner_device=plan_device(args.plan_device),
    )
    return result if args.json else readable_rounds(result)


def readable_rounds(result: dict) -> dict:
    """Without --json: one line per round (success with its interval and count, the BC head's where evaluated, real
    minutes so far), not every initial condition; the full result is OUT/adapt_results.json."""
    rounds = {}
    for r in result["rounds"]:
        low, high = r["success_ci95"]
        line = {"success": f"{r['success_rate']:.2f} [{low:.2f}, {high:.2f}] ({sum(r['successes'])}/{r['episodes']})"}
        if "head_success_rate" in r:
            line["BC head"] = f"{r['head_success_rate']:.2f}"
        rounds[f"round {r['round']}"] = {**line, "real minutes": round(r["real_minutes"], 2)}
    keep = ("task", "zero_shot_success", "final_success", "real_minutes")
    return {**{k: result[k] for k in keep}, "rounds": rounds}


def cmd_dagger(args) -> dict:
    makers = {"dagger": lambda _: DaggerConfig(grids=tuple(args.grid or ()))}
    sections = configure(args, makers)
    return dagger(
        get_task(args.task),
        args.checkpoint,
        args.sim_data,
        args.out,
        sections["dagger"],
        physics=args.physics,
        progress=not args.quiet,
        workers=args.workers,
        eval_physics=args.eval_physics,
        initial_labels=args.initial_labels,
    )


def _add_adapt(sub) -> None:
    sp = add_command(
        sub, "adapt", cmd_adapt, "real-world adaptation loop (Alg. 1) in the task's real domain; resumable"
    )
    sp.add_argument("task", help="a registered task (`simdist tasks`)")
    sp.add_argument("--checkpoint", required=True, help="the pretrained world model")
    sp.add_argument("--rounds", type=int, default=2, help="dynamics finetunes J (J + 1 evaluation rounds)")
    sp.add_argument("--episodes-per-round", type=int, default=20, help="real episodes M per round")
    sp.add_argument("--out", required=True, help="run folder; rerunning the same command resumes it")
    sp.add_argument(
        "--grid",
        help="evaluation grid, or all: M episodes split over every grid (default: the task's "
        "first grid; all for the quadruped)",
    )
    sp.add_argument("--preset", default="cpu", help="MPPI and finetune preset (cpu, paper, or a preset's name)")
    add_alias(
        sp, "--mppi", "mppi={}", help="MPPI preset, when it differs from --preset (then the task's planner_overrides)"
    )
    add_alias(sp, "--prior-weight", "mppi.prior_weight={}", type=float, help="the MPPI prior_weight (BC-chunk penalty)")
    add_set(
        sp,
        "adapt, corrections, finetune, mppi; loss = finetune.loss",
        "mppi.value_weight=0 --set finetune.policy_anchor=10 --set finetune.loss.bc=1",
    )
    add_alias(
        sp,
        "--finetune-steps",
        "finetune.steps={}",
        type=int,
        help=f"steps of each finetune (default: the "
        f"preset's: {', '.join(f'{n} {m().steps}' for n, m in FINETUNE_PRESETS.items())})",
    )
    sp.add_argument(
        "--seed", type=int, default=0, help="run seed: each episode's randomness derives from (seed, round, episode)"
    )
    sp.add_argument("--physics", help="JSON/YAML override of the real domain's physics")
    sp.add_argument(
        "--sim-data",
        help="the simulation dataset the finetunes replay (every preset but paper-*: needed unless --sim-replay 0)",
    )
    add_alias(
        sp,
        "--sim-replay",
        "finetune.sim_replay_fraction={}",
        type=float,
        help="share of each finetuning batch from --sim-data (default: the preset's)",
    )
    sp.add_argument("--initial-data", help="offline real episodes or demonstrations to finetune on before round 0")
    sp.add_argument("--plan-device", default="cpu", help=PLAN_DEVICE_HELP)
    sp.add_argument(
        "--evaluate-head",
        action="store_true",
        help="also run each round's BC head alone on the round's initial conditions and report its success beside "
        "the planner's: as many more real episodes per round, not kept as data",
    )
    _add_corrections(sp)


def _add_corrections(sp) -> None:
    """The stand-in operator of `adapt --corrected-episodes` (docs/real-robot.md)."""
    sp.add_argument(
        "--corrected-episodes",
        type=int,
        default=0,
        metavar="K",
        help="per round, K more episodes in "
        "which an operator takes over now and then; the finetune then also trains the policy head on "
        "the operator's steps (docs/real-robot.md)",
    )
    sp.add_argument(
        "--takeover-rate",
        type=float,
        default=CorrectionConfig.takeover_rate_hz,
        metavar="HZ",
        help="stand-in operator: takeovers per second of robot control",
    )
    sp.add_argument(
        "--takeover-s",
        type=float,
        default=CorrectionConfig.takeover_s,
        help="stand-in operator: length of each takeover in seconds",
    )


def _add_dagger(sub) -> None:
    sp = add_command(
        sub,
        "dagger",
        cmd_dagger,
        "DAgger for the BC head in sim (the head drives, the privileged "
        "expert labels), then the task's sensor-noise augmentation; writes OUT/model; resumable",
    )
    sp.add_argument("task")
    sp.add_argument(
        "--checkpoint",
        required=True,
        help="pretrained world model whose BC head is refined, or a "
        "single-step BC baseline checkpoint (simdist compare writes METHOD/seed_S/checkpoint)",
    )
    sp.add_argument("--sim-data", required=True, help="its simulation dataset, replayed in every head update")
    sp.add_argument("--out", required=True)
    add_alias(sp, "--rounds", "dagger.rounds={}", type=int, help=f"DAgger rounds (default {DaggerConfig.rounds})")
    add_alias(
        sp,
        "--episodes-per-grid",
        "dagger.episodes_per_grid={}",
        type=int,
        help=f"per round and grid (default {DaggerConfig.episodes_per_grid})",
    )
    sp.add_argument("--grid", action="append", help="collect on this grid only (repeatable; default: every grid)")
    sp.add_argument("--physics", help="JSON/YAML override of the sim physics the head drives in")
    sp.add_argument(
        "--eval-physics",
        help="sim physics of the output head's evaluation (default: --physics), e.g. "
        "with the robot's sensor noise on; with --set dagger.candidates=N it chooses the head",
    )
    sp.add_argument("--workers", type=int, default=1, help="processes collecting a round's grids in parallel")
    sp.add_argument(
        "--initial-labels",
        metavar="DIR",
        help="round 1 is this DAgger dataset (e.g. a `simdist dagger` "
        "run on the single-step BC baseline, its OUT/dagger_data) instead of the head's own collection",
    )
    add_set(sp, "dagger", "dagger.sensor_noise_steps=0")


def add_parsers(sub) -> None:
    _add_adapt(sub)
    _add_dagger(sub)
