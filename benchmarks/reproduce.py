"""Regenerate one row of the README's results table from the shipped checkpoints and the `simdist` CLI.

    python benchmarks/reproduce.py --list                 # the rows, with their time and trials
    python benchmarks/reproduce.py pendulum               # run one row's commands, then print the row
    python benchmarks/reproduce.py peg-narrow --dry-run   # print the commands only
    python benchmarks/reproduce.py foam --summary         # print the row from finished runs, run nothing

Every step is a `simdist` command whose `--json` result is kept in RUNS/<row>/<step>.json; a step whose result
exists is skipped, so an interrupted row resumes where it stopped. Rows that share inputs (the quadruped data, the
Peg Insertion replay data) share them under RUNS. Times are wall-clock on an otherwise idle 2-core x86 machine, as
measured when the README's figures were recorded (docs/benchmarks.md); they are long because each figure is many
closed-loop episodes of a planner that replans every control step. The trials give the chance spread: with 15-45
trials per point a success rate moves by 0.1-0.25 from chance alone.

Episode seeds are drawn independently per seed, round and episode, so a rerun reproduces a figure within that
spread, not digit for digit (the pendulum's demo model is bit-for-bit reproducible). `simdist dagger`, `simdist
compare` and `simdist adapt` use the CLI's dotted overrides (`--set SECTION.FIELD=VALUE`).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POINT_MASS = {"SIMDIST_TASK_MODULES": str(ROOT / "examples" / "point_mass" / "task.py")}
MU019 = "benchmarks/physics/slope_real_mu0.19.json"


@dataclass
class Step:
    name: str  # the result is kept in RUNS/<row>/<name>.json (or, with `shared`, RUNS/<name>.json)
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    shared: bool = False


@dataclass
class Row:
    name: str
    readme: str  # the README row, as printed there
    time: str
    trials: str
    steps: list[Step]
    summary: callable


def sh(cmd: str) -> list[str]:
    return shlex.split(cmd)


# ---------------------------------------------------------------------------------------------- shared inputs


def peg_data(r: str) -> Step:
    """Alg. 2 replay data for Peg Insertion's finetunes and its BC baseline (2,000 episodes, about 10 min)."""
    return Step(
        "peg_data",
        sh(f"simdist generate peg-insertion --episodes 2000 --workers 2 --out {r}/peg_data --quiet"),
        shared=True,
    )


def quadruped_data(r: str) -> list[Step]:
    """runs/quadruped_data_v2: 1.95 M transitions on the training terrain and 0.77 M on the two courses (about
    12 min on one core); quadruped_data_v3 adds 0.6 M low-friction slope-course transitions (foot mu 0.15-0.4)."""
    gen = "python -m simdist.data.quadruped_batched --envs 64"
    one = {"OMP_NUM_THREADS": "1"}
    return [
        Step(
            "quadruped_data_v1_a",
            sh(f"{gen} --task foam --out {r}/quadruped_data_v1 --transitions 1000000 --seed 0"),
            one,
            shared=True,
        ),
        Step(
            "quadruped_data_v1_b",
            sh(f"{gen} --task foam --out {r}/quadruped_data_v1 --transitions 1000000 --seed 1"),
            one,
            shared=True,
        ),
        Step(
            "foam_course_data",
            sh(f"{gen} --task foam --scene course --out {r}/foam_course_data --transitions 400000 --seed 2"),
            one,
            shared=True,
        ),
        Step(
            "slope_course_data",
            sh(f"{gen} --task slippery-slope --scene course --out {r}/slope_course_data --transitions 400000 --seed 3"),
            one,
            shared=True,
        ),
        Step(
            "quadruped_data_v2",
            sh(
                f"simdist merge {r}/quadruped_data_v1 {r}/foam_course_data {r}/slope_course_data "
                f"--out {r}/quadruped_data_v2"
            ),
            shared=True,
        ),
    ]


def quadruped_data_v3(r: str) -> list[Step]:
    return quadruped_data(r) + [
        Step(
            "slope_lowfric_data",
            sh(
                "python -m simdist.data.quadruped_batched --task slippery-slope "
                "--scene course --physics benchmarks/physics/sim_low_foot_friction.json "
                f"--envs 64 --transitions 600000 --seed 20 --out {r}/slope_lowfric_data"
            ),
            {"OMP_NUM_THREADS": "1"},
            shared=True,
        ),
        Step(
            "quadruped_data_v3",
            sh(f"simdist merge {r}/quadruped_data_v2 {r}/slope_lowfric_data --out {r}/quadruped_data_v3"),
            shared=True,
        ),
    ]


# ---------------------------------------------------------------------------------------------- summaries


def load(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text().strip().splitlines()[-1])
    except (OSError, IndexError, json.JSONDecodeError):
        return None


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else float("nan")


def adapt_rows(d: Path, names: list[str]) -> tuple[float, float, float]:
    """Zero shot, the last round, and the mean of the adapted rounds, pooled over `simdist adapt` results."""
    runs = [r["rounds"] for r in (load(d / f"{n}.json") for n in names) if r]
    if not runs:
        return (float("nan"),) * 3
    return (
        mean([r[0]["success_rate"] for r in runs]),
        mean([r[-1]["success_rate"] for r in runs]),
        mean([x["success_rate"] for r in runs for x in r[1:]]),
    )


def compare_final(d: Path, name: str, method: str, index: int = -1) -> float:
    rec = load(d / f"{name}.json")
    return rec["methods"][method]["success_mean"][index] if rec and method in rec["methods"] else float("nan")


def best_other(d: Path, names: list[str], exclude=("simdist", "simdist_bc")) -> float:
    found = [
        max(m["success_mean"])
        for n in names
        if (rec := load(d / f"{n}.json"))
        for k, m in rec["methods"].items()
        if k not in exclude
    ]
    return max(found) if found else float("nan")


def evaluate_mean(d: Path, names: list[str]) -> float:
    return mean([rec["success_rate"] for n in names if (rec := load(d / f"{n}.json"))])


def fmt(x: float) -> str:
    return "–" if x != x else f"{x:.2f}"


# ---------------------------------------------------------------------------------------------- rows


def bc_dagger_steps(task: str, root: str, dagger_args: str, eval_args: str) -> list[Step]:
    """Per BC seed: a DAgger round with the SimDist head's recipe, then three 5-trial `real` evaluations of the head."""
    steps = []
    for s in range(3):
        evaluate = (
            f"simdist evaluate {task} --checkpoint {root}/bc_dagger_s{s}/model --domain real --grid all "
            f"--trials 5 --agent policy {eval_args}".rstrip()
        )
        steps += [
            Step(
                f"bc_dagger_s{s}",
                sh(
                    f"simdist dagger {task} --checkpoint {root}/bc/bc/seed_{s}/checkpoint "
                    f"{dagger_args} --set dagger.seed={100 + s} --set dagger.train_seed={s} "
                    f"--out {root}/bc_dagger_s{s} --json --quiet"
                ),
                {"OMP_NUM_THREADS": "1"},
            ),
            *(
                Step(f"bc_dagger_s{s}_eval{e}", sh(f"{evaluate} --seed {e} --json --quiet"), {"OMP_NUM_THREADS": "1"})
                for e in range(3)
            ),
        ]
    return steps


def rows(r: str) -> dict[str, Row]:
    out: dict[str, Row] = {}

    def add(row: Row) -> None:
        out[row.name] = row

    methods = "simdist,simdist_bc,bc,iql,rlpd,sgft,dp,dp_cotrain"
    add(
        Row(
            "pendulum",
            "Pendulum: 0.22 → 1.00, 4 robot min, 3 seeds; IQL 0.15",
            "about 15 min (the demo pretrains its model in about 80 s; the comparison of 8 methods about 8-12 min)",
            "20 `real` trials per evaluation point and seed, 3 seeds (60 per point); SimDist: 3 points over 4 robot min",
            [
                Step(
                    "demo",
                    sh(f"simdist demo --task pendulum --out {r}/pendulum/demo --json --quiet"),
                    {"OMP_NUM_THREADS": "1"},
                ),
                Step(
                    "compare",
                    sh(
                        f"simdist compare pendulum --methods {methods} --seeds 3 --sim-data {r}/pendulum/demo/sim_data "
                        f"--checkpoint {r}/pendulum/demo/pretrained --budget 60 --episodes-per-round 20 "
                        f"--out {r}/pendulum/compare --json --quiet"
                    ),
                ),
            ],
            lambda d: (
                f"zero shot {fmt(compare_final(d, 'compare', 'simdist', 0))} → adapted "
                f"{fmt(compare_final(d, 'compare', 'simdist'))}; best baseline {fmt(best_other(d, ['compare']))}"
            ),
        )
    )

    add(
        Row(
            "point-mass",
            "Point mass: 0.00 → 0.62, 5 robot min, 2 seeds; every baseline 0.00, SimDist+BC 0.88",
            "about 30 min (every stage of the example task about 5 min; 8 methods, 2 seeds, 25 min)",
            "20 `real` trials per evaluation point and seed, 2 seeds (40 per point); 5 points over 100 real episodes",
            [
                Step(
                    "run",
                    sh(f"simdist run point-mass --preset cpu --rounds 4 --out {r}/point-mass/run --json --quiet"),
                    POINT_MASS,
                ),
                Step(
                    "compare",
                    sh(
                        f"simdist compare point-mass --methods {methods} --seeds 2 "
                        f"--sim-data {r}/point-mass/run/sim_data --checkpoint {r}/point-mass/run/pretrained "
                        f"--budget 100 --episodes-per-round 20 --preset cpu --out {r}/point-mass/compare --json --quiet"
                    ),
                    POINT_MASS,
                ),
            ],
            lambda d: (
                f"zero shot {fmt(compare_final(d, 'compare', 'simdist', 0))} → adapted "
                f"{fmt(compare_final(d, 'compare', 'simdist'))}; SimDist+BC {fmt(compare_final(d, 'compare', 'simdist_bc'))}"
                f"; best other baseline {fmt(best_other(d, ['compare']))}"
            ),
        )
    )

    pm = f"{r}/peg"  # Peg Insertion's data and model, made here (docs/tasks/peg-insertion.md)
    peg_recipe = "--set data.mid_task_prob=0.75 --set data.mid_task_s=5 --set data.teacher=gated-hold"
    peg_train = "--set train.lr=3e-4 --set train.lr_end=3e-5 --set train.ema_decay=0.999 --set train.val_fraction=0.01"

    def peg_eval(grid: str, agent: str) -> Step:
        flag = "--agent policy" if agent == "head" else "--mppi manipulation-prior"
        cmd = (
            f"simdist evaluate peg-insertion --checkpoint {pm}/selected --grid {grid} --trials 40 {flag} --json --quiet"
        )
        return Step(f"{agent}_{grid}", sh(cmd))

    add(
        Row(
            "peg",
            "Peg Insertion, the shipped model made in one sitting: BC head 0.70 / 0.825 (Narrow / Wide), "
            "`manipulation-prior` planner 0.75 / 0.775",
            "about 2 h on 2 cores (12,000 Alg. 2 episodes 21 min; 36,000 pretraining steps 62 min on one thread; "
            "selection about 10 min; the evaluations about 20 min)",
            "40 `sim` trials per grid and agent; the selection's 40 per grid and checkpoint on other seeds",
            [
                Step(
                    "data",
                    sh(
                        f"simdist generate peg-insertion --episodes 12000 --workers 2 --seed 1 {peg_recipe} "
                        f"--out {pm}/data --json --quiet"
                    ),
                ),
                Step(
                    "pretrain",
                    sh(
                        f"simdist pretrain --data {pm}/data --out {pm}/model --preset paper-manipulation --steps 36000 "
                        f"{peg_train} --set train.keep_checkpoints=true --set train.val_every=2000 --json --quiet"
                    ),
                ),
                Step(
                    "select",
                    sh(
                        f"simdist select peg-insertion {pm}/model --trials 40 --seed 2 --copy-to {pm}/selected "
                        "--json --quiet"
                    ),
                ),
                *(peg_eval(grid, agent) for agent in ("head", "planner") for grid in ("narrow", "wide")),
            ],
            lambda d: (
                f"BC head {fmt(evaluate_mean(d, ['head_narrow']))} / {fmt(evaluate_mean(d, ['head_wide']))}, "
                f"planner {fmt(evaluate_mean(d, ['planner_narrow']))} / {fmt(evaluate_mean(d, ['planner_wide']))} "
                f"(Narrow / Wide); the model: {pm}/selected (copy it to checkpoints/peg-insertion to ship it)"
            ),
        )
    )

    def peg_adapt(grid: str, seed: int) -> Step:
        return Step(
            f"adapt_s{seed}",
            sh(
                f"simdist adapt peg-insertion --checkpoint checkpoints/peg-insertion --rounds 4 --episodes-per-round 20 "
                f"--grid {grid} --preset cpu --mppi manipulation-prior --finetune-steps 1000 --sim-data {r}/peg_data "
                f"--seed {seed} --out {r}/peg-{grid}/adapt_s{seed} --json --quiet"
            ),
            {"OMP_NUM_THREADS": "1"},
        )

    def peg_bc(grid: str, seed: int) -> Step:
        start = (
            "" if grid == "narrow" else f" --start-policy {r}/peg-narrow/bc_s{seed}/bc/seed_{seed}/checkpoint"
        )  # Narrow's policy, deployed as is
        return Step(
            f"bc_s{seed}",
            sh(
                f"simdist compare peg-insertion --methods bc --seeds {seed}, --preset paper --sim-data {r}/peg_data "
                f"--budget 20 --episodes-per-round 20 --grid {grid} --out {r}/peg-{grid}/bc_s{seed} --json --quiet{start}"
            ),
            {"OMP_NUM_THREADS": "1"},
        )

    def peg_summary(d: Path) -> str:
        zero, _, adapted = adapt_rows(d, ["adapt_s0", "adapt_s1"])
        bc = mean([x for s in (0, 1) if (x := compare_final(d, f"bc_s{s}", "bc")) == x])
        return f"zero shot {fmt(zero)} → adapted (mean of rounds 1-4) {fmt(adapted)}; single-step BC {fmt(bc)}"

    for grid, readme, time in (
        (
            "narrow",
            "Peg Insertion, Narrow: 0.20 → 0.26, 100 episodes, 2 seeds; single-step BC 0.05 (seed 0)",
            "about 75 min (replay data 10 min; two single-thread Alg. 1 runs at once about 50 min; BC 18 min per seed, "
            "two at once)",
        ),
        (
            "wide",
            "Peg Insertion, Wide: not yet measured on the carry-frame model",
            "about 50 min after peg-narrow (two Alg. 1 runs at once 45 min; BC reuses Narrow's policies, 31 s)",
        ),
    ):
        add(
            Row(
                f"peg-{grid}",
                readme,
                time,
                "20 `real` trials per round and seed, 2 seeds: zero shot 40, adapted 160 (4 rounds); BC 20 per seed. "
                "The README's Narrow zero shot (0.20) also pools 40 independent trials of the shipped model",
                [peg_data(r), *(peg_adapt(grid, s) for s in (0, 1)), *(peg_bc(grid, s) for s in (0, 1))],
                peg_summary,
            )
        )

    foam_adapt = (
        "simdist adapt foam --checkpoint checkpoints/quadruped-foam-dagger --rounds 10 --episodes-per-round 15 "
        f"--grid all --preset quadruped-cpu --prior-weight 10 --sim-data {r}/quadruped_data_v2"
    )
    foam_bc = [
        Step(
            "bc",
            sh(
                f"simdist compare foam --methods bc --seeds 3 --sim-data {r}/quadruped_data_v2 "
                "--checkpoint checkpoints/quadruped-cpu --budget 105 --episodes-per-round 15 "
                "--episodes-per-update 15 --grid all --set baseline.sensor_noise_scale=1 "
                f"--out {r}/foam/bc --json --quiet"
            ),
            {"OMP_NUM_THREADS": "1"},
        )
    ]
    foam_bc += bc_dagger_steps(
        "foam",
        f"{r}/foam",
        f"--sim-data {r}/quadruped_data_v2 --episodes-per-grid 40 --workers 2 --set dagger.sensor_noise_steps=0",
        "",
    )  # BC given the SimDist head's recipe
    add(
        Row(
            "foam",
            "Foam (quadruped-foam-dagger): 0.76 → 0.72, 21–30 robot min, 3 seeds; BC + the same DAgger labels 0.54",
            "about 3 h (quadruped data 12 min; three Alg. 1 runs of 10 rounds at once, about 4 min a round as measured on "
            "the slope, about 10 GB of memory each; BC 66 min for 3 seeds, then a DAgger round of 4 min and 3 evaluations "
            "of 1 min per seed)",
            "15 `real` trials (5 at each of 3 speeds) per round and seed, 3 seeds: zero shot 45, adapted 450; "
            "BC + DAgger 45 per seed",
            [
                *quadruped_data(r),
                *(
                    Step(
                        f"adapt_s{s}",
                        sh(f"{foam_adapt} --seed {s} --out {r}/foam/adapt_s{s} --json --quiet"),
                        {"OMP_NUM_THREADS": "1"},
                    )
                    for s in range(3)
                ),
                *foam_bc,
            ],
            lambda d: (
                f"zero shot {fmt(adapt_rows(d, [f'adapt_s{s}' for s in range(3)])[0])} → adapted (mean of rounds) "
                f"{fmt(adapt_rows(d, [f'adapt_s{s}' for s in range(3)])[2])}; BC + DAgger "
                f"{fmt(evaluate_mean(d, [f'bc_dagger_s{s}_eval{e}' for s in range(3) for e in range(3)]))}"
            ),
        )
    )

    slope_adapt = (
        "simdist adapt slippery-slope --checkpoint checkpoints/quadruped-lowfric-dagger --rounds 12 "
        f"--episodes-per-round 15 --grid all --preset quadruped-cpu --prior-weight 10 --physics {MU019} "
        f"--sim-data {r}/quadruped_data_v3"
    )
    slope_bc = [
        Step(
            "bc",
            sh(
                f"simdist compare slippery-slope --methods bc --seeds 3 --sim-data {r}/quadruped_data_v3 "
                f"--checkpoint checkpoints/quadruped-lowfric --budget 60 --episodes-per-round 15 "
                f"--episodes-per-update 15 --grid all --physics {MU019} --out {r}/slope-mu019/bc "
                "--json --quiet"
            ),
            {"OMP_NUM_THREADS": "1"},
        )
    ]
    slope_bc += bc_dagger_steps(
        "slippery-slope",
        f"{r}/slope-mu019",
        f"--sim-data {r}/quadruped_data_v3 --physics benchmarks/physics/sim_panel_friction.json "
        "--grid 0.1 --grid 0.3 --episodes-per-grid 60 --workers 2",
        f"--physics {MU019}",
    )  # BC given exactly the SimDist head's recipe, at mu = 0.19
    add(
        Row(
            "slope-mu019",
            "Slippery Slope, μ = 0.19 (quadruped-lowfric-dagger): 0.89 → 0.91, 30 robot min, 3 seeds; "
            "BC + the same DAgger recipe 0.83",
            "about 1.5 h once the data exist (quadruped data v2 and v3 about 25 min; three Alg. 1 runs of 12 rounds at once "
            "41 min; per BC seed a comparison, 5 min of DAgger and 3 evaluations of 1 min)",
            "15 `real` trials (5 at each of 3 speeds) per round and seed, 3 seeds: zero shot 45, adapted 540; "
            "BC + DAgger 45 per seed",
            [
                *quadruped_data_v3(r),
                *(
                    Step(
                        f"adapt_s{s}",
                        sh(f"{slope_adapt} --seed {s} --out {r}/slope-mu019/adapt_s{s} --json --quiet"),
                        {"OMP_NUM_THREADS": "1"},
                    )
                    for s in range(3)
                ),
                *slope_bc,
            ],
            lambda d: (
                f"zero shot {fmt(adapt_rows(d, [f'adapt_s{s}' for s in range(3)])[0])} → adapted (mean of rounds) "
                f"{fmt(adapt_rows(d, [f'adapt_s{s}' for s in range(3)])[2])}; BC + DAgger "
                f"{fmt(evaluate_mean(d, [f'bc_dagger_s{s}_eval{e}' for s in range(3) for e in range(3)]))}"
            ),
        )
    )

    add(
        Row(
            "slope-mu015",
            "Slippery Slope, μ = 0.15 (quadruped-cpu as first shipped): 0.00 → 0.00, 6.5 robot min, 3 seeds; BC 0.04",
            "about 1 h after the quadruped data (SimDist's three seeds about 15 min each; BC 1.3 robot min per seed)",
            "15 `real` trials per round and seed, 3 seeds, 7 rounds (45 per point)",
            [
                *quadruped_data(r),
                Step(
                    "model",
                    [
                        "bash",
                        "-c",
                        f"mkdir -p {r}/q_v2_nohist && for f in config.json model.safetensors; do "
                        f"git show 5445b93^:checkpoints/quadruped-cpu/$f > {r}/q_v2_nohist/$f; done",
                    ],
                    shared=True,
                ),  # the shipped model before its sensor-noise steps
                Step(
                    "compare",
                    sh(
                        f"simdist compare slippery-slope --methods simdist,bc --seeds 3 --sim-data {r}/quadruped_data_v2 "
                        f"--checkpoint {r}/q_v2_nohist --budget 105 --episodes-per-round 15 --episodes-per-update 15 "
                        f"--grid all --prior-weight 10 --out {r}/slope-mu015/compare --json --quiet"
                    ),
                ),
            ],
            lambda d: (
                f"zero shot {fmt(compare_final(d, 'compare', 'simdist', 0))} → adapted "
                f"{fmt(compare_final(d, 'compare', 'simdist'))}; BC {fmt(compare_final(d, 'compare', 'bc'))}"
            ),
        )
    )

    tl = f"{r}/table-leg"
    tl_compare = (
        f"simdist compare table-leg --sim-data {tl}/sim_data --grid narrow --seeds 1 --preset cpu --budget 40 "
        "--episodes-per-round 20 --json --quiet"
    )
    add(
        Row(
            "table-leg",
            "Table Leg (cpu preset): 0.00 → 0.00; every method 0.00–0.05",
            "about 21 min (500 Alg. 2 episodes, the `cpu` world model, 8 methods)",
            "20 `real` trials per evaluation point, 1 seed; 40 real episodes per method",
            [
                Step(
                    "sim_data", sh(f"simdist generate table-leg --episodes 500 --workers 2 --out {tl}/sim_data --quiet")
                ),
                Step(
                    "pretrained",
                    sh(f"simdist pretrain --data {tl}/sim_data --out {tl}/pretrained --preset cpu --quiet"),
                ),
                Step(
                    "world_model",
                    sh(
                        f"{tl_compare} --methods simdist,simdist_bc --checkpoint {tl}/pretrained --out {tl}/world_model"
                    ),
                ),
                Step("offline", sh(f"{tl_compare} --methods bc,dp,dp_cotrain --out {tl}/offline")),
                Step("rl", sh(f"{tl_compare} --methods iql,rlpd,sgft --episodes-per-update 20 --out {tl}/rl")),
            ],
            lambda d: (
                f"zero shot {fmt(compare_final(d, 'world_model', 'simdist', 0))} → adapted "
                f"{fmt(compare_final(d, 'world_model', 'simdist'))}; best baseline "
                f"{fmt(best_other(d, ['world_model', 'offline', 'rl'], exclude=('simdist',)))}"
            ),
        )
    )
    return out


# ---------------------------------------------------------------------------------------------- running


def run(row: Row, runs: Path, dry: bool) -> None:
    d = runs / row.name
    d.mkdir(parents=True, exist_ok=True)
    for step in row.steps:
        result = (runs if step.shared else d) / f"{step.name}.json"
        done = result.exists()  # written only when the step succeeded
        line = " ".join(f"{k}={shlex.quote(v)}" for k, v in step.env.items())
        line = (line + " " if line else "") + shlex.join(step.argv)
        if done:
            print(f"# done: {step.name}", flush=True)
            continue
        print(line, flush=True)
        if dry:
            continue
        proc = subprocess.run(step.argv, cwd=ROOT, env={**os.environ, **step.env}, stdout=subprocess.PIPE, text=True)
        if proc.returncode:
            raise SystemExit(f"{step.name} failed ({proc.returncode}): {line}")
        last = [x for x in proc.stdout.splitlines() if x.strip()]
        result.write_text((last[-1] if last else "{}") + "\n")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("row", nargs="?", help="a README row (see --list)")
    ap.add_argument("--runs", default="runs/reproduce", help="where runs and their results go (default runs/reproduce)")
    ap.add_argument("--list", action="store_true", help="list the rows with their time and trials")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    ap.add_argument("--summary", action="store_true", help="print the row from the finished steps, run nothing")
    args = ap.parse_args(argv)
    runs = Path(args.runs)
    table = rows(str(runs))
    if args.list or not args.row:
        for row in table.values():
            print(f"{row.name}\n  README: {row.readme}\n  time:   {row.time}\n  trials: {row.trials}")
        return
    if args.row not in table:
        raise SystemExit(f"unknown row {args.row!r}; one of {', '.join(table)}")
    row = table[args.row]
    if not args.summary:
        run(row, runs, args.dry_run)
    if not args.dry_run:
        print(f"{row.name}: {row.summary(runs / row.name)}\n  README: {row.readme}")


if __name__ == "__main__":
    sys.exit(main())
