"""Commands write under --out only: the checkpoints and datasets they read stay byte for byte as they were, and an
--out inside an input (or inside the shipped checkpoints/) is refused before any work."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from simdist.cli import main
from simdist.training.checkpoint import SHIPPED_DIR


def snapshot(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_commands_leave_their_input_folders_unchanged(tmp_path, pretrained, pendulum_data, capsys):
    ckpt, data = tmp_path / "ckpt", tmp_path / "data"
    shutil.copytree(pretrained, ckpt)
    shutil.copytree(pendulum_data, data)
    before = snapshot(ckpt), snapshot(data)
    runs = [
        ["evaluate", "pendulum", "--checkpoint", str(ckpt), "--trials", "1"],
        [
            "evaluate",
            "pendulum",
            "--checkpoint",
            str(ckpt),
            "--trials",
            "1",
            "--agent",
            "policy",
            "--out",
            str(tmp_path / "out" / "eval.json"),
        ],
        ["select", "pendulum", str(ckpt), "--trials", "1", "--out", str(tmp_path / "out" / "select.json")],
        [
            "finetune",
            "--checkpoint",
            str(ckpt),
            "--data",
            str(data),
            "--out",
            str(tmp_path / "ft"),
            "--steps",
            "2",
            "--sim-replay",
            "0",
        ],
        ["pretrain", "--data", str(data), "--out", str(tmp_path / "warm"), "--init-from", str(ckpt), "--steps", "1"],
        [
            "adapt",
            "pendulum",
            "--checkpoint",
            str(ckpt),
            "--rounds",
            "0",
            "--episodes-per-round",
            "1",
            "--out",
            str(tmp_path / "adapt"),
        ],
    ]
    for argv in runs:
        assert main(argv + ["--quiet"]) == 0, argv
    capsys.readouterr()
    assert (snapshot(ckpt), snapshot(data)) == before


def test_an_out_inside_an_input_or_the_shipped_checkpoints_is_refused(tmp_path, pretrained, pendulum_data, caplog):
    ckpt = tmp_path / "ckpt"
    shutil.copytree(pretrained, ckpt)
    before = snapshot(ckpt)
    assert (
        main(
            [
                "finetune",
                "--checkpoint",
                str(ckpt),
                "--data",
                str(pendulum_data),
                "--out",
                str(ckpt / "ft"),
                "--steps",
                "1",
            ]
        )
        == 2
    )
    assert main(["adapt", "pendulum", "--checkpoint", str(ckpt), "--out", str(ckpt)]) == 2
    assert (
        main(["pretrain", "--data", str(pendulum_data), "--out", str(SHIPPED_DIR / "new-model"), "--steps", "1"]) == 2
    )
    assert "never write into their inputs" in caplog.text and "shipped checkpoints" in caplog.text
    assert snapshot(ckpt) == before and not (SHIPPED_DIR / "new-model").exists()
