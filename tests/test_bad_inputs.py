"""Every command refuses a bad input before it writes anything: exit 2, one error line naming the problem (and its
file), no traceback, and no --out folder created."""

import logging
import os
import subprocess
import sys

import pytest

from simdist.cli import main
from simdist.data.episodes import DatasetInfo, create_dataset
from simdist.tasks import get_task


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Bad input files: unparseable and wrong physics files, a plain file, another task's dataset."""
    root = tmp_path_factory.mktemp("bad_inputs")
    (root / "bad.yaml").write_text("mass: [1,\n")
    (root / "bad.json").write_text('{"mass": 1,,}')
    (root / "unknown.json").write_text('{"no_such_field": 1}')
    (root / "list.yaml").write_text("- 1\n- 2\n")
    (root / "file.txt").write_text("not a folder\n")
    spec = get_task("peg-insertion").spec
    create_dataset(
        root / "peg_data",
        DatasetInfo(
            task=spec.name,
            domain="sim",
            control_period_s=spec.control_period_s,
            obs_shapes=spec.obs_shapes,
            action_dim=spec.action_dim,
            command_dim=spec.command_dim,
            action_low=spec.action_low,
            action_high=spec.action_high,
        ),
    )
    return root


# (command line with {ckpt} {data} {in} {out} placeholders, what the one error line must say)
CASES = [
    ("generate pendulum --episodes -3 --out {out}", "--episodes -3: must be at least 1"),
    ("generate pendulum --episodes 0 --out {out}", "--episodes 0"),
    ("generate pendulum --episodes 2 --workers 0 --out {out}", "--workers 0"),
    (
        "generate pendulum --episodes 2 --out {out} --set data.mid_task_prob=1.5",
        "mid_task_prob is a share within [0, 1]",
    ),
    (
        "generate pendulum --episodes 2 --out {out} --set data.teacher=perceiving",
        "pendulum has no teacher 'perceiving'; valid: expert",
    ),
    (
        "generate pendulum --episodes 2 --out {out} --set data.mid_task_starter=misaligned",
        "pendulum has no starter 'misaligned'; valid: expert",
    ),
    ("generate pendulum --episodes 2 --out {out} --physics {in}/bad.yaml", "bad.yaml: not valid YAML (line 2"),
    ("generate pendulum --episodes 2 --out {out} --physics {in}/bad.json", "bad.json: not valid JSON (line 1"),
    ("generate pendulum --episodes 2 --out {out} --physics {in}/unknown.json", "no_such_field"),
    ("generate pendulum --episodes 2 --out {out} --physics {in}/list.yaml", "list.yaml: "),
    ("generate pendulum --episodes 2 --out {out} --physics {in}/missing.json", "missing.json: no such file"),
    ("generate pendulum --episodes 2 --out {in}/file.txt/sub", "file.txt is a file"),
    ("generate no-such-task --episodes 2 --out {out}", "no-such-task"),
    ("merge {in}/missing --out {out}", "--sources"),
    ("merge {in}/file.txt --out {out}", "file.txt: a file"),
    ("pretrain --data {in}/missing --out {out}", "--data"),
    ("pretrain --data {data} --out {out} --steps 0", "--set train.steps=0"),
    ("pretrain --data {in}/peg_data --out {out} --init-from {ckpt}", "another task"),
    ("finetune --checkpoint {in}/missing --data {data} --out {out}", "--checkpoint"),
    ("finetune --checkpoint {ckpt} --data {data} --out {out} --set finetune.epochs=0", "finetune.epochs is a positive"),
    ("finetune --checkpoint {ckpt} --data {in}/peg_data --out {out}", "another task"),
    ("finetune --checkpoint {in} --data {data} --out {out}", "is not a checkpoint"),
    ("evaluate pendulum --checkpoint {ckpt} --trials 0", "--trials 0"),
    ("evaluate peg-insertion --checkpoint {ckpt} --trials 1", "another task"),
    ("evaluate pendulum --checkpoint {ckpt} --grid nowhere", "--grid nowhere"),
    ("evaluate pendulum --checkpoint {ckpt} --physics {in}/bad.yaml", "bad.yaml"),
    ("evaluate pendulum --checkpoint {ckpt} --out {in}", "is a folder"),
    ("select pendulum {in}/missing --trials 2", "missing: no such folder"),
    ("select pendulum {ckpt} --trials -1", "--trials -1"),
    ("expert eval pendulum --trials 0", "--trials 0"),
    ("adapt pendulum --checkpoint {ckpt} --out {out} --sim-data {data} --rounds -1", "--rounds -1"),
    ("adapt pendulum --checkpoint {ckpt} --out {out} --sim-data {data} --episodes-per-round 0", "round 0: must"),
    ("adapt pendulum --checkpoint {ckpt} --out {out} --sim-data {in}/peg_data", "'peg-insertion' episodes"),
    ("adapt pendulum --checkpoint {ckpt} --out {out} --sim-data {data} --sim-replay 1.5", "within [0, 1]"),
    ("adapt pendulum --checkpoint {ckpt} --out {out} --sim-data {data} --initial-data {in}/missing", "--initial-data"),
    ("adapt pendulum --checkpoint {ckpt} --out {in}/file.txt --sim-data {data}", "a file, not a folder"),
    ("adapt pendulum --checkpoint {ckpt} --out {out} --sim-data {data} --physics {in}/bad.json", "bad.json"),
    ("adapt pendulum --checkpoint {ckpt} --out {out} --sim-data {data} --takeover-s 0", "--takeover-s 0"),
    ("run pendulum --out {out} --select-checkpoints -1", "select_checkpoints is a number"),
    ("run pendulum --out {out} --refine-rounds -1", "refine_rounds is a number"),
    ("run peg-insertion --out {out} --checkpoint {ckpt}", "another task"),
    ("demo --out {in}/file.txt", "a file, not a folder"),
    ("ablate pendulum --sim-data {in}/missing --out {out}", "--sim-data"),
    ("ablate pendulum --sim-data {data} --out {out} --trials 0", "--trials 0"),
    ("bench plan --repeats 0", "--repeats 0"),
    ("bench train --preset cpu --set model.attention_dropuot=0", "--set model.attention_dropuot=0"),
    ("compare pendulum --sim-data {data} --out {out} --budget 0", "--budget 0"),
    ("dagger pendulum --checkpoint {ckpt} --sim-data {in}/file.txt --out {out}", "file.txt: a file"),
    ("refine pendulum --checkpoint {ckpt} --sim-data {in}/missing --out {out}", "--sim-data"),
    ("refine pendulum --checkpoint {ckpt} --sim-data {data} --out {out} --episodes 0", "at least one round"),
    ("refine pendulum --checkpoint {ckpt} --sim-data {in}/peg_data --out {out}", "'peg-insertion'"),
    ("refine peg-insertion --checkpoint {ckpt} --sim-data {data} --out {out}", "not 'peg-insertion'"),
]


@pytest.mark.parametrize("argv,expected", CASES, ids=[c[0].split(" --")[0] + f"-{i}" for i, c in enumerate(CASES)])
def test_bad_input_is_one_line_and_nothing_written(argv, expected, inputs, pretrained, pendulum_data, tmp_path, caplog):
    out = tmp_path / "out"
    argv = argv.format(ckpt=pretrained, data=pendulum_data, out=out, **{"in": inputs}).split()
    with caplog.at_level(logging.INFO):
        assert main(argv) == 2
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1, [r.getMessage() for r in errors]
    assert errors[0].exc_info is None
    assert expected in errors[0].getMessage()
    assert not out.exists()


def test_a_bad_command_line_is_one_line(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["generate", "pendulum", "--episodes", "many", "--out", "x"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--episodes: invalid int value: 'many'" in err[0]


@pytest.mark.slow
def test_a_bad_physics_file_is_one_stderr_line_in_a_real_process(inputs, tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "simdist.cli",
            "generate",
            "pendulum",
            "--episodes",
            "2",
            "--out",
            str(tmp_path / "x"),
            "--physics",
            str(inputs / "bad.yaml"),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "bad.yaml: not valid YAML" in lines[0], proc.stderr
    assert not (tmp_path / "x").exists()
