"""The planner's search on the small-control tasks: the records behind docs/findings.md, "Planning".

    python benchmarks/planner_search.py runs/planner_search            # models, `sim` grid, `real` adaptation
    python benchmarks/planner_search.py runs/planner_search --dry-run  # the commands only

Builds the pendulum demo model and 500-episode `cpu` models of the InvertedPendulum and point-mass examples, refines
the pendulum and InvertedPendulum models with candidate branches (`simdist refine --branches 4`), evaluates the BC
head and MPPI searches on the same 40 `sim` trials, and runs Alg. 1 (dynamics only, 2 rounds × 20; the point mass
4 × 20 with 2,000-step finetunes) under each task's two `real` gaps, then the point mass under the family's search
with three finetune budgets (FINETUNES) and the pendulum and InvertedPendulum with the epoch budget; then the
family's search narrowed (NARROWED: one iteration, or 96 of its 160 candidates as elites) on the small tasks' gaps and
on a 3,000-episode, 30,000-step Reacher model with four decoders (`sim`, and its belt-drive gap); then the family's
search acting only where every dynamics member predicts a gain (`mppi.accept=unanimous`) on that Reacher model and on
the pendulum demo's data retrained with four decoders (`sim`, and its shipped gap). Writes
OUT/planner_search_sim.jsonl and OUT/planner_search_real.jsonl in the format of benchmarks/results/. Every command
is skipped when its output exists, so a rerun resumes. About 4 h 30 min on 2 cores (two commands run side by side).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

IP, PM = "examples/inverted_pendulum/task.py", "examples/point_mass/task.py"
SEARCHES = {  # MPPI settings compared on every model (explicit, so a change of defaults does not move them)
    "warm-started, full spread": {"warm_start": "true", "init_std": "1.0"},
    "fresh, full spread": {"warm_start": "false", "init_std": "1.0"},
    "fresh, 0.3 (cpu preset)": {"warm_start": "false", "init_std": "0.3"},
    "fresh, 0.5": {"warm_start": "false", "init_std": "0.5"},
    "fresh, one iteration": {"warm_start": "false", "init_std": "1.0", "iterations": "1"},
    "fresh, eight iterations": {"warm_start": "false", "init_std": "1.0", "iterations": "8"},
    "scaled weights": {"warm_start": "true", "init_std": "1.0", "weights": "scaled", "temperature": "1"},
}
FAMILY = {"warm_start": "false", "init_std": "0.3"}  # the small-control family's search (the `cpu` preset)
# The family's search held nearer the BC chunk without a task setting: fewer refits, or a wider elite average
NARROWED = {"one iteration": {"iterations": "1"}, "96 elites": {"elites": "96"}, "64 elites": {"elites": "64"}}
REACHER, BELT = "examples/reacher/task.py", "examples/reacher/real_belt_drive.json"
# Alg. 1's finetune budget under the family's search (docs/findings.md, "Adaptation"): on the point mass the `cpu`
# preset's half-batch replay for a fixed 2,000 steps, a quarter-batch replay, and that with 100 epochs; on the
# pendulum and InvertedPendulum (whose preset runs are the adapt stage's) the last.
FINETUNES = {
    "replay0.5": ["--set", "finetune.steps=2000"],
    "replay0.25": ["--set", "finetune.steps=2000", "--set", "finetune.sim_replay_fraction=0.25"],
    "replay0.25_epochs100": ["--set", "finetune.sim_replay_fraction=0.25", "--set", "finetune.epochs=100"],
}
SMALL_FAMILY = ("pendulum", "inverted-pendulum")
GAPS = {
    "pendulum": [None, "benchmarks/physics/pendulum_payload_worn_motor.json"],
    "inverted-pendulum": [None, "examples/inverted_pendulum/real_heavy_cart_slow_bus.json"],
    "point-mass": [None, "examples/point_mass/real_heavy_puck_slow_bus.json"],
}


def sets(planner: dict) -> list[str]:
    return [a for k, v in planner.items() for a in ("--set", f"mppi.{k}={v}")]


def plan(out: Path) -> list[list[tuple[Path, list[str], dict]]]:
    """Stages of (output, command, environment); the commands of a stage are independent of each other."""
    env = {
        "pendulum": {},
        "inverted-pendulum": {"SIMDIST_TASK_MODULES": IP},
        "point-mass": {"SIMDIST_TASK_MODULES": PM},
    }
    demo = out / "pendulum" / "demo"
    models = {"pendulum": (demo / "pretrained", demo / "sim_data")}
    build = [(demo / "pipeline.json", ["simdist", "demo", "--task", "pendulum", "--out", str(demo), "--quiet"], {})]
    for task in ("inverted-pendulum", "point-mass"):
        data, model = out / task / "sim_data", out / task / "pretrained"
        build.append(
            (
                model / "config.json",
                [
                    "sh",
                    "-c",
                    f"simdist generate {task} --episodes 500 --out {data} --quiet "
                    f"&& simdist pretrain --data {data} --preset cpu --out {model} --quiet",
                ],
                env[task],
            )
        )
        models[task] = (model, data)
    refine = []
    for task in ("pendulum", "inverted-pendulum"):
        model, data = models[task]
        refined = out / task / "refined_branches"
        refine.append(
            (
                refined / "refine_results.json",
                [
                    "simdist",
                    "refine",
                    task,
                    "--checkpoint",
                    str(model),
                    "--sim-data",
                    str(data),
                    "--out",
                    str(refined),
                    "--episodes",
                    "100",
                    "--branches",
                    "4",
                    *sets(SEARCHES["fresh, full spread"]),
                    "--quiet",
                ],
                env[task],
            )
        )
        models[f"{task} refined"] = (refined / "round_01" / "model", refined / "round_01" / "data")
    evaluate, adapt = [], []
    for name, (model, data) in models.items():
        task = name.split()[0]
        agents = {"head": ["--agent", "policy"], **{k: sets(v) for k, v in SEARCHES.items()}}
        for agent, args in agents.items():
            target = out / "sim" / f"{name}_{agent}.json".replace(" ", "_").replace(",", "")
            evaluate.append(
                (
                    target,
                    [
                        "simdist",
                        "evaluate",
                        task,
                        "--checkpoint",
                        str(model),
                        "--trials",
                        "40",
                        "--seed",
                        "1",
                        *args,
                        "--out",
                        str(target),
                        "--quiet",
                    ],
                    env[task],
                )
            )
        for gap in GAPS[task]:
            for seed in (0, 1):
                run = out / "real" / f"{name}_{Path(gap).stem if gap else 'shipped'}_s{seed}".replace(" ", "_")
                length = ["--rounds", "4", "--finetune-steps", "2000"] if task == "point-mass" else ["--rounds", "2"]
                adapt.append(
                    (
                        run / "adapt_results.json",
                        [
                            "simdist",
                            "adapt",
                            task,
                            "--checkpoint",
                            str(model),
                            "--sim-data",
                            str(data),
                            "--episodes-per-round",
                            "20",
                            "--seed",
                            str(seed),
                            *length,
                            "--out",
                            str(run),
                            *(["--physics", gap] if gap else []),
                            "--quiet",
                        ],
                        env[task],
                    )
                )
    budget = []  # the point mass under every budget; the others (already on the family's search) under epochs
    for task, variants in (("point-mass", FINETUNES), *((t, ["replay0.25_epochs100"]) for t in SMALL_FAMILY)):
        model, data = models[task]
        rounds = "4" if task == "point-mass" else "2"
        for name in variants:
            for gap in GAPS[task]:
                for seed in (0, 1):
                    run = out / "real" / f"{task}_family_{name}_{Path(gap).stem if gap else 'shipped'}_s{seed}"
                    command = ["simdist", "adapt", task, "--checkpoint", str(model), "--sim-data", str(data)]
                    command += ["--episodes-per-round", "20", "--rounds", rounds, "--seed", str(seed), *sets(FAMILY)]
                    command += [*FINETUNES[name], "--out", str(run), *(["--physics", gap] if gap else []), "--quiet"]
                    budget.append((run / "adapt_results.json", command, env[task]))
    return [build, refine, evaluate, adapt, budget, *narrowed(out, models, env), *unanimous(out, models)]


def narrowed(out: Path, models: dict, env: dict) -> list[list[tuple[Path, list[str], dict]]]:
    """The family's search with NARROWED settings: `sim` on each model (and Reacher's, built here), Alg. 1 on the
    pendulum's and InvertedPendulum's gaps and Reacher's belt drive (2 rounds × 20, 2 seeds)."""
    data, model = out / "reacher" / "sim_data", out / "reacher" / "pretrained"
    build = f"simdist generate reacher --episodes 3000 --out {data} --quiet && simdist pretrain --data {data} "
    build += f"--preset cpu --set model.dynamics_ensemble=4 --set train.steps=30000 --out {model} --quiet"
    build_stage, items = [(model / "config.json", ["sh", "-c", build], {"SIMDIST_TASK_MODULES": REACHER})], []
    family = {**FAMILY, "prior_weight": "0"}  # Reacher's own planner_overrides left out
    gaps = {**{t: GAPS[t] for t in SMALL_FAMILY}, "reacher": [BELT]}
    targets = {**{t: models[t] for t in (*SMALL_FAMILY, "point-mass")}, "reacher": (model, data)}
    for task, (model, data) in targets.items():
        task_env = env.get(task, {"SIMDIST_TASK_MODULES": REACHER})
        for name, setting in NARROWED.items():
            planner, tag = sets({**family, **setting}), name.replace(" ", "_")
            target = out / "sim" / f"{task}_family_{tag}.json"
            command = ["simdist", "evaluate", task, "--checkpoint", str(model), "--trials", "40", "--seed", "1"]
            items.append((target, [*command, *planner, "--out", str(target), "--quiet"], task_env))
            for gap in gaps.get(task, []) if name != "64 elites" else []:
                for seed in (0, 1):
                    run = out / "real" / f"{task}_{Path(gap).stem if gap else 'shipped'}_family_{tag}_s{seed}"
                    command = ["simdist", "adapt", task, "--checkpoint", str(model), "--sim-data", str(data)]
                    command += ["--episodes-per-round", "20", "--rounds", "2", "--seed", str(seed), *planner]
                    command += ["--out", str(run), *(["--physics", gap] if gap else []), "--quiet"]
                    items.append((run / "adapt_results.json", command, task_env))
    return [build_stage, items]


def unanimous(out: Path, models: dict) -> list[list[tuple[Path, list[str], dict]]]:
    """The family's search with and without `accept=unanimous` on models with four dynamics members: Reacher's
    (built by `narrowed`) in `sim`, and the pendulum's, `sim` and its shipped gap (2 rounds × 20, 2 seeds)."""
    data, model = models["pendulum"][1], out / "pendulum" / "members"
    build = ["simdist", "pretrain", "--data", str(data), "--preset", "cpu", "--set", "model.dynamics_ensemble=4"]
    build_stage, items = [(model / "config.json", [*build, "--out", str(model), "--quiet"], {})], []
    reacher = (out / "reacher" / "pretrained", {"SIMDIST_TASK_MODULES": REACHER}, ["--set", "mppi.prior_weight=0"])
    agents = {"head": ["--agent", "policy"], "always": [], "unanimous": ["--set", "mppi.accept=unanimous"]}
    for task, (checkpoint, task_env, own) in {"pendulum": (model, {}, []), "reacher": reacher}.items():
        for agent, args in agents.items():
            target = out / "sim" / f"{task}_members_{agent}.json"
            command = ["simdist", "evaluate", task, "--checkpoint", str(checkpoint), "--trials", "40", "--seed", "1"]
            items.append((target, [*command, *sets(FAMILY), *own, *args, "--out", str(target), "--quiet"], task_env))
    for agent in ("always", "unanimous"):
        for seed in (0, 1):
            run = out / "real" / f"pendulum_members_shipped_{agent}_s{seed}"
            command = ["simdist", "adapt", "pendulum", "--checkpoint", str(model), "--sim-data", str(data)]
            command += ["--episodes-per-round", "20", "--rounds", "2", "--seed", str(seed), *sets(FAMILY)]
            command += [*agents[agent], "--out", str(run), "--quiet"]
            items.append((run / "adapt_results.json", command, {}))
    return [build_stage, items]


def run_stage(stage, dry_run: bool) -> None:
    def one(item):
        target, command, env = item
        if target.exists():
            return
        print(" ".join(command), flush=True)
        if not dry_run:
            subprocess.run(command, check=True, env={**os.environ, "OMP_NUM_THREADS": "1", **env})

    with ThreadPoolExecutor(2) as pool:  # two one-thread jobs side by side
        list(pool.map(one, stage))


def records(out: Path) -> None:
    with open(out / "planner_search_sim.jsonl", "w") as f:
        for path in sorted((out / "sim").glob("*.json")):
            f.write(json.dumps({"run": path.stem, **json.loads(path.read_text())}) + "\n")
    with open(out / "planner_search_real.jsonl", "w") as f:
        for path in sorted((out / "real").glob("*/adapt_results.json")):
            d = json.loads(path.read_text())
            f.write(
                json.dumps(
                    {
                        "run": path.parent.name,
                        "task": d["task"],
                        "success_by_round": [r["success_rate"] for r in d["rounds"]],
                        "successes_by_round": [int(sum(r["successes"])) for r in d["rounds"]],
                        "trials_per_round": [len(r["successes"]) for r in d["rounds"]],
                        "real_minutes": d["real_minutes"],
                        "mppi": d["inputs"].get("mppi"),
                        "physics_file": d["inputs"].get("physics_file"),
                    }
                )
                + "\n"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--dry-run", action="store_true", help="print the commands that would run")
    args = parser.parse_args()
    for stage in plan(args.out):
        run_stage(stage, args.dry_run)
    if not args.dry_run:
        records(args.out)


if __name__ == "__main__":
    main()
