"""The `simdist` command line: thin commands over the library. Every command takes `--json`, which prints
one JSON object as the last line of stdout (logs and progress bars go to stderr)."""

from __future__ import annotations

import argparse
import json
import logging
import sys

from simdist.adaptation.corrections import CorrectionConfig
from simdist.adaptation.dagger import add_dagger_command
from simdist.cli.commands import (
    ABLATE_SETS,
    ADAPT_SETS,
    FINETUNE_SETS,
    PLANNER_SETS,
    PRETRAIN_SETS,
    cmd_ablate,
    cmd_adapt,
    cmd_bench,
    cmd_demo,
    cmd_diagnose,
    cmd_evaluate,
    cmd_expert_eval,
    cmd_finetune,
    cmd_generate,
    cmd_merge,
    cmd_presets,
    cmd_pretrain,
    cmd_refine,
    cmd_run,
    cmd_select,
    cmd_tasks,
)
from simdist.cli.guards import check_inputs_untouched, check_launch, refuse_replaced_flags
from simdist.cli.runtime import choose_threads, interrupted, terminate_as_interrupt
from simdist.cli.validate import check_arguments
from simdist.config import FINETUNE_PRESETS, TRAIN_PRESETS
from simdist.experiments.compare import add_compare_commands
from simdist.planning.refine import RefineConfig
from simdist.training.distributed import env_rank

log = logging.getLogger("simdist")


# The `--set` sections of each command, checked before any work.
COMMAND_SETS = {
    "pretrain": PRETRAIN_SETS,
    "finetune": FINETUNE_SETS,
    "evaluate": PLANNER_SETS,
    "select": PLANNER_SETS,
    "diagnose": PLANNER_SETS,
    "refine": PLANNER_SETS,
    "adapt": ADAPT_SETS,
    "run": PLANNER_SETS,
    "ablate": ABLATE_SETS,
    "bench": PLANNER_SETS,
}

# evaluate, adapt and run: pretraining and finetuning use a GPU wherever there is one; planning only when asked
PLAN_DEVICE_HELP = (
    "where the world model plans: cpu (default) or cuda; the paper-quadruped planner takes 14.5 ms on "
    "an H200 against 343 ms on 2 CPU cores"
)


def preset_steps(table: dict) -> str:
    """`cpu` 3000, `paper-manipulation` 200000, …: the steps a command runs when --steps is left out."""
    return ", ".join(f"{name} {make().steps}" for name, make in table.items())


def add_set(sp: argparse.ArgumentParser, sections: dict, example: str) -> None:
    """The one override flag: `--set SECTION.FIELD=VALUE`, repeatable."""
    sp.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="SECTION.FIELD=VALUE",
        help=f"override a config field (repeatable; sections: {', '.join(sections)}; `simdist presets` "
        f"shows the fields), e.g. --set {example}",
    )


def _emit(args, result: dict) -> None:
    print(json.dumps(result, default=float) if args.json else "\n".join(_readable(result)))


def _readable(result: dict) -> list[str]:
    """One line per field; a table of dicts (an evaluation's grids) one line per row; floats to 3 digits."""
    fmt = lambda v: (
        f"{v:.3g}"
        if isinstance(v, float)
        else "[" + ", ".join(map(fmt, v)) + "]"
        if isinstance(v, (list, tuple)) and v and all(isinstance(x, float) for x in v)
        else str(v)
    )
    lines = []
    for key, value in result.items():
        if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            lines.append(f"{key}:")
            lines += [
                f"  {row}: " + ", ".join(f"{k} {fmt(v)}" for k, v in cells.items()) for row, cells in value.items()
            ]
        else:
            lines.append(f"{key}: {fmt(value)}")
    return lines


class DefaultsHelp(argparse.HelpFormatter):
    """--help shows each option's default, unless its help already says what it is."""

    def _get_help_string(self, action):
        help = action.help or ""
        if _no_default(action) or "default" in help or not action.option_strings:
            return help
        return f"{help} (default: %(default)s)".lstrip()


def _no_default(action: argparse.Action) -> bool:
    return (
        action.default is None or action.default is False or action.default == [] or action.default == argparse.SUPPRESS
    )


def show_defaults(parser: argparse.ArgumentParser) -> None:
    """Options without a help text get one, so that --help lists their defaults too."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                show_defaults(sub)
        elif action.help is None and not _no_default(action):
            action.help = "(default: %(default)s)"


class OneLineParser(argparse.ArgumentParser):
    """A bad command line is one line on stderr (argparse's usage dump is left to --help); exit status 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (--help: usage)\n")


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="simdist", description=__doc__, formatter_class=DefaultsHelp)
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = p.add_subparsers(dest="command", required=True)

    def add(name: str, fn, help: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help, description=help, formatter_class=DefaultsHelp)
        sp.add_argument("--json", action="store_true", help="print one JSON object as the last line of stdout")
        sp.add_argument("--quiet", action="store_true", help="no progress bars")
        sp.set_defaults(fn=fn)
        return sp

    add(
        "tasks",
        cmd_tasks,
        "list the registered tasks, building each one's sim environment once: a task that "
        'fails (e.g. a plugin needing a missing extra) is marked BROKEN with the reason (--json: "broken")',
    )
    add(
        "presets",
        cmd_presets,
        "list the model, training, finetuning and planner (MPPI) presets with their key values (--json: every field)",
    )
    sp = add("generate", cmd_generate, "generate simulation data with the expert and sub-optimal policies (Alg. 2)")
    sp.add_argument("task")
    sp.add_argument("--episodes", type=int, required=True)
    sp.add_argument("--workers", type=int, default=1)
    sp.add_argument("--out", required=True)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--physics", help="JSON/YAML file overriding the task's sim physics")
    sp.add_argument(
        "--expert-only",
        action="store_true",
        help="the clean expert alone, no sub-optimal policies or noise (Table I's expert-only data)",
    )
    sp.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="run the --workers as Ray tasks on a cluster (auto: the running "
        "one, local: a fresh local instance, or HOST:PORT), the same episodes as local workers; needs "
        'pip install -e ".[ray]"',
    )
    sp = add("merge", cmd_merge, "one dataset over several compatible ones (symbolic links to their episode files)")
    sp.add_argument("sources", nargs="+", help="dataset directories (same domain, shapes and control period)")
    sp.add_argument("--out", required=True)
    sp.add_argument("--copy", action="store_true", help="copy the episode files instead of linking them")
    sp = add(
        "pretrain", cmd_pretrain, "pretrain a world model on a simulation dataset (Eq. 2); resumes if OUT has a run"
    )
    sp.add_argument("--data", required=True)
    sp.add_argument("--out", required=True)
    sp.add_argument("--preset", default="cpu", help=" | ".join(TRAIN_PRESETS))
    sp.add_argument(
        "--steps",
        type=int,
        help=f"override the preset's number of steps (default: the preset's: {preset_steps(TRAIN_PRESETS)})",
    )
    add_set(
        sp, PRETRAIN_SETS, "model.policy_sees_actions=false --set loss.bc=16 --set train.lr=2e-4 (train: after --steps)"
    )
    sp.add_argument(
        "--init-from",
        metavar="CHECKPOINT",
        help="start from this checkpoint's weights and architecture (--set model.* may add modules)",
    )
    sp = add("finetune", cmd_finetune, "finetune the dynamics on real (logged) episodes (Eq. 3)")
    sp.add_argument("--checkpoint", required=True)
    sp.add_argument("--data", required=True, help="a dataset directory of real episodes")
    sp.add_argument("--out", required=True)
    sp.add_argument("--preset", default="cpu", help=" | ".join(FINETUNE_PRESETS))
    sp.add_argument(
        "--steps", type=int, help=f"finetuning steps (default: the preset's: {preset_steps(FINETUNE_PRESETS)})"
    )
    sp.add_argument("--trainable", help="comma-separated parameter groups (default: dynamics)")
    sp.add_argument("--sim-data", help="simulation dataset, for replay during finetuning")
    sp.add_argument("--sim-replay", type=float, help="share of each batch from --sim-data (preset default)")
    add_set(
        sp,
        FINETUNE_SETS,
        "finetune.lr=2e-5 --set loss.bc=1 (default: latent only) --set "
        "model.policy_sees_history=true (model: fields that leave the weights' shapes; with "
        "finetune.fresh_policy=true also the new BC head's width)",
    )
    sp = add(
        "refine",
        cmd_refine,
        "planner rounds in sim: run the model's planner, label its episodes as Alg. 2 "
        "does (reward, expert critic; no BC targets) and train on, over the simulation data and them; "
        "writes OUT/round_K/model and OUT/round_K/data; resumable",
    )
    sp.add_argument("task")
    sp.add_argument("--checkpoint", required=True, help="a pretrained world model")
    sp.add_argument("--sim-data", required=True, help="the dataset it was pretrained on")
    sp.add_argument("--out", required=True)
    sp.add_argument("--rounds", type=int, help=f"collect-and-train rounds (default {RefineConfig.rounds})")
    sp.add_argument("--episodes", type=int, help=f"planner episodes per round (default {RefineConfig.episodes})")
    sp.add_argument("--steps", type=int, help=f"training steps per round (default {RefineConfig.steps})")
    sp.add_argument(
        "--preset",
        help=f"training preset whose schedule is shortened to --steps (default "
        f"{RefineConfig.train_preset}): " + " | ".join(TRAIN_PRESETS),
    )
    sp.add_argument(
        "--mppi",
        default="cpu",
        help="MPPI preset of the planner that drives (default cpu), then the task's planner_overrides",
    )
    sp.add_argument("--prior-weight", type=float, help="override the MPPI preset's prior_weight")
    add_set(sp, PLANNER_SETS, "mppi.uncertainty_weight=0")
    sp.add_argument("--seed", type=int, help="episode seeds derive from (seed, round, episode) (default 0)")
    sp = add("evaluate", cmd_evaluate, "evaluate a world-model agent in a task domain")
    sp.add_argument("task")
    sp.add_argument("--checkpoint", required=True)
    sp.add_argument("--domain", default="sim", choices=("sim", "real"))
    sp.add_argument("--grid", default="all")
    sp.add_argument("--trials", type=int, default=20)
    sp.add_argument(
        "--agent",
        choices=("mppi", "policy"),
        help="MPPI (default) or the BC head alone; a baseline's "
        "checkpoint (`simdist compare` writes them) is always its own policy",
    )
    sp.add_argument("--plan-device", default="cpu", help=PLAN_DEVICE_HELP)
    sp.add_argument(
        "--ensemble-decay",
        type=float,
        metavar="M",
        help="--agent policy: execute the temporal "
        "ensemble of the last T chunks, chunk k steps old weighted exp(-M k) (ACT; 0: a plain mean)",
    )
    sp.add_argument("--mppi", default="cpu", help="MPPI preset (default: cpu, then the task's planner_overrides)")
    sp.add_argument("--prior-weight", type=float, help="override the preset's MPPI prior_weight (BC-chunk penalty)")
    add_set(sp, PLANNER_SETS, "mppi.value_weight=0")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument(
        "--physics",
        help='JSON/YAML physics override file; {"with_sim": ["arm"]} puts part of the real '
        "gap back to sim (simdist.tasks.gaps)",
    )
    sp.add_argument(
        "--out",
        metavar="FILE",
        help="also write the result here (default: stdout only; never into the checkpoint folder)",
    )
    sp = add(
        "select",
        cmd_select,
        "evaluate a run's kept checkpoints on the same trials and name the best "
        "(closed-loop success can swing between checkpoints whose losses barely differ)",
    )
    sp.add_argument("task")
    sp.add_argument("checkpoints", nargs="+", help="runs (their step_NNNNNN checkpoints) or checkpoints")
    sp.add_argument(
        "--domain", default="sim", choices=("sim", "real"), help="sim (default); in real every trial is robot time"
    )
    sp.add_argument("--grid", default="all")
    sp.add_argument("--trials", type=int, default=20)
    sp.add_argument(
        "--agent", choices=("mppi", "policy"), default="policy", help="the BC head alone (default, fast) or the planner"
    )
    sp.add_argument("--mppi", default="cpu", help="MPPI preset (--agent mppi)")
    add_set(sp, PLANNER_SETS, "mppi.samples=64 (--agent mppi)")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--physics", help="JSON/YAML physics override file, e.g. sim with the robot's sensor noise")
    sp.add_argument("--out", metavar="FILE", help="also write the result here")
    sp = add(
        "diagnose",
        cmd_diagnose,
        "which part of the planner loses (dynamics, reward, value, search): the head, "
        "MPPI, MPPI with the simulator as dynamics and MPPI with the true return on the same trials",
    )
    sp.add_argument("task")
    sp.add_argument("--checkpoint", required=True)
    sp.add_argument("--domain", default="sim", choices=("sim", "real"))
    sp.add_argument("--grid", help="initial-condition grid (default: the task's first)")
    sp.add_argument("--trials", type=int, default=40, help="trials per agent (default 40)")
    sp.add_argument("--seed", type=int, default=1, help="initial conditions and episode seeds (default 1)")
    sp.add_argument(
        "--probe-episodes", type=int, default=5, help="MPPI episodes whose plans are probed open loop (default 5)"
    )
    sp.add_argument("--probes-per-episode", type=int, default=3, help="probed control steps per episode (default 3)")
    sp.add_argument("--data", help="the model's simulation dataset: the value head's error on data states too")
    sp.add_argument("--mppi", default="cpu", help="MPPI preset (default cpu), then the task's planner_overrides")
    add_set(sp, PLANNER_SETS, "mppi.samples=64")
    sp.add_argument("--physics", help="JSON/YAML physics override file")
    sp.add_argument("--out", required=True, help="folder for diagnosis.json and diagnosis.png")
    expert = sub.add_parser("expert", help="privileged expert commands")
    expert = expert.add_subparsers(dest="expert_cmd", required=True)
    sp = expert.add_parser("eval", help="evaluate the privileged expert in a domain")
    sp.set_defaults(fn=cmd_expert_eval)
    sp.add_argument("task")
    sp.add_argument("--domain", default="sim", choices=("sim", "real"))
    sp.add_argument("--grid", default="all")
    sp.add_argument("--trials", type=int, default=20)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--physics")
    sp.add_argument("--json", action="store_true")
    sp.add_argument("--quiet", action="store_true")
    sp = add("adapt", cmd_adapt, "real-world adaptation loop (Alg. 1) in the task's real domain; resumable")
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
    sp.add_argument("--preset", default="cpu", help="MPPI and finetune preset")
    sp.add_argument(
        "--mppi",
        help="MPPI preset, when it differs from --preset (default: --preset's; then the task's planner_overrides)",
    )
    sp.add_argument("--prior-weight", type=float, help="override the MPPI preset's prior_weight (BC-chunk penalty)")
    add_set(sp, ADAPT_SETS, "mppi.value_weight=0 --set finetune.policy_anchor=10 --set loss.bc=1")
    sp.add_argument(
        "--finetune-steps",
        type=int,
        help=f"steps of each finetune (default: the preset's: {preset_steps(FINETUNE_PRESETS)})",
    )
    sp.add_argument(
        "--seed", type=int, default=0, help="run seed: each episode's randomness derives from (seed, round, episode)"
    )
    sp.add_argument("--physics", help="JSON/YAML override of the real domain's physics")
    sp.add_argument(
        "--sim-data", help="simulation dataset, for replay during finetuning (needed unless --sim-replay 0)"
    )
    sp.add_argument(
        "--sim-replay", type=float, help="share of each finetuning batch from --sim-data (default: the preset's)"
    )
    sp.add_argument("--initial-data", help="offline real episodes or demonstrations to finetune on before round 0")
    sp.add_argument("--plan-device", default="cpu", help=PLAN_DEVICE_HELP)
    sp.add_argument(
        "--corrected-episodes",
        type=int,
        default=0,
        metavar="K",
        help="per round, K more episodes in which an operator takes over now and then; the finetune then "
        "also trains the policy head on the operator's steps (docs/real-robot.md)",
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
    sp = add("run", cmd_run, "the whole pipeline: generate, pretrain, zero-shot eval, adaptation rounds, report")
    sp.add_argument("task")
    sp.add_argument(
        "--preset",
        default="cpu",
        help="pipeline preset: cpu (sized for 2 cores) or paper (the paper's data volume, 16 workers)",
    )
    sp.add_argument("--out", required=True)
    sp.add_argument("--no-video", action="store_true", help="no rollout videos in the report")
    sp.add_argument("--plan-device", default="cpu", help=PLAN_DEVICE_HELP)
    sp.add_argument(
        "--train-expert",
        action="store_true",
        help="first (re)build the task's privileged expert with its own trainer (quadruped tasks only)",
    )
    sp.add_argument("--expert-budget", type=int, help="expert training budget (quadruped: PPO iterations in all)")
    sp.add_argument("--checkpoint", help="start from this pretrained world model (skips pretraining)")
    sp.add_argument("--mppi", help="MPPI preset (default: the model preset's)")
    add_set(sp, PLANNER_SETS, "mppi.init_std=0.1")
    sp.add_argument("--finetune-steps", type=int, help="steps of each dynamics finetune (default: the preset's)")
    sp.add_argument(
        "--rounds",
        type=int,
        help="adaptation rounds after the zero-shot one (default: the preset's; a rerun with more continues the run)",
    )
    sp.add_argument("--grid", action="append", help="evaluate and adapt only this grid (repeatable)")
    sp.add_argument(
        "--select-checkpoints",
        type=int,
        metavar="N",
        help="keep every pretraining checkpoint and "
        "deploy the best of the last N by the BC head's sim success (default: the last)",
    )
    sp.add_argument(
        "--refine-rounds",
        type=int,
        metavar="N",
        help="planner rounds in sim after pretraining (`simdist refine`; default: the preset's)",
    )
    sp = add(
        "demo",
        cmd_demo,
        "the main job sized for 2 CPU cores: Peg Insertion from the shipped world model "
        "(about 10 min), or --task pendulum with every stage including pretraining (about 80 s)",
    )
    sp.add_argument("--out", default="runs/demo")
    sp.add_argument("--task", default="peg-insertion", choices=("peg-insertion", "pendulum"))
    add_compare_commands(sub)
    add_dagger_command(sub)
    sp = add(
        "ablate",
        cmd_ablate,
        "Table I ablations (pretrain each variant, evaluate its planner in sim) and Fig. 10 "
        "unfreezing ablations (adaptation rounds in real with other finetuned parameter groups)",
    )
    sp.add_argument("task")
    sp.add_argument("--sim-data", required=True)
    sp.add_argument("--out", required=True)
    sp.add_argument(
        "--variants", default="all", help="comma-separated, or 'all' (see simdist.experiments.ablations.ABLATIONS)"
    )
    sp.add_argument(
        "--expert-data",
        help="expert-only variant: a `generate --expert-only` dataset, used up to the "
        "volume of --sim-data (default: the expert episodes of --sim-data, about half its volume)",
    )
    sp.add_argument("--preset", default="cpu", help="model and train preset")
    sp.add_argument("--mppi", help="MPPI preset (default: --preset)")
    sp.add_argument(
        "--steps",
        type=int,
        help=f"pretraining steps per variant (default: the preset's: {preset_steps(TRAIN_PRESETS)})",
    )
    sp.add_argument("--trials", type=int, default=20)
    sp.add_argument(
        "--seed",
        type=int,
        default=0,
        help="Table I: the data subset, pretraining initialisation and "
        "evaluation seed (one replicate per seed and --out); Fig. 10: the first adaptation seed",
    )
    sp.add_argument("--checkpoint", help="Fig. 10 variants: pretrained model to adapt (default: the simdist variant's)")
    sp.add_argument("--rounds", type=int, default=2, help="Fig. 10 variants: finetuning rounds (as simdist adapt)")
    sp.add_argument("--episodes-per-round", type=int, default=20, help="Fig. 10 variants: real episodes per round")
    sp.add_argument(
        "--finetune-steps",
        type=int,
        help=f"Fig. 10 variants: override the finetune preset's steps ({preset_steps(FINETUNE_PRESETS)})",
    )
    sp.add_argument("--seeds", type=int, default=1, help="Fig. 10 variants: adaptation seeds --seed … --seed+N-1")
    sp.add_argument("--sim-replay", type=float, help="Fig. 10 variants: share of each finetuning batch from --sim-data")
    sp.add_argument("--grid", help="Fig. 10 variants: grid of the real episodes, or 'all' (default as adapt)")
    sp.add_argument("--prior-weight", type=float, help="MPPI prior weight λ (overrides the MPPI preset's)")
    add_set(sp, ABLATE_SETS, "mppi.init_std=0.1 --set train.lr=5e-4 (every variant's pretraining)")
    sp = add("bench", cmd_bench, "benchmarks: planner latency/FLOPs or training throughput")
    sp.add_argument("what", choices=("plan", "train"))
    sp.add_argument("--preset", default="paper-manipulation", help="model preset")
    sp.add_argument("--mppi", help="MPPI preset (default: same as --preset)")
    sp.add_argument("--repeats", type=int, default=30)
    sp.add_argument("--device", default="cpu", help="cpu or cuda")
    sp.add_argument("--amp", action="store_true", help="bf16 autocast (train)")
    sp.add_argument(
        "--compile",
        metavar="MODE",
        help="train: torch.compile the forward with this inductor mode "
        "(default, reduce-overhead, max-autotune-no-cudagraphs)",
    )
    sp.add_argument("--batch", type=int, help="train: batch size (default: the preset's)")
    add_set(sp, PLANNER_SETS, "mppi.samples=128 (plan)")
    show_defaults(p)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # Under torchrun every rank runs this: rank 0 logs and prints the result, the others only warn; a bad input is
    # said once per node (by its first rank: a file missing on one node is said there).
    rank = env_rank()
    logging.basicConfig(
        level=logging.INFO if rank == 0 else logging.WARNING,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    report = log.error if env_rank(local=True) == 0 else log.debug
    try:
        refuse_replaced_flags(argv)
    except ValueError as err:
        report("%s", err)
        return 2
    args = build_parser().parse_args(argv)
    if args.verbose:
        logging.getLogger().setLevel(logging.DEBUG)
    try:
        check_launch(args)
        check_inputs_untouched(args)
        check_arguments(args, COMMAND_SETS.get(args.command))
    except (KeyError, ValueError, OSError) as err:
        report("%s", err.args[0] if isinstance(err, KeyError) and err.args else err)
        return 2
    if args.command not in ("tasks", "presets"):
        choose_threads()
    try:
        with terminate_as_interrupt():
            result = args.fn(args)
    except KeyboardInterrupt as err:  # Ctrl-C or SIGTERM: completed work stays, partial files go
        return interrupted(args, err)
    except (KeyError, ValueError, OSError) as err:  # OSError: a full disk, a folder it may not write
        report("%s", err.args[0] if isinstance(err, KeyError) and err.args else err)
        return 2
    if rank == 0:
        _emit(args, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
