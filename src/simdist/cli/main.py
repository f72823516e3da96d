"""The `simdist` command line: thin commands over the library. Every command takes `--json`, which prints
one JSON object as the last line of stdout (logs and progress bars go to stderr)."""

from __future__ import annotations

import argparse
import json
import logging
import sys

from simdist.adaptation.dagger import add_dagger_command
from simdist.cli.commands import (cmd_ablate, cmd_adapt, cmd_bench, cmd_demo, cmd_evaluate, cmd_expert_eval,
                                  cmd_finetune, cmd_generate, cmd_merge, cmd_pretrain, cmd_run, cmd_select, cmd_tasks)
from simdist.config import FINETUNE_PRESETS, TRAIN_PRESETS, CorrectionConfig
from simdist.experiments.compare import add_compare_commands

log = logging.getLogger("simdist")


# evaluate, adapt and run: pretraining and finetuning use a GPU wherever there is one; planning only when asked
PLAN_DEVICE_HELP = ("where the world model plans: cpu (default) or cuda; the paper-quadruped planner takes 14.5 ms on "
                    "an H200 against 343 ms on 2 CPU cores")


def _emit(args, result: dict) -> None:
    print(json.dumps(result, default=float) if args.json else "\n".join(_readable(result)))


def _readable(result: dict) -> list[str]:
    """One line per field; a table of dicts (an evaluation's grids) one line per row; floats to 3 digits."""
    fmt = lambda v: (f"{v:.3g}" if isinstance(v, float) else "[" + ", ".join(map(fmt, v)) + "]"
                     if isinstance(v, (list, tuple)) and v and all(isinstance(x, float) for x in v) else str(v))
    lines = []
    for key, value in result.items():
        if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            lines.append(f"{key}:")
            lines += [f"  {row}: " + ", ".join(f"{k} {fmt(v)}" for k, v in cells.items())
                      for row, cells in value.items()]
        else:
            lines.append(f"{key}: {fmt(value)}")
    return lines


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="simdist", description=__doc__)
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = p.add_subparsers(dest="command", required=True)

    def add(name: str, fn, help: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help, description=help)
        sp.add_argument("--json", action="store_true", help="print one JSON object as the last line of stdout")
        sp.add_argument("--quiet", action="store_true", help="no progress bars")
        sp.set_defaults(fn=fn)
        return sp

    add("tasks", cmd_tasks, "list the registered tasks")
    sp = add("generate", cmd_generate, "generate simulation data with the expert and sub-optimal policies (Alg. 2)")
    sp.add_argument("task")
    sp.add_argument("--episodes", type=int, required=True)
    sp.add_argument("--workers", type=int, default=1)
    sp.add_argument("--out", required=True)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--physics", help="JSON/YAML file overriding the task's sim physics")
    sp.add_argument("--expert-only", action="store_true",
                    help="the clean expert alone, no sub-optimal policies or noise (Table I's expert-only data)")
    sp = add("merge", cmd_merge, "one dataset over several compatible ones (symbolic links to their episode files)")
    sp.add_argument("sources", nargs="+", help="dataset directories (same domain, shapes and control period)")
    sp.add_argument("--out", required=True)
    sp.add_argument("--copy", action="store_true", help="copy the episode files instead of linking them")
    sp = add("pretrain", cmd_pretrain,
             "pretrain a world model on a simulation dataset (Eq. 2); resumes if OUT has a run")
    sp.add_argument("--data", required=True)
    sp.add_argument("--out", required=True)
    sp.add_argument("--preset", default="cpu", help=" | ".join(TRAIN_PRESETS))
    sp.add_argument("--steps", type=int, help="override the preset's number of steps")
    sp.add_argument("--model-set", action="append", metavar="FIELD=VALUE",
                    help="override a ModelConfig field of the preset (repeatable), e.g. policy_sees_actions=false")
    sp.add_argument("--loss-set", action="append", metavar="TERM=WEIGHT",
                    help="override an Eq. 2 loss weight of the preset (repeatable), e.g. bc=16")
    sp.add_argument("--train-set", action="append", metavar="FIELD=VALUE",
                    help="override a TrainConfig field after --steps (repeatable), e.g. lr=2e-4")
    sp.add_argument("--init-from", metavar="CHECKPOINT",
                    help="start from this checkpoint's weights and architecture (--model-set may add modules)")
    sp = add("finetune", cmd_finetune, "finetune the dynamics on real (logged) episodes (Eq. 3)")
    sp.add_argument("--checkpoint", required=True)
    sp.add_argument("--data", required=True, help="a dataset directory of real episodes")
    sp.add_argument("--out", required=True)
    sp.add_argument("--preset", default="cpu", help=" | ".join(FINETUNE_PRESETS))
    sp.add_argument("--steps", type=int)
    sp.add_argument("--trainable", help="comma-separated parameter groups (default: dynamics)")
    sp.add_argument("--loss-set", action="append", metavar="TERM=WEIGHT",
                    help="override an Eq. 2 loss weight (default: latent only), e.g. bc=1 for labelled demonstrations")
    sp.add_argument("--sim-data", help="simulation dataset, for replay during finetuning")
    sp.add_argument("--sim-replay", type=float, help="share of each batch from --sim-data (preset default)")
    sp.add_argument("--set", action="append", metavar="FIELD=VALUE",
                    help="override a FinetuneConfig field of the preset (repeatable), e.g. --set lr=2e-5, "
                         "--set replay_labels=false (replayed sim windows train the latent term only)")
    sp.add_argument("--model-set", action="append", metavar="FIELD=VALUE",
                    help="change a ModelConfig field that leaves the weights' shapes, e.g. policy_sees_history=true "
                         "(with --set fresh_policy=true also the new BC head's width, policy_ffn_dim)")
    sp = add("evaluate", cmd_evaluate, "evaluate a world-model agent in a task domain")
    sp.add_argument("task")
    sp.add_argument("--checkpoint", required=True)
    sp.add_argument("--domain", default="sim", choices=("sim", "real"))
    sp.add_argument("--grid", default="all")
    sp.add_argument("--trials", type=int, default=20)
    sp.add_argument("--agent", choices=("mppi", "policy"), help="MPPI (default) or the BC head alone; a baseline's "
                    "checkpoint (`simdist compare` writes them) is always its own policy")
    sp.add_argument("--plan-device", default="cpu", help=PLAN_DEVICE_HELP)
    sp.add_argument("--ensemble-decay", type=float, metavar="M", help="--agent policy: execute the temporal "
                    "ensemble of the last T chunks, chunk k steps old weighted exp(-M k) (ACT; 0: a plain mean)")
    sp.add_argument("--mppi", default="cpu", help="MPPI preset")
    sp.add_argument("--prior-weight", type=float, help="override the preset's MPPI prior_weight (BC-chunk penalty)")
    sp.add_argument("--mppi-set", action="append", metavar="FIELD=VALUE",
                    help="override an MPPIConfig field of the preset (repeatable), e.g. value_weight=0")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--physics", help='JSON/YAML physics override file; {"with_sim": ["arm"]} puts part of the real '
                    "gap back to sim (simdist.tasks.gaps)")
    sp.add_argument("--out", metavar="FILE", help="write the result here (default: CHECKPOINT/eval_info.json, "
                    "replaced by each evaluation)")
    sp = add("select", cmd_select, "evaluate a run's kept checkpoints on the same trials and name the best "
             "(closed-loop success can swing between checkpoints whose losses barely differ)")
    sp.add_argument("task")
    sp.add_argument("checkpoints", nargs="+", help="runs (their step_NNNNNN checkpoints) or checkpoints")
    sp.add_argument("--domain", default="sim", choices=("sim", "real"),
                    help="sim (default); in real every trial is robot time")
    sp.add_argument("--grid", default="all")
    sp.add_argument("--trials", type=int, default=20)
    sp.add_argument("--agent", choices=("mppi", "policy"), default="policy",
                    help="the BC head alone (default, fast) or the planner")
    sp.add_argument("--mppi", default="cpu", help="MPPI preset (--agent mppi)")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--physics", help="JSON/YAML physics override file, e.g. sim with the robot's sensor noise")
    sp.add_argument("--out", metavar="FILE", help="also write the result here")
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
    sp.add_argument("task")
    sp.add_argument("--checkpoint", required=True)
    sp.add_argument("--rounds", type=int, default=2)
    sp.add_argument("--episodes-per-round", type=int, default=20)
    sp.add_argument("--out", required=True)
    sp.add_argument("--grid", help="evaluation grid, or all: M episodes split over every grid (default: the task's "
                    "first grid; all for the quadruped)")
    sp.add_argument("--preset", default="cpu", help="MPPI and finetune preset")
    sp.add_argument("--mppi", help="MPPI preset, when it differs from --preset")
    sp.add_argument("--prior-weight", type=float, help="override the MPPI preset's prior_weight (BC-chunk penalty)")
    sp.add_argument("--mppi-set", action="append", metavar="FIELD=VALUE",
                    help="override an MPPIConfig field of the preset (repeatable), e.g. value_weight=0")
    sp.add_argument("--finetune-steps", type=int)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--physics", help="JSON/YAML override of the real domain's physics")
    sp.add_argument("--sim-data", help="simulation dataset, for replay during finetuning")
    sp.add_argument("--sim-replay", type=float, help="share of each finetuning batch from --sim-data")
    sp.add_argument("--initial-data", help="offline real episodes or demonstrations to finetune on before round 0")
    sp.add_argument("--plan-device", default="cpu", help=PLAN_DEVICE_HELP)
    sp.add_argument("--corrected-episodes", type=int, default=0, metavar="K",
                    help="per round, K more episodes in which an operator takes over now and then; the finetune then "
                         "also trains the policy head on the operator's steps (docs/real-robot.md)")
    sp.add_argument("--takeover-rate", type=float, default=CorrectionConfig.takeover_rate_hz, metavar="HZ",
                    help="stand-in operator: takeovers per second of robot control")
    sp.add_argument("--takeover-s", type=float, default=CorrectionConfig.takeover_s,
                    help="stand-in operator: length of each takeover in seconds")
    sp.add_argument("--finetune-set", action="append", metavar="FIELD=VALUE",
                    help="override a FinetuneConfig field of the preset (repeatable), e.g. policy_anchor=10")
    sp = add("run", cmd_run, "the whole pipeline: generate, pretrain, zero-shot eval, adaptation rounds, report")
    sp.add_argument("task")
    sp.add_argument("--preset", default="cpu", help="pipeline preset: cpu (sized for 2 cores) or paper (the paper's "
                    "data volume, 16 workers)")
    sp.add_argument("--out", required=True)
    sp.add_argument("--no-video", action="store_true", help="no rollout videos in the report")
    sp.add_argument("--plan-device", default="cpu", help=PLAN_DEVICE_HELP)
    sp.add_argument("--train-expert", action="store_true",
                    help="first (re)build the task's privileged expert with its own trainer (quadruped tasks only)")
    sp.add_argument("--expert-budget", type=int, help="expert training budget (quadruped: PPO iterations in all)")
    sp.add_argument("--checkpoint", help="start from this pretrained world model (skips pretraining)")
    sp.add_argument("--mppi", help="MPPI preset (default: the model preset's)")
    sp.add_argument("--mppi-set", action="append", metavar="FIELD=VALUE",
                    help="override an MPPIConfig field of the planner (repeatable), e.g. init_std=0.1")
    sp.add_argument("--finetune-steps", type=int, help="steps of each dynamics finetune (default: the preset's)")
    sp.add_argument("--rounds", type=int, help="adaptation rounds after the zero-shot one (default: the preset's; "
                    "a rerun with more continues the run)")
    sp.add_argument("--grid", action="append", help="evaluate and adapt only this grid (repeatable)")
    sp.add_argument("--select-checkpoints", type=int, metavar="N", help="keep every pretraining checkpoint and "
                    "deploy the best of the last N by the BC head's sim success (default: the last)")
    sp = add("demo", cmd_demo, "the main job sized for 2 CPU cores: Peg Insertion from the shipped world model "
             "(about 10 min), or --task pendulum with every stage including pretraining (about 80 s)")
    sp.add_argument("--out", default="runs/demo")
    sp.add_argument("--task", default="peg-insertion", choices=("peg-insertion", "pendulum"))
    add_compare_commands(sub)
    add_dagger_command(sub)
    sp = add("ablate", cmd_ablate, "Table I ablations (pretrain each variant, evaluate its planner in sim) and Fig. 10 "
             "unfreezing ablations (adaptation rounds in real with other finetuned parameter groups)")
    sp.add_argument("task")
    sp.add_argument("--sim-data", required=True)
    sp.add_argument("--out", required=True)
    sp.add_argument("--variants", default="all", help="comma-separated, or 'all' (see simdist.experiments.ablations.ABLATIONS)")
    sp.add_argument("--expert-data", help="expert-only variant: a `generate --expert-only` dataset, used up to the "
                    "volume of --sim-data (default: the expert episodes of --sim-data, about half its volume)")
    sp.add_argument("--preset", default="cpu", help="model and train preset")
    sp.add_argument("--mppi", help="MPPI preset (default: --preset)")
    sp.add_argument("--steps", type=int, help="pretraining steps per variant")
    sp.add_argument("--trials", type=int, default=20)
    sp.add_argument("--seed", type=int, default=0, help="Table I: the data subset, pretraining initialisation and "
                    "evaluation seed (one replicate per seed and --out); Fig. 10: the first adaptation seed")
    sp.add_argument("--checkpoint", help="Fig. 10 variants: pretrained model to adapt (default: the simdist variant's)")
    sp.add_argument("--rounds", type=int, default=2, help="Fig. 10 variants: finetuning rounds (as simdist adapt)")
    sp.add_argument("--episodes-per-round", type=int, default=20, help="Fig. 10 variants: real episodes per round")
    sp.add_argument("--finetune-steps", type=int, help="Fig. 10 variants: override the finetune preset's steps")
    sp.add_argument("--seeds", type=int, default=1, help="Fig. 10 variants: adaptation seeds --seed … --seed+N-1")
    sp.add_argument("--sim-replay", type=float, help="Fig. 10 variants: share of each finetuning batch from --sim-data")
    sp.add_argument("--grid", help="Fig. 10 variants: grid of the real episodes, or 'all' (default as adapt)")
    sp.add_argument("--prior-weight", type=float, help="MPPI prior weight λ (overrides the MPPI preset's)")
    sp.add_argument("--mppi-set", action="append", metavar="FIELD=VALUE",
                    help="override an MPPIConfig field of the planner (repeatable), e.g. init_std=0.1")
    sp = add("bench", cmd_bench, "benchmarks: planner latency/FLOPs or training throughput")
    sp.add_argument("what", choices=("plan", "train"))
    sp.add_argument("--preset", default="paper-manipulation", help="model preset")
    sp.add_argument("--mppi", help="MPPI preset (default: same as --preset)")
    sp.add_argument("--repeats", type=int, default=30)
    sp.add_argument("--device", default="cpu", help="cpu or cuda")
    sp.add_argument("--amp", action="store_true", help="bf16 autocast (train)")
    sp.add_argument("--compile", metavar="MODE", help="train: torch.compile the forward with this inductor mode "
                    "(default, reduce-overhead, max-autotune-no-cudagraphs)")
    sp.add_argument("--batch", type=int, help="train: batch size (default: the preset's)")
    sp.add_argument("--set", action="append", metavar="FIELD=VALUE",
                    help="plan: override an MPPIConfig field of the preset (repeatable), e.g. --set samples=128")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        result = args.fn(args)
    except (KeyError, ValueError, FileNotFoundError) as err:
        log.error("%s", err.args[0] if isinstance(err, KeyError) and err.args else err)
        return 2
    _emit(args, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
