"""Peg Insertion (session 43): the head's success at every kept checkpoint of benchmarks/peg_tail_pretrain.sh's
continuations, as a figure and a summary, from the committed record (none typed in).

Writes docs/img/peg_checkpoint_swing.png (success vs step, `sim` and `real`, one line per continuation; the
shipped model's head on the same 40 trials at step 0; the seed-0 line without tail windows also has the
checkpoints every 100 steps of the run stopped at 500, which shares its schedule and seed) and prints, over the
runs without an EMA: the spread of success across checkpoints against the spread 40 trials alone would give, the
`sim`/`real` correlation across checkpoints, and what choosing each run's checkpoint by `sim` success gives in
`real`.

    python benchmarks/peg_checkpoint_swing.py
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

HERE = Path(__file__).resolve().parent
RECORD = HERE / "results" / "peg_tail_pretrain.jsonl"
OUT = HERE.parent / "docs" / "img" / "peg_checkpoint_swing.png"
SHIPPED_RECORD = HERE / "results" / "peg_head_dither.jsonl"  # its undithered rows: the shipped head, same trials


def shipped_head() -> dict[str, float]:
    """The shipped model's head alone on the same 40 Narrow trials (seed 1), session 37's undithered rows."""
    rows = [json.loads(line) for line in SHIPPED_RECORD.read_text().splitlines()]
    return {r["domain"]: r["success"] for r in rows if r["checkpoint"] == "checkpoints/peg-insertion"
            and r["std"] == 0.0 and r["grid"] == "narrow" and r["seed"] == 1 and r["trials"] == 40}


def runs() -> dict[tuple, dict[str, dict[int, float]]]:
    """(tail_windows, train_seed, ema_decay) -> domain -> step -> success, the head alone on Narrow, under the
    preset's learning-rate schedule (the `LR=` runs are left out)."""
    out: dict[tuple, dict[str, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    for line in RECORD.read_text().splitlines():
        row = json.loads(line)
        if row["agent"] == "policy" and row["grid"] == "narrow" and row.get("lr", "preset") == "preset":
            key = (row["tail_windows"], row["train_seed"], row.get("ema_decay", 0))
            out[key][row["domain"]][row["steps"]] = row["success"]
    return out


def summary(data: dict) -> dict:
    """Over the runs without an EMA, at their 1,000-step checkpoints (the STOP=500 run's finer ones left out)."""
    raw = {k: {d: {s: x for s, x in by_step.items() if s % 1000 == 0} for d, by_step in v.items()}
           for k, v in data.items() if not k[2]}
    sims, reals, chosen, means = [], [], [], []
    for per_domain in raw.values():
        steps = sorted(set(per_domain["sim"]) & set(per_domain["real"]))  # a run still being evaluated: its pairs
        sim = np.array([per_domain["sim"][s] for s in steps])
        real = np.array([per_domain["real"][s] for s in steps])
        sims += list(sim)
        reals += list(real)
        chosen.append(float(real[max(range(len(sim)), key=lambda i: (sim[i], i))]))  # ties: the latest
        means.append(real.mean())
    sims, reals = np.array(sims), np.array(reals)
    binomial = lambda p: float(np.sqrt(p * (1 - p) / 40))  # noqa: E731
    return {"checkpoints": len(sims), "sim_mean": sims.mean(), "sim_sd": sims.std(ddof=1),
            "sim_sd_40_trials_alone": binomial(sims.mean()), "real_mean": reals.mean(), "real_sd": reals.std(ddof=1),
            "real_sd_40_trials_alone": binomial(reals.mean()),
            "sim_real_correlation": float(np.corrcoef(sims, reals)[0, 1]),
            "real_of_each_runs_sim_best": chosen, "real_mean_of_each_run": [float(m) for m in means]}


def plot(data: dict, shipped: dict[str, float]) -> None:
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
    for ax, domain in zip(axes, ("sim", "real")):
        for (tail, seed, ema), per_domain in sorted(data.items()):
            steps = sorted(per_domain[domain])
            label = f"{'tail windows' if tail else 'no tail'}, seed {seed}" + (f", EMA {ema}" if ema else "")
            ax.plot([0] + steps, [shipped[domain]] + [per_domain[domain][s] for s in steps], marker="o",
                    linestyle="--" if ema else "-", color=f"C{2 * tail + seed}", alpha=0.6 if ema else 1.0,
                    label=label)
        ax.set_title(f"`{domain}`: head alone, 40 Narrow trials (seed 1)")
        ax.set_xlabel("continuation step (0: the shipped model)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("success")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT, dpi=110)


def main() -> None:
    data = runs()
    shipped = shipped_head()
    plot(data, shipped)
    print(json.dumps({"shipped_head": shipped, **summary(data)}, indent=1, default=float))
    print(f"figure: {OUT.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
