"""`simdist tasks | presets | generate | merge | expert eval`: what there is, and the simulation data (Alg. 2)."""

from __future__ import annotations

from dataclasses import asdict

from simdist.cli.parser import DefaultsHelp, add_command, add_set
from simdist.cli.run_config import configure
from simdist.data.episodes import episode_files, merge_datasets
from simdist.data.generate import expert_only, generate, generation_preset
from simdist.data.records import run_inputs
from simdist.presets import REGISTRIES
from simdist.rollout import PrivilegedAgent, evaluate_grids
from simdist.tasks import get_task, task_names
from simdist.tasks.registry import check_task

# What `simdist presets` shows of each preset without --json (which shows every field).
PRESET_KEYS = {
    "model": (
        "latent_dim",
        "history",
        "horizon",
        "ffn_dim",
        "dynamics",
        "policy",
        "policy_sees_actions",
        "policy_sees_history",
    ),
    "train": ("steps", "batch_size", "lr", "lr_end", "warmup_steps", "decay_steps", "amp", "compile", "cpu_bf16"),
    "finetune": ("steps", "batch_size", "lr", "warmup_steps", "trainable", "sim_replay_fraction"),
    "mppi": (
        "samples",
        "policy_samples",
        "iterations",
        "elites",
        "temperature",
        "init_std",
        "policy_noise_std",
        "prior_weight",
        "compile",
        "cpu_bf16",
    ),
    "data": ("expert_prob", "noise_on_steps", "noise_off_steps", "noise_std_range", "never_noise_prob"),
    "baseline": ("encoder_preset", "hidden", "lr", "batch_size"),
    "run": ("episodes", "workers", "rounds", "episodes_per_round", "sim_eval_trials"),
}


def cmd_tasks(args) -> dict:
    """Every registered task, each built (with its sim environment, reset once): the ones that fail with why."""
    names = task_names()
    broken = {name: reason for name in names if (reason := check_task(name)) is not None}
    if args.json:
        return {"tasks": names, "broken": broken}
    return {name: f"BROKEN ({broken[name]})" if name in broken else "ok" for name in names}


def cmd_presets(args) -> dict:
    """Every kind of preset with its names; the configs' key values (--json: every field)."""
    out: dict = {"task": task_names() if args.json else ", ".join(task_names())}
    for kind, table in REGISTRIES.items():
        if kind == "task":
            continue
        out[kind] = {name: asdict(table.get(name)) for name in table.names()}
        if not args.json:
            keys = PRESET_KEYS.get(kind, ())
            out[kind] = {name: {k: _compact(v[k]) for k in keys if k in v} for name, v in out[kind].items()}
    return out


def _compact(value):
    """An attention stack as LAYERSxHEADS, a tuple as a comma list; anything else as it is."""
    if isinstance(value, dict) and set(value) == {"layers", "heads"}:
        return f"{value['layers']}x{value['heads']}"
    return ",".join(map(str, value)) if isinstance(value, (tuple, list)) else value


def cmd_generate(args) -> dict:
    task = get_task(args.task)
    default = getattr(task, "generation_preset", "manipulation")
    sections = configure(args, {"data": lambda name: generation_preset(name or default)})
    cfg = expert_only(sections["data"]) if args.expert_only else sections["data"]
    stats = generate(
        task,
        args.out,
        args.episodes,
        args.workers,
        args.seed,
        cfg,
        physics=args.physics,
        progress=not args.quiet,
        ray=args.ray,
    )
    return {**stats, "inputs": run_inputs(args.physics)}


def cmd_merge(args) -> dict:
    root = merge_datasets(args.out, args.sources, copy=args.copy)
    return {"out": str(root), "sources": args.sources, "files": len(episode_files(root))}


def cmd_expert_eval(args) -> dict:
    task = get_task(args.task)
    out = evaluate_grids(
        task,
        lambda env: PrivilegedAgent(task.expert(), env, seed=args.seed),
        args.domain,
        task.grids if args.grid == "all" else (args.grid,),
        args.trials,
        args.seed,
        args.physics,
        progress=not args.quiet,
        source="expert",
    )
    return {**out, "inputs": run_inputs(args.physics)}


def add_parsers(sub) -> None:
    add_command(
        sub,
        "tasks",
        cmd_tasks,
        "list the registered tasks, building each one's sim environment once: a task that "
        'fails (e.g. a plugin needing a missing extra) is marked BROKEN with the reason (--json: "broken")',
    )
    add_command(
        sub,
        "presets",
        cmd_presets,
        "list every kind of preset (task, model, train, finetune, mppi, data, baseline, "
        "run) with their key values (--json: every field)",
    )
    sp = add_command(
        sub, "generate", cmd_generate, "generate simulation data with the expert and sub-optimal policies (Alg. 2)"
    )
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
    add_set(sp, "data", "data.expert_prob=0.7 (or data=quadruped: the quadruped's noise windows)")
    sp = add_command(
        sub, "merge", cmd_merge, "one dataset over several compatible ones (symbolic links to their episode files)"
    )
    sp.add_argument("sources", nargs="+", help="dataset directories (same domain, shapes and control period)")
    sp.add_argument("--out", required=True)
    sp.add_argument("--copy", action="store_true", help="copy the episode files instead of linking them")
    expert = sub.add_parser("expert", help="privileged expert commands")
    expert = expert.add_subparsers(dest="expert_cmd", required=True)
    sp = expert.add_parser("eval", help="evaluate the privileged expert in a domain", formatter_class=DefaultsHelp)
    sp.set_defaults(fn=cmd_expert_eval)
    sp.add_argument("task")
    sp.add_argument("--domain", default="sim", choices=("sim", "real"))
    sp.add_argument("--grid", default="all")
    sp.add_argument("--trials", type=int, default=20)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--physics", help="JSON/YAML physics override file")
    sp.add_argument("--json", action="store_true", help="print one JSON object as the last line of stdout")
    sp.add_argument("--quiet", action="store_true", help="no progress bars")
