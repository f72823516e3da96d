"""Results at a glance: `report.md`, `report.html` and PNG plots: success vs real minutes (Fig. 4), latent
prediction error per horizon step before/after finetuning (Fig. 8a), outcomes over initial conditions (Fig. 7),
and, where rendering works, a short rollout video (GIF) per evaluation stage (see simdist.eval.video)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from simdist.adaptation.rounds import round_progress  # noqa: E402
from simdist.eval.html import markdown_to_html  # noqa: E402
from simdist.rollout import wilson_interval  # noqa: E402

# Table I metrics (`sim`): success, and where reported progress and the dense return (the paper's quadruped metric)
TABLE_ONE_METRICS = (
    ("success_rate", "success"),
    ("mean_progress_m", "progress (m)"),
    ("mean_return", "episode return"),
)


def _grid_cell(grid: str, m: dict) -> str:
    progress = f" / {m['progress_m']:.2f} m" if "progress_m" in m else ""
    return f"{grid}: {m.get('success', 0.0):.2f}{progress}"


def _learning_curve(out: Path, results: dict) -> str:
    """Success (and, for tasks that report it, forward progress: the quadruped's metric) vs real minutes."""
    with_progress = any(round_progress(r) is not None for res in results.values() for r in res["rounds"])
    fig, axes = plt.subplots(1, 2 if with_progress else 1, figsize=(9 if with_progress else 5, 3.2), squeeze=False)
    for grid, res in results.items():
        before = minutes_before(res["rounds"])  # the table's "real minutes finetuned on"
        rates = [r["success_rate"] for r in res["rounds"]]
        bands = [_round_interval(r) or (rate, rate) for r, rate in zip(res["rounds"], rates)]
        errors = [
            [max(0.0, rate - lo) for rate, (lo, _) in zip(rates, bands)],
            [max(0.0, hi - rate) for rate, (_, hi) in zip(rates, bands)],
        ]
        axes[0][0].errorbar(before, rates, yerr=errors, marker="o", capsize=3, label=f"{grid} (95 % interval)")
        if with_progress:
            axes[0][1].plot(before, [round_progress(r) or 0.0 for r in res["rounds"]], marker="o", label=grid)
    axes[0][0].set_ylabel("success rate")
    axes[0][0].set_ylim(-0.05, 1.05)
    if with_progress:
        axes[0][1].set_ylabel("mean forward progress (m)")
        axes[0][1].set_ylim(bottom=0.0)
    for ax in axes[0]:
        ax.set_xlabel("real robot minutes used for finetuning")
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
    ax.set(xlabel="horizon step k", ylabel="latent prediction error, held-out real")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    name = "latent_error.png"
    fig.savefig(out / name, dpi=120)
    plt.close(fig)
    return name


def minutes_before(rounds: list[dict]) -> list[float]:
    """Real minutes each round's model was finetuned on: those recorded before the round (not its own rollouts)."""
    return [0.0] + [r["real_minutes"] for r in rounds[:-1]]


def _leaf_names(value, prefix: str = "") -> list[str]:
    """Names of `_flatten(value)`'s numbers: dict keys, list indices."""
    if isinstance(value, (dict, list)):
        keyed = value.items() if isinstance(value, dict) else ((f"[{i}]", v) for i, v in enumerate(value))
        return [n for k, v in keyed for n in _leaf_names(v, prefix + ("." if prefix and k[0] != "[" else "") + k)]
    return [prefix or "value"] if isinstance(value, (int, float)) else []


def _flatten(value) -> list[float]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _flatten(v)]
    if isinstance(value, list):
        return [x for v in value for x in _flatten(v)]
    return [float(value)] if isinstance(value, (int, float)) else []


def _outcome_scatter(out: Path, results: dict) -> str | None:
    """Fig. 7: successes and failures over the initial conditions (their first two coordinates),
    zero shot vs after the last round."""
    grids = [(g, res) for g, res in results.items() if len(res["rounds"]) > 1]
    if not grids:
        return None
    fig, axes = plt.subplots(len(grids), 2, figsize=(7, 3.2 * len(grids)), squeeze=False)
    for row, (grid, res) in enumerate(grids):
        for col, r in enumerate((res["rounds"][0], res["rounds"][-1])):
            ax = axes[row][col]
            pts = [(_flatten(ic) + [0.0, 0.0])[:2] for ic in r["initial_conditions"]]
            for ok, colour, label in ((True, "tab:green", "success"), (False, "tab:red", "failure")):
                sel = [p for p, s in zip(pts, r["successes"]) if s == ok]
                if sel:
                    ax.scatter(*zip(*sel), c=colour, label=label, s=25)
            ax.set_title(f"{grid}: round {r['round']} ({r['success_rate']:.2f})", fontsize=9)
            names = (_leaf_names(r["initial_conditions"][0]) + ["(none)", "(none)"])[:2]
            ax.set(xlabel=f"initial condition {names[0]}", ylabel=f"initial condition {names[1]}")
            ax.grid(alpha=0.3)
        axes[row][0].legend(fontsize=8)
    fig.tight_layout()
    name = "outcomes.png"
    fig.savefig(out / name, dpi=110)
    plt.close(fig)
    return name


def _video_outcome(v: dict) -> str:
    if v.get("episode_success") is None:
        return f"the clip ends before the episode ({v.get('robot_seconds', 0.0):.1f} s filmed)"
    return f"episode {'succeeded' if v['episode_success'] else 'failed'} ({v.get('robot_seconds', 0.0):.1f} s)"


def _video_lines(videos: list[dict] | None, seconds: float | None) -> list[str]:
    lines = ["## Rollout videos", ""]
    if videos is None:
        return lines + ["Not recorded (`--no-video`).", ""]
    limit = f"at most {seconds:g} s" if seconds else "a short part"
    lines += [
        f"One extra episode per evaluation stage from the grid's first evaluation initial condition, filmed "
        f"for {limit} of robot time; it is not part of any dataset or success rate.",
        "",
        "| stage | video | outcome |",
        "|---|---|---|",
    ]
    for v in videos:
        if v.get("path"):
            lines.append(f"| {v['label']} | ![{v['label']}]({v['path']}) | {_video_outcome(v)} |")
        else:
            lines.append(f"| {v['label']} | video unavailable: {v.get('error') or 'unknown reason'} | |")
    return lines + [""]


def _latent_error_cell(r: dict) -> str:
    if "latent_error_finetuned" not in r:
        return ""
    pre, ft = r["latent_error_pretrained"], r["latent_error_finetuned"]
    return f"{sum(pre) / len(pre):.3f} → {sum(ft) / len(ft):.3f}"


def _round_interval(row: dict) -> tuple[float, float] | None:
    """95 % Wilson interval of a round's success rate from its per-episode outcomes (None: not recorded)."""
    successes = row.get("successes")
    return wilson_interval(sum(map(bool, successes)), len(successes)) if successes else None


def _interval(row: dict) -> str:
    band = _round_interval(row)
    if band is None:
        return ""
    (low, high), n = band, len(row["successes"])
    return f"{low:.2f}–{high:.2f} ({n} trial{'' if n == 1 else 's'})"


# Columns of the per-round table; a column no round fills (progress on the pendulum, say) is left out.
ROUND_COLUMNS = (
    ("round", lambda r: str(r["round"])),
    ("real minutes finetuned on (the plot's x)", lambda r: f"{r['minutes_before']:.1f}"),
    ("real minutes after the round", lambda r: f"{r['real_minutes']:.1f}"),
    ("success", lambda r: f"{r['success_rate']:.2f}"),
    ("95 % interval", _interval),
    ("progress", lambda r: "" if round_progress(r) is None else f"{round_progress(r):.2f} m"),
    ("successes per robot minute", lambda r: f"{r['successes_per_minute']:.2f}" if "successes_per_minute" in r else ""),
    ("held-out latent error, mean over k=1..T (pretrained → finetuned)", _latent_error_cell),
    (
        "per grid: success / progress",
        lambda r: ", ".join(_grid_cell(g, m) for g, m in r.get("metrics_by_grid", {}).items()),
    ),
)


def _rounds_table(rounds: list[dict]) -> list[str]:
    rounds = [{**r, "minutes_before": m} for r, m in zip(rounds, minutes_before(rounds))]
    cells = [[fn(r) for _, fn in ROUND_COLUMNS] for r in rounds]
    keep = [c for c in range(len(ROUND_COLUMNS)) if c < 4 or any(row[c] for row in cells)]
    lines = ["| " + " | ".join(ROUND_COLUMNS[c][0] for c in keep) + " |", "|" + "---|" * len(keep)]
    return lines + ["| " + " | ".join(row[c] for c in keep) + " |" for row in cells]


READING_NOTE = (
    "Each round's success is over that round's real episodes; the 95 % interval beside it (Wilson) says "
    "how far chance alone moves it, so read rounds whose intervals overlap as level. What adaptation "
    "changes is the dynamics: the held-out latent error is its prediction error on real episodes it was "
    "not finetuned on, before and after (Fig. 8a)."
)


def _dataset_line(stats: dict) -> str:
    parts = {
        "episodes": lambda v: f"{v:,} episodes",
        "steps": lambda v: f"{v:,} steps",
        "expert_action_share": lambda v: f"expert-action share {v:.2f}",
        "success_rate": lambda v: f"success {v:.2f}",
    }
    return ", ".join(fmt(stats[k]) for k, fmt in parts.items() if k in stats)


def _mean(values) -> float:
    values = _flatten(values)
    return sum(values) / len(values)


def adaptation_verdict(rounds: list[dict]) -> str:
    """What adaptation did on one grid, read off the numbers: zero shot against the last round (beyond chance only
    when their 95 % intervals do not overlap), the paper's target (at least 2× the zero shot, or 0.8), and how much
    better the last finetuned dynamics predict held-out real episodes."""
    if len(rounds) < 2:
        return ""
    first, last = rounds[0], rounds[-1]
    s0, s1 = first["success_rate"], last["success_rate"]
    text = f"Zero shot → round {last['round']}: {s0:.2f} → {s1:.2f}"
    b0, b1 = _round_interval(first), _round_interval(last)
    beyond = bool(b0 and b1 and (b1[0] > b0[1] or b1[1] < b0[0]))
    if b0 and b1:
        text += (
            f", a {'gain' if s1 > s0 else 'loss'} beyond chance (the 95 % intervals do not overlap)"
            if beyond
            else ", within chance (the 95 % intervals overlap)"
        )
    # from a zero shot of 0, "twice the zero shot" is any success at all: it must then be beyond chance
    met = s1 >= 0.8 or (s1 > s0 and s1 >= 2 * s0 and (s0 > 0 or beyond))
    text += f"; the paper's target (≥ 2× zero shot or ≥ 0.8) is {'met' if met else 'not met'}."
    finetuned = [r for r in rounds if "latent_error_finetuned" in r]
    if finetuned:
        r = finetuned[-1]
        pre, ft = _mean(r["latent_error_pretrained"]), _mean(r["latent_error_finetuned"])
        change = f"latent error {pre:.3g} → {ft:.3g}"
        if 0 < ft <= pre:
            text += (
                f" Round {r['round']}'s finetuned dynamics cut the prediction error on its held-out real "
                f"episodes {pre / ft:.1f}× ({change})."
            )
        elif ft > pre:
            text += (
                f" Round {r['round']}'s finetuned dynamics predict its held-out real episodes worse than the "
                f"pretrained ones ({change})."
            )
    return text


def write_report(
    out: str | Path, summary: dict, results: dict, videos: list[dict] | None = None, video_seconds: float | None = None
) -> Path:
    """``videos``: ``simdist.eval.video.VideoResult`` fields as dicts, one per evaluation stage (None: videos
    were turned off); ``video_seconds``: the filmed length limit."""
    out = Path(out)
    curve = _learning_curve(out, results)
    latent = _latent_error(out, results)
    scatter = _outcome_scatter(out, results)
    lines = [
        f"# SimDist run: {summary['task']} ({summary['preset']} preset)",
        "",
        f"- zero-shot success in real: **{summary['zero_shot_success']:.2f}**",
        f"- final success in real: **{summary['final_success']:.2f}**",
        f"- real data used: **{summary['real_minutes']:.1f} robot minutes**",
        "- success in sim (pretrained model, same planner): "
        + ", ".join(f"{g} {v:.2f}" for g, v in summary["sim_success"].items()),
        f"- simulation dataset: {_dataset_line(summary['sim_dataset'])}",
    ]
    chosen = summary.get("checkpoint_selection")
    if chosen:  # `simdist run --select-checkpoints N`
        lines.append(
            f"- deployed checkpoint `{chosen['best']}`, chosen by its BC head's sim success "
            f"{chosen['best_success']:.2f} (candidates {chosen['success_min']:.2f}–"
            f"{chosen['success_max']:.2f})"
        )
    lines += ["", READING_NOTE, ""]
    for grid, res in results.items():
        lines += [f"## Grid `{grid}`", "", *_rounds_table(res["rounds"]), ""]
        verdict = adaptation_verdict(res["rounds"])
        if verdict:
            lines += [verdict, ""]
    lines += [f"![learning curve]({curve})", ""]
    if latent:
        lines += [f"![latent error]({latent})", ""]
    if scatter:
        lines += [f"![outcomes over initial conditions]({scatter})", ""]
    lines += _video_lines(videos, video_seconds)
    md = "\n".join(lines)
    (out / "report.md").write_text(md)
    (out / "report.html").write_text(markdown_to_html(md, f"SimDist run: {summary['task']}"))
    return out / "report.md"
