"""Reports over several runs: `simdist compare`'s table, verdict and Fig. 4-style plot, and `simdist ablate`'s
Table I plot (one run's report is simdist.eval.report)."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from simdist.eval.report import TABLE_ONE_METRICS  # noqa: E402
from simdist.rollout import wilson_interval  # noqa: E402


def _ci95(std: float, n: int) -> float:
    """Normal-approximation 95 % CI half-width of a mean over n seeds from their (population) std, as
    `simdist compare` records it (0 for one seed)."""
    return 1.96 * float(std) / max(1, n) ** 0.5


# SimDist's own variants, not baselines (the 2x claim is over BC, IQL, RLPD, SGFT, Diffusion Policy)
SIMDIST_VARIANTS = ("simdist", "simdist_bc")


def comparison_verdict(summary: dict[str, dict]) -> str:
    """SimDist against the best baseline at the final budget, read off the numbers: the ratio and the paper's
    target (at least 2× the best baseline), beyond chance only when the pooled final trials' 95 % intervals do not
    overlap."""
    others = {m: s for m, s in summary.items() if m not in SIMDIST_VARIANTS}
    if "simdist" not in summary or not others:
        return ""
    best = max(others, key=lambda m: others[m]["final_success_mean"])
    x, y = summary["simdist"]["final_success_mean"], others[best]["final_success_mean"]
    variant = (
        f" (SimDist+BC {summary['simdist_bc']['final_success_mean']:.2f}, a variant of it, not a baseline)"
        if "simdist_bc" in summary
        else ""
    )
    text = f"SimDist's final success {x:.2f}{variant} against the best baseline's ({best}) {y:.2f}"
    text += f": {x / y:.1f}×" if y > 0 else ""
    bands = [
        wilson_interval(s["successes"][-1], s["trials"][-1])
        for s in (summary["simdist"], others[best])
        if s.get("trials")
    ]
    apart = len(bands) == 2 and (bands[0][0] > bands[1][1] or bands[0][1] < bands[1][0])
    # against a best baseline of 0, "twice" is any success at all: it must then be beyond chance
    met = x > 0 and x >= 2 * y and (y > 0 or apart)
    text += f"; the paper's target (≥ 2× the best baseline) is {'met' if met else 'not met'}"
    if len(bands) == 2:
        text += (
            ", and the gap is beyond chance (the pooled final trials' 95 % intervals do not overlap)"
            if apart
            else ", and the gap is within chance (the pooled final trials' 95 % intervals overlap)"
        )
    return text + "."


def write_comparison(out: str | Path, summary: dict[str, dict]) -> Path:
    """Fig. 4-style comparison: success vs real robot minutes per method, mean ± 95 % CI over seeds, plus a
    markdown table (`comparison.md`, `comparison.png`)."""
    out = Path(out)
    fig, ax = plt.subplots(figsize=(5.5, 3.5))
    lines = [
        "| method | seeds | success at each evaluation point (mean ± 95 % CI over seeds) | every trial pooled: "
        "successes / trials (95 % Wilson interval) | real minutes | final | mean progress at each point (legged "
        "tasks) |",
        "|---|---|---|---|---|---|---|",
    ]
    for method, s in summary.items():
        n = max(1, len(s["seeds"]))
        mean = s["success_mean"]
        ci = [_ci95(sd, n) for sd in s["success_std"]]
        minutes = s["real_minutes"]
        (line,) = ax.plot(minutes, mean, marker="o", label=method)
        if len(mean) == 1:  # a policy deployed once (BC, Diffusion Policy): the paper's horizontal line
            ax.axhline(mean[0], color=line.get_color(), linestyle="--", alpha=0.7)
        ax.fill_between(
            minutes, [max(0.0, m - c) for m, c in zip(mean, ci)], [min(1.0, m + c) for m, c in zip(mean, ci)], alpha=0.2
        )
        points = ", ".join(f"{m:.2f} ± {c:.2f}" for m, c in zip(mean, ci))
        progress = ", ".join(f"{x:.2f} m" for x in s.get("progress_mean", []))
        pooled = []
        for k, t in zip(s.get("successes", []), s.get("trials", [])):
            low, high = wilson_interval(k, t)
            pooled.append(f"{k:g} / {t} ({low:.2f}–{high:.2f})")
        pooled = ", ".join(pooled)
        lines.append(
            f"| {method} | {n} | {points} | {pooled} | {', '.join(f'{x:.1f}' for x in minutes)} | "
            f"{s['final_success_mean']:.2f} | {progress} |"
        )
    ax.set_xlabel("real robot minutes")
    ax.set_ylabel("success rate")
    ax.set_ylim(-0.05, 1.05)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "comparison.png", dpi=120)
    plt.close(fig)
    verdict = comparison_verdict(summary)
    lines += ["", verdict] if verdict else []
    (out / "comparison.md").write_text("\n".join(lines) + "\n\n![comparison](comparison.png)\n")
    return out / "comparison.md"


def _mean_ci(per_seed: dict[str, list[float]]) -> tuple[list[float], list[float]]:
    """Mean and 95 % CI half-width per point over seeds, as the comparison plot computes them."""
    rows = np.asarray(list(per_seed.values()), dtype=float)
    return rows.mean(0).tolist(), [_ci95(sd, len(rows)) for sd in rows.std(0)]


def write_ablation_plot(out: str | Path, summary: dict) -> str | None:
    """`ablations.png`: Table I variants' `sim` success as bars, and the Fig. 10 variants' `real` success (and
    forward progress, where the task reports it) per adaptation round, mean ± 95 % CI over seeds."""
    table, finetune = summary.get("ablations") or {}, (summary.get("finetune_ablations") or {}).get("variants", {})
    with_progress = any("progress_per_round" in r for r in finetune.values())
    # Table I bars: success, and the quadruped's progress and episode return (the paper's metric there)
    bars = [(k, label) for k, label in TABLE_ONE_METRICS if table and all(k in r for r in table.values())]
    panels = len(bars) + (1 + with_progress) * bool(finetune)
    if not panels:
        return None
    fig, axes = plt.subplots(1, panels, figsize=(4.5 * panels, 3.4), squeeze=False)
    axes = list(axes[0])
    for key, label in bars:
        ax = axes.pop(0)
        ax.bar(range(len(table)), [r[key] for r in table.values()])
        ax.set_xticks(range(len(table)), list(table), rotation=30, ha="right", fontsize=8)
        ax.set_ylabel(f"sim {label} (Table I)")
        if key == "success_rate":
            ax.set_ylim(0.0, 1.05)
    for key, label in (("success_per_round", "real success"), ("progress_per_round", "real progress (m)")):
        if not finetune or (key == "progress_per_round" and not with_progress):
            continue
        ax = axes.pop(0)
        for name, r in finetune.items():
            if key in r:
                mean, ci = _mean_ci(r[key])
                rounds = range(len(mean))
                ax.plot(rounds, mean, marker="o", label=f"{name} ({len(r[key])} seeds)")
                low, high = [m - c for m, c in zip(mean, ci)], [m + c for m, c in zip(mean, ci)]
                if key == "success_per_round":  # a rate: the band stays inside [0, 1]
                    low, high = [max(0.0, x) for x in low], [min(1.0, x) for x in high]
                ax.fill_between(rounds, low, high, alpha=0.2)
        ax.set_xlabel("adaptation round (0 = zero shot)")
        ax.set_ylabel(f"{label} (Fig. 10)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    name = "ablations.png"
    fig.savefig(Path(out) / name, dpi=120)
    plt.close(fig)
    return name
