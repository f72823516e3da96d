"""docs/img/at_a_glance.png: per task, SimDist's `sim` success, its `real` success zero shot and after adaptation,
the best baseline in `real`, and what the privileged teacher reaches in `real` (on true state; for Peg Insertion and
Table Leg acting on the robot's observations, single ones), each read from the committed records in
benchmarks/results/ (none typed in).

    python benchmarks/glance_plot.py
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

RESULTS = Path(__file__).parent / "results"
OUT = Path(__file__).parent.parent / "docs" / "img" / "at_a_glance.png"


def compare(name: str) -> dict:
    return json.loads((RESULTS / f"{name}.json").read_text())["methods"]


def adapt_mean(pattern: str) -> tuple[float, float]:
    """Zero-shot and final `real` success, mean over the seeds' `simdist adapt` records."""
    runs = [json.loads(p.read_text())["rounds"] for p in sorted(RESULTS.glob(pattern))]
    return float(np.mean([r[0]["success_rate"] for r in runs])), float(np.mean([r[-1]["success_rate"] for r in runs]))


def adapted_rounds_mean(pattern: str) -> tuple[float, float]:
    """Zero-shot `real` success and the mean over every adapted round, pooled over the seeds' `simdist adapt`
    records: where the rounds scatter around a flat level (Peg Insertion), the last round alone is one noisy draw."""
    runs = [json.loads(p.read_text())["rounds"] for p in sorted(RESULTS.glob(pattern))]
    return (
        float(np.mean([r[0]["success_rate"] for r in runs])),
        float(np.mean([row["success_rate"] for r in runs for row in r[1:]])),
    )


def pooled_baseline(pattern: str, method: str = "bc") -> float:
    """A baseline's final `real` success pooled over one-seed `simdist compare` records (equal trials per seed)."""
    finals = [compare(p.stem)[method]["final_success_mean"] for p in sorted(RESULTS.glob(f"{pattern}.json"))]
    if not finals:
        raise SystemExit(f"no record matches {pattern}.json")
    return float(np.mean(finals))


def stages_success(name: str, **match) -> float:
    """Mean success of the matching rows of a `manipulation_stages.py` records file (equal trials per row)."""
    rows = [json.loads(line) for line in (RESULTS / f"{name}.jsonl").read_text().splitlines() if line.strip()]
    found = [r["mean"]["success"] for r in rows if all(r.get(k) == v for k, v in match.items())]
    if not found:
        raise SystemExit(f"no row of {name}.jsonl matches {match}")
    return float(np.mean(found))


def jsonl_mean(name: str, key: str = "success_rate", **match) -> float:
    """Mean `key` of the rows of a records file whose fields equal `match` (a set: any of its values)."""
    rows = [json.loads(line) for line in (RESULTS / f"{name}.jsonl").read_text().splitlines() if line.strip()]
    rows = [r for r in rows if all(r.get(k) in v if isinstance(v, set) else r.get(k) == v for k, v in match.items())]
    if not rows:
        raise SystemExit(f"no row of {name}.jsonl matches {match}")
    return float(np.mean([r[key] for r in rows]))


def dagger_sim(name: str, model: str) -> float:
    """The `sim` success of a `simdist dagger` run's output head alone (its dagger_run record)."""
    rows = [json.loads(line) for line in (RESULTS / f"{name}.jsonl").read_text().splitlines() if line.strip()]
    found = [r for r in rows if r.get("kind") == "dagger_run" and r.get("model") == model]
    if not found:
        raise SystemExit(f"no dagger_run record of {model} in {name}.jsonl")
    return float(found[-1]["final_head_sim_success_mean"])


def peg_baseline() -> float | None:
    """Single-step BC beside the shipped Peg model, where it has been measured (`reproduce.py peg-narrow`)."""
    found = sorted(RESULTS.glob("compare_peg_carry_bc_narrow_s?.json"))
    return pooled_baseline("compare_peg_carry_bc_narrow_s?") if found else None


def best_baseline(*records: str, exclude=("simdist",)) -> float:
    return max(max(m["success_mean"]) for rec in records for k, m in compare(rec).items() if k not in exclude)


def perceiving_teacher(grid: str) -> float:
    """Peg Insertion's expert acting on single `real` observations."""
    return jsonl_mean(
        "peg_perceiving_real",
        key="success",
        controller="expert",
        view="perceived",
        search="circle",
        grid=grid,
        domain="real",
    )


CURRENT_PLANNER = {"warm_start": "false", "init_std": "0.3"}  # the `cpu` preset's search (planner_search_sim)


def rows() -> list[tuple[str, float | None, float, float, float | None, float | None]]:
    """(label, sim, real zero shot, real after adaptation, best baseline in real, the teacher in real)."""
    pend = compare("compare_pendulum_simdist_3seeds")["simdist"]["success_mean"]  # the current planner, 3 seeds
    foam = compare("compare_foam_shipped_indep_seeds")["simdist"]["success_mean"]  # one `simdist compare` command
    slope = compare("compare_slope_mu015_simdist_bc_3seeds")["simdist"]["success_mean"]
    table_leg = compare("compare_table_leg_world_model")["simdist"]["success_mean"]  # the `cpu` model
    # the shipped model, recorded as runs/q_sensor_noise (seed 0) and, once copied, checkpoints/quadruped-cpu
    foam_sim = jsonl_mean(
        "quadruped_sensor_noise",
        task="foam",
        domain="sim",
        physics_file=None,
        checkpoint={"runs/q_sensor_noise", "checkpoints/quadruped-cpu"},
    )
    slope_sim = jsonl_mean("slope_sim_eval_3seeds", domain="sim", checkpoint="runs/q_v2_nohist")
    foam_teacher = jsonl_mean("foam_expert_real_seeds")  # 6 eval seeds x 5 trials x 3 speeds
    slope_teacher = jsonl_mean("slope_expert_real_seeds", physics=None)
    slope19_teacher = jsonl_mean("slope_expert_real_seeds", physics="benchmarks/physics/slope_real_mu0.19.json")
    table_leg_teacher = jsonl_mean("table_leg_perceiving_expert", key="success", view="perceived", domain="real")
    return [
        (
            "Pendulum\n(3 seeds)",
            jsonl_mean("planner_search_sim", key="success", model="pendulum demo model", mppi=CURRENT_PLANNER),
            pend[0],
            pend[-1],
            best_baseline("compare_pendulum_indep_3seeds", exclude=("simdist", "simdist_bc")),
            None,
        ),
        (
            "Point mass,\nexample task\n(2 seeds)",  # a task from outside the package
            json.loads((RESULTS / "point_mass_run_summary.json").read_text())["sim_success"]["default"],
            *(compare("compare_point_mass_2seeds")["simdist"]["success_mean"][i] for i in (0, -1)),
            best_baseline("compare_point_mass_2seeds", exclude=("simdist", "simdist_bc")),
            None,
        ),
        (
            "Peg Insertion,\nNarrow (2 seeds;\nmean of rounds 1–4)",  # the shipped carry-frame model
            jsonl_mean("peg_resets_ab", model="J", step=27000, agent="manipulation-prior", grid="narrow", domain="sim"),
            *adapted_rounds_mean("adapt_peg_carry_narrow_s[01].json"),
            peg_baseline(),
            perceiving_teacher("narrow"),
        ),
        (
            "Table Leg, cpu\nmodel (1 seed; every\nmethod 0.00)",
            None,
            table_leg[0],
            table_leg[-1],
            best_baseline("compare_table_leg_world_model", "compare_table_leg_offline", "compare_table_leg_rl"),
            table_leg_teacher,
        ),
        (
            "Foam\n(3 seeds)",
            foam_sim,
            foam[0],
            foam[-1],  # BC, and BC after a DAgger round
            max(
                best_baseline("compare_foam_shipped_indep_seeds"),
                jsonl_mean("foam_bc_dagger", domain="real", model={f"dagger_bc_foam_s{s}" for s in range(3)}),
            ),
            foam_teacher,
        ),
        (
            "Foam, sensor\nnoise off\n(3 seeds, λ = 10)",
            foam_sim,
            *adapt_mean("adapt_foam_nonoise_l10_s*.json"),
            None,
            foam_teacher,
        ),
        (
            "Foam, foam-\ndagger model\n(3 seeds, λ = 10)",  # height offset + own DAgger round
            dagger_sim("foam_bc_dagger", "dagger_offset_foam_s0"),
            *adapt_mean("adapt_foam_offset_dagger_l10_s*.json"),
            jsonl_mean("foam_bc_dagger", domain="real", model={f"dagger_bc_foam_s{s}_build23" for s in range(2)}),
            foam_teacher,
        ),
        (
            "Slippery Slope\n(3 seeds)",
            slope_sim,
            slope[0],
            slope[-1],
            best_baseline("compare_slope_mu015_simdist_bc_3seeds", "compare_slope_mu015_rl_3seeds"),
            slope_teacher,
        ),
        (
            "Slippery Slope\nμ = 0.19, history\nhead (5 seeds)",
            None,
            *adapt_mean("adapt_phist_mu019_s[0-4]_r16.json"),
            best_baseline("compare_slope_mu019_lowfric_3seeds"),
            slope19_teacher,
        ),
        (
            "Slippery Slope\nμ = 0.19, dagger\nhead (3 seeds)",  # the shipped head
            jsonl_mean("slope_dagger_cli", model="dagger_cli_slope_exec_s2", physics="slope_sim_panel_mu0.19_noise"),
            *adapt_mean("adapt_dagger2_mu019_s[0-2]_r12.json"),  # against BC given the same DAgger recipe
            jsonl_mean("slope_bc_dagger", domain="real", model={f"dagger_bc_slope_s{s}" for s in range(3)}),
            slope19_teacher,
        ),
    ]


def main() -> None:
    data = rows()
    x = np.arange(len(data))
    fig, ax = plt.subplots(figsize=(16, 5.0))
    w = 0.26
    ax.bar(x - w, [r[2] for r in data], w, label="SimDist, real zero shot", color="#9ecae1")
    ax.bar(x, [r[3] for r in data], w, label="SimDist, real after adaptation", color="#08519c")
    ax.bar(x + w, [np.nan if r[4] is None else r[4] for r in data], w, label="best baseline, real", color="#fd8d3c")
    sims = [(i, r[1]) for i, r in enumerate(data) if r[1] is not None]
    ax.scatter(
        [i for i, _ in sims],
        [s for _, s in sims],
        marker="_",
        s=900,
        color="black",
        zorder=3,
        label="SimDist, sim (pretrained)",
    )
    teachers = [(i, r[5]) for i, r in enumerate(data) if r[5] is not None]
    ax.scatter(
        [i for i, _ in teachers],
        [t for _, t in teachers],
        marker="x",
        s=70,
        color="#cb181d",
        zorder=4,
        label="privileged teacher, real (Peg, Table Leg: on the robot's observations)",
    )
    ax.set_xticks(x, [r[0] for r in data], fontsize=8)
    ax.set_ylabel("success rate")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=5)  # below: sim marks reach 1.0
    ax.set_title(
        "SimDist at CPU scale: where adaptation pays (pendulum, point mass) and where it has nothing left to fix"
    )
    fig.tight_layout()
    fig.savefig(OUT, dpi=110)
    for r in data:
        print(" | ".join([r[0].replace("\n", " ")] + ["–" if v is None else f"{v:.2f}" for v in r[1:]]))


if __name__ == "__main__":
    main()
