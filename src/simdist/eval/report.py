"""Results at a glance: `report.md`, `report.html` and PNG plots (success vs real minutes, Fig. 8a-style
latent prediction error per horizon step before/after finetuning)."""

from __future__ import annotations

import html
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def _learning_curve(out: Path, results: dict) -> str:
    fig, ax = plt.subplots(figsize=(5, 3.2))
    for grid, res in results.items():
        xs = [r["real_minutes"] for r in res["rounds"]]
        ys = [r["success_rate"] for r in res["rounds"]]
        # x = real minutes *before* each evaluation (the rollouts of round j are counted after it)
        before = [0.0] + xs[:-1]
        ax.plot(before, ys, marker="o", label=grid)
    ax.set_xlabel("real robot minutes used for finetuning")
    ax.set_ylabel("success rate")
    ax.set_ylim(-0.05, 1.05)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    name = "learning_curve.png"
    fig.savefig(out / name, dpi=120)
    plt.close(fig)
    return name


def _latent_error(out: Path, results: dict) -> str | None:
    rows = [(g, r) for g, res in results.items() for r in res["rounds"] if "latent_error_finetuned" in r]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(5, 3.2))
    grid, last = rows[-1]
    steps = range(1, len(last["latent_error_pretrained"]) + 1)
    ax.plot(steps, last["latent_error_pretrained"], marker="o", label="pretrained (sim)")
    ax.plot(steps, last["latent_error_finetuned"], marker="o", label=f"finetuned (round {last['round']})")
    ax.set_xlabel("horizon step k")
    ax.set_ylabel("latent prediction error, held-out real")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    name = "latent_error.png"
    fig.savefig(out / name, dpi=120)
    plt.close(fig)
    return name


def write_report(out: str | Path, summary: dict, results: dict) -> Path:
    out = Path(out)
    curve = _learning_curve(out, results)
    latent = _latent_error(out, results)
    lines = [f"# SimDist run: {summary['task']} ({summary['preset']} preset)", "",
             f"- zero-shot success in real: **{summary['zero_shot_success']:.2f}**",
             f"- final success in real: **{summary['final_success']:.2f}**",
             f"- real data used: **{summary['real_minutes']:.1f} robot minutes**",
             f"- success in sim (pretrained model): {summary['sim_success']}",
             f"- simulation dataset: {summary['sim_dataset']}", ""]
    for grid, res in results.items():
        lines += [f"## Grid `{grid}`", "",
                  "| round | real minutes so far | success | held-out latent error, mean over k=1..T (pretrained → finetuned) |",
                  "|---|---|---|---|"]
        for r in res["rounds"]:
            err = ""
            if "latent_error_finetuned" in r:
                pre, ft = r["latent_error_pretrained"], r["latent_error_finetuned"]
                err = f"{sum(pre) / len(pre):.3f} → {sum(ft) / len(ft):.3f}"
            lines.append(f"| {r['round']} | {r['real_minutes']:.1f} | {r['success_rate']:.2f} | {err} |")
        lines.append("")
    lines += [f"![learning curve]({curve})", ""]
    if latent:
        lines += [f"![latent error]({latent})", ""]
    md = "\n".join(lines)
    (out / "report.md").write_text(md)
    body = "".join(f"<pre>{html.escape(md)}</pre>")
    imgs = "".join(f'<img src="{n}" style="max-width:48%">' for n in (curve, latent) if n)
    (out / "report.html").write_text(f"<html><head><meta charset='utf-8'><title>SimDist report</title></head>"
                                     f"<body>{imgs}{body}</body></html>")
    return out / "report.md"
