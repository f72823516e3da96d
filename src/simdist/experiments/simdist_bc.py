"""SimDist+BC: SimDist's adaptation loop with the BC (policy) head also finetuned on demonstrations.

Identical to `simdist.adaptation.adapt` except that each finetune trains the dynamics *and* the policy head, with the
BC term on the teleoperated demonstrations added to the latent term. The demonstrations are written into
the run's real dataset before the loop starts, flagged as expert actions (no reward or value: the BC term needs
only the flags), and the planner's own rollouts stay unlabelled, so only demonstrations are cloned.
Demonstration minutes count as real-robot minutes in the results.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import numpy as np

from simdist.adaptation.adapt import AdaptConfig, adapt
from simdist.config import FinetuneConfig, with_bc_head
from simdist.data.episodes import DatasetInfo, Episode, create_dataset, episode_files, write_episodes
from simdist.planning.settings import MPPIConfig

log = logging.getLogger(__name__)
METHOD = "simdist_bc"
DEMO_FILE_PREFIX = "demo"  # not an adapt round prefix (r00_…), so adapt never mistakes demos for its rollouts


def as_labelled_demo(episode: Episode) -> Episode:
    return replace(episode, expert=np.ones(len(episode), bool), source_policy=episode.source_policy or "demonstration")


def run_simdist_bc(
    task,
    checkpoint: str | Path,
    out: str | Path,
    demos: list[Episode],
    cfg: AdaptConfig,
    mppi: MPPIConfig,
    ft: FinetuneConfig,
    progress: bool = False,
    sim_data: str | Path | None = None,
    physics=None,
) -> dict:
    """Alg. 1 with the policy head finetuned too. `sim_data` is needed when `ft` replays simulation windows
    (their expert actions then enter the BC term beside the demonstrations, keeping the head near its pretraining)."""
    out = Path(out)
    data_dir = out / "real_data"
    spec = task.spec
    create_dataset(data_dir, DatasetInfo.of_task(spec, "real", "SimDist+BC: demos + adapt rollouts"))
    written = {p.stem for p in episode_files(data_dir)}
    for i, demo in enumerate(demos):
        name = f"{DEMO_FILE_PREFIX}_{i:03d}"
        if name not in written:  # resumable like adapt: demonstrations are written once
            write_episodes(data_dir, [as_labelled_demo(demo)], name=name)
    if cfg.rounds == 0:
        log.warning("SimDist+BC with 0 rounds never finetunes: it equals SimDist zero-shot")
    result = adapt(
        task, checkpoint, out, cfg, mppi, with_bc_head(ft), physics=physics, progress=progress, sim_data=sim_data
    )
    result["method"] = METHOD
    return result
