"""`simdist compare | ablate | bench`: the comparison with baselines, the paper's ablations and the benchmarks."""

from __future__ import annotations

from simdist.cli.parser import add_alias, add_command, add_set
from simdist.cli.run_config import configure, take_section
from simdist.config import FINETUNE_PRESETS, TRAIN_PRESETS, ModelConfig, finetune_preset, model_preset, train_preset
from simdist.experiments import bench
from simdist.experiments.ablations import ABLATIONS, AblationSettings, run_ablations
from simdist.experiments.baseline_settings import (
    DEMO_USERS,
    DIFFUSION_DEMOS,
    MANIPULATION_DEMOS,
    METHODS,
    START_POLICY_METHODS,
    BaselineRunConfig,
)
from simdist.experiments.compare import baseline_overrides, compare
from simdist.overrides import parse_overrides
from simdist.planning.settings import MPPIConfig, task_planner
from simdist.tasks import get_task
from simdist.tasks.base import default_grid


def cmd_compare(args) -> dict:
    seeds = parse_seeds(args.seeds)  # before any work: a bad value must not cost a trained method
    task = get_task(args.task)
    mppi_set, baseline_set = take_section(args, "mppi"), take_section(args, "baseline")
    parse_overrides(MPPIConfig, mppi_set, "--set mppi.")

    def shared(_):
        return BaselineRunConfig(
            real_episode_budget=args.budget,
            episodes_per_update=args.episodes_per_update,
            episodes_per_round=args.episodes_per_round,
            grid=args.grid or default_grid(task),
            preset=args.preset,
            checkpoint=args.checkpoint,
            overrides=baseline_overrides(baseline_set),
            mppi_set=tuple(mppi_set),
            physics=args.physics,
        )

    sections = configure(args, {"compare": shared})
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    return compare(
        args.task,
        methods,
        seeds,
        args.sim_data,
        args.out,
        sections["compare"],
        demos=args.demos,
        start_policy=args.start_policy,
        progress=not args.quiet,
    )


def parse_seeds(text: str) -> list[int]:
    """ "3" → seeds 0, 1, 2; "0,4,7" → those seeds; "2," → seed 2 alone."""
    try:
        seeds = [int(s) for s in text.split(",") if s.strip()] if "," in text else list(range(int(text)))
    except ValueError:
        raise ValueError(f"--seeds {text!r} is neither a count (3 → seeds 0, 1, 2) nor a list (0,4,7)") from None
    if not seeds or min(seeds) < 0:
        raise ValueError(
            f"--seeds {text!r} names no run: a count is at least 1 and seeds are >= 0 (for seed 0 alone write '0,')"
        )
    return seeds


def cmd_ablate(args) -> dict:
    task = get_task(args.task)
    makers = {
        "model": model_preset,
        "train": train_preset,
        "finetune": finetune_preset,
        "mppi": lambda name: task_planner(task, name),
    }
    legged = bool(task.spec.command_dim)
    sections = configure(args, makers, args.preset, aliases={"loss": "train.loss"}, legged=legged)
    names = list(ABLATIONS) if args.variants == "all" else [v.strip() for v in args.variants.split(",")]
    settings = AblationSettings(
        trials=args.trials,
        seed=args.seed,
        expert_data=args.expert_data,
        checkpoint=args.checkpoint,
        rounds=args.rounds,
        episodes_per_round=args.episodes_per_round,
        seeds=args.seeds,
        grid=args.grid or default_grid(task),
    )
    return run_ablations(
        task,
        args.sim_data,
        args.out,
        names,
        sections["model"],
        sections["train"],
        sections["mppi"],
        settings,
        sections["finetune"],
        progress=not args.quiet,
    )


def cmd_bench(args) -> dict:
    if args.what == "plan":
        mppi_set = take_section(args, "mppi")
        mppi_name = next((i.partition("=")[2] for i in reversed(args.set) if i.startswith("mppi=")), args.preset)
        overrides = parse_overrides(MPPIConfig, mppi_set, "--set mppi.")
        return bench.bench_plan(args.preset, mppi_name, repeats=args.repeats, device=args.device, overrides=overrides)
    return bench.bench_train(
        args.preset,
        repeats=args.repeats,
        device=args.device,
        amp=args.amp,
        compile_mode=args.compile,
        batch_size=args.batch,
        model_overrides=parse_overrides(ModelConfig, take_section(args, "model"), "--set model."),
    )


def _add_compare(sub) -> None:
    sp = add_command(
        sub, "compare", cmd_compare, "run baselines in the task's real domain under a real-data budget (paper §8)"
    )
    sp.add_argument("task")
    sp.add_argument("--methods", default="bc,iql,rlpd,sgft", help=f"comma-separated, from {', '.join(METHODS)}")
    sp.add_argument("--seeds", default="1", help="a count (3 → 0,1,2) or a comma-separated list")
    sp.add_argument("--sim-data", required=True, help="the simulation dataset (normaliser stats, BC, IQL, V_sim)")
    sp.add_argument("--out", required=True)
    sp.add_argument("--budget", type=int, default=40, help="real episodes per run (demonstrations excluded)")
    sp.add_argument("--episodes-per-update", type=int, default=1)
    sp.add_argument("--episodes-per-round", type=int, default=20, help="evaluation point every M episodes")
    sp.add_argument("--grid", help="evaluation grid, or all: each round split over every grid (default as adapt)")
    sp.add_argument("--preset", default="cpu", choices=("cpu", "paper"), help="every method's scale")
    sp.add_argument("--checkpoint", help="SimDist checkpoint (simdist, simdist_bc; quadruped learned reward)")
    add_alias(
        sp,
        "--prior-weight",
        "compare.prior_weight={}",
        type=float,
        help="simdist, simdist_bc: MPPI prior weight λ (default: preset's)",
    )
    add_alias(
        sp,
        "--mppi",
        "compare.mppi={}",
        help="simdist, simdist_bc: MPPI preset (default: the model "
        "preset's), e.g. manipulation-prior for Peg Insertion",
    )
    add_alias(
        sp,
        "--finetune-steps",
        "compare.finetune_steps={}",
        type=int,
        help="simdist, simdist_bc: the finetune preset's steps",
    )
    add_set(
        sp,
        "compare; mppi (simdist and simdist_bc's planner); baseline (the baselines' configs, typed by their fields)",
        "mppi.init_std=0.1 --set baseline.sensor_noise_scale=1",
    )
    sp.add_argument(
        "--start-policy",
        help=f"a saved single-step BC policy ('{{seed}}' becomes each seed) that "
        f"{', '.join(START_POLICY_METHODS)} start from: BC deploys it, IQL and RLPD start their actor "
        "from it, e.g. `simdist dagger`'s output for a BC checkpoint (the fair quadruped baseline)",
    )
    sp.add_argument("--physics", help="JSON/YAML override of the real domain's physics, for every method's episodes")
    sp.add_argument(
        "--demos",
        type=int,
        help=f"teleoperated demonstrations for the methods that use them "
        f"({', '.join(DEMO_USERS)}); default {MANIPULATION_DEMOS} on manipulation, {DIFFUSION_DEMOS} "
        "for Diffusion Policy, none for the others on the quadruped",
    )


def _add_ablate(sub) -> None:
    sp = add_command(
        sub,
        "ablate",
        cmd_ablate,
        "Table I ablations (pretrain each variant, evaluate its planner in "
        "sim) and Fig. 10 unfreezing ablations (adaptation rounds in real with other finetuned "
        "parameter groups)",
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
    sp.add_argument(
        "--preset",
        default="cpu",
        help="model, train, finetune and MPPI preset: cpu, paper (the task's paper-*), or a preset's name",
    )
    add_alias(sp, "--mppi", "mppi={}", help="MPPI preset (default: --preset)")
    add_alias(
        sp,
        "--steps",
        "train.steps={}",
        type=int,
        help=f"pretraining steps per variant (default: the "
        f"preset's: {', '.join(f'{n} {m().steps}' for n, m in TRAIN_PRESETS.items())})",
    )
    sp.add_argument("--trials", type=int, default=20)
    sp.add_argument(
        "--seed",
        type=int,
        default=0,
        help="Table I: the data subset, pretraining initialisation and "
        "evaluation seed (one replicate per seed and --out); Fig. 10: the first adaptation seed",
    )
    _add_fig10_flags(sp)


def _add_fig10_flags(sp) -> None:
    """ablate's Fig. 10 variants: adaptation rounds as `simdist adapt` runs them."""
    sp.add_argument("--checkpoint", help="Fig. 10 variants: pretrained model to adapt (default: the simdist variant's)")
    sp.add_argument("--rounds", type=int, default=2, help="Fig. 10 variants: finetuning rounds (as simdist adapt)")
    sp.add_argument("--episodes-per-round", type=int, default=20, help="Fig. 10 variants: real episodes per round")
    add_alias(
        sp,
        "--finetune-steps",
        "finetune.steps={}",
        type=int,
        help=f"Fig. 10 variants: the finetune "
        f"preset's steps ({', '.join(f'{n} {m().steps}' for n, m in FINETUNE_PRESETS.items())})",
    )
    sp.add_argument("--seeds", type=int, default=1, help="Fig. 10 variants: adaptation seeds --seed … --seed+N-1")
    add_alias(
        sp,
        "--sim-replay",
        "finetune.sim_replay_fraction={}",
        type=float,
        help="Fig. 10 variants: share of each finetuning batch from --sim-data",
    )
    sp.add_argument("--grid", help="Fig. 10 variants: grid of the real episodes, or 'all' (default as adapt)")
    add_alias(sp, "--prior-weight", "mppi.prior_weight={}", type=float, help="MPPI prior weight λ")
    add_set(
        sp,
        "model, train, finetune, mppi; loss = train.loss",
        "mppi.init_std=0.1 --set train.lr=5e-4 (every variant's pretraining)",
    )


def _add_bench(sub) -> None:
    sp = add_command(sub, "bench", cmd_bench, "benchmarks: planner latency/FLOPs or training throughput")
    sp.add_argument("what", choices=("plan", "train"))
    sp.add_argument("--preset", default="paper-manipulation", help="model preset")
    add_alias(sp, "--mppi", "mppi={}", help="MPPI preset (default: same as --preset)")
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
    add_set(sp, "mppi, model", "mppi.samples=128 (plan), model.attention_dropout=0 (train)", config=False)


def add_parsers(sub) -> None:
    _add_compare(sub)
    _add_ablate(sub)
    _add_bench(sub)
