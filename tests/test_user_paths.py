"""What a new user meets first: help that shows defaults, synopses that run as written, clips that end on their
outcome, report axes that say what they show, and reruns that say what they reuse."""

import argparse
import logging
from pathlib import Path

from simdist.cli.main import build_parser
from simdist.eval.report import _leaf_names, minutes_before
from simdist.experiments.pipeline import DEMO, DEMO_TASK
from simdist.tasks import get_task

ROOT = Path(__file__).resolve().parents[1]


def _subparser(name: str) -> argparse.ArgumentParser:
    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices[name]


def test_adapt_help_explains_every_option_and_shows_its_default():
    text = _subparser("adapt").format_help()
    for option in ("--rounds", "--episodes-per-round", "--seed", "--preset"):
        assert f"{option}" in text
    assert "(default: 2)" in text and "(default: 20)" in text and "(default: cpu)" in text
    for action in _subparser("adapt")._actions:
        assert action.help, action.option_strings  # every option says what it is


def test_the_adapt_synopsis_gives_the_simulation_data_the_default_settings_need():
    synopsis = [line for line in (ROOT / "docs" / "cli.md").read_text().splitlines() if "| `simdist adapt" in line]
    assert synopsis and "--sim-data" in synopsis[0].split("|")[1]


def test_the_demo_films_whole_episodes_so_each_clip_shows_its_outcome():
    spec = get_task(DEMO_TASK).spec
    assert DEMO.video_seconds >= spec.episode_steps * spec.control_period_s


def test_report_axes_name_the_initial_condition_and_the_minutes_match_the_table():
    assert _leaf_names({"angle": 0.5, "peg": [0.1, 0.2]}) == ["angle", "peg[0]", "peg[1]"]
    assert _leaf_names([0.3, -0.1]) == ["[0]", "[1]"]
    rounds = [{"real_minutes": 1.5}, {"real_minutes": 3.0}, {"real_minutes": 4.5}]
    assert minutes_before(rounds) == [0.0, 1.5, 3.0]


def test_a_rerun_of_adapt_says_what_it_keeps(tmp_path, pretrained, pendulum_data, caplog):
    from simdist.cli import main

    argv = [
        "adapt",
        "pendulum",
        "--checkpoint",
        str(pretrained),
        "--rounds",
        "0",
        "--episodes-per-round",
        "1",
        "--out",
        str(tmp_path / "a"),
        "--sim-data",
        str(pendulum_data),
        "--quiet",
        "--set",
        "mppi.samples=8",
        "--set",
        "mppi.policy_samples=2",
        "--set",
        "mppi.elites=2",
        "--set",
        "mppi.iterations=1",
    ]
    assert main(argv) == 0
    with caplog.at_level(logging.INFO):
        assert main(argv) == 0
    assert "1 real episode file(s) and 0 finished finetune(s) on disk are kept" in caplog.text


def test_a_run_interrupted_while_generating_generates_again(tmp_path, monkeypatch, caplog):
    """Generation does not resume, and the partial dataset once made every rerun of `demo` fail on its files."""
    from simdist.experiments import pipeline

    partial = tmp_path / "sim_data" / "episodes"
    partial.mkdir(parents=True)
    (partial / "s0_w0_00000.h5").write_text("written before the interrupt")
    seen = []

    def generate(task, out, *args, **kwargs):
        seen.append(Path(out).exists())
        raise KeyboardInterrupt  # stop the pipeline here

    monkeypatch.setattr(pipeline, "generate", generate)
    with caplog.at_level(logging.INFO):
        try:
            pipeline.run_pipeline("pendulum", "cpu", tmp_path, progress=False, video=False)
        except KeyboardInterrupt:
            pass
    assert seen == [False] and "an interrupted generation; generating it again" in caplog.text


def test_every_commands_help_renders():
    """Every command's --help renders and names each of its options."""
    seen = []

    def walk(parser):
        text = parser.format_help()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    assert name in text, f"{parser.prog}: --help does not list {name}"
                    walk(sub)
            for flag in action.option_strings:
                assert flag in text, f"{parser.prog}: --help does not show {flag}"
        seen.append(parser.prog)

    walk(build_parser())
    assert {"simdist run", "simdist adapt", "simdist compare", "simdist dagger", "simdist expert eval"} <= set(seen)
