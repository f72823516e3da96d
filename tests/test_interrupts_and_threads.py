"""Ctrl-C and SIGTERM end a command with one line on how to resume (exit 130 / 143) and no partial file; PyTorch's
thread count follows the cores free to the process."""

import importlib
import json
import logging
import os
import signal

import pytest
import torch

from simdist.cli import adaptation_commands, evaluation_commands, runtime

cli = importlib.import_module("simdist.cli.main")  # the module (simdist.cli.main is also the function)


@pytest.mark.parametrize("sig,status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_ends_a_command_with_one_line_and_no_partial_file(tmp_path, monkeypatch, caplog, sig, status):
    out = tmp_path / "run"

    def stopped_midway(args):
        (out / "real_data").mkdir(parents=True)
        (out / "real_data" / "kept.h5").write_text("a completed file")
        (out / "real_data" / "r00_e001.h5.tmp").write_text("half a file")
        os.kill(os.getpid(), sig)
        raise AssertionError("not reached: the signal interrupts the command")

    monkeypatch.setattr(adaptation_commands, "cmd_adapt", stopped_midway)
    monkeypatch.setattr(cli, "check_arguments", lambda args: None)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # a background shell may have ignored it
    try:
        with caplog.at_level(logging.INFO):
            assert cli.main(["adapt", "pendulum", "--checkpoint", "c", "--out", str(out)]) == status
    finally:
        signal.signal(signal.SIGINT, previous)
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].endswith("rerun the same command to resume"), errors
    assert signal.Signals(sig).name in errors[0]
    assert (out / "real_data" / "kept.h5").exists() and not list(out.rglob("*.tmp"))
    assert signal.getsignal(signal.SIGTERM) is not None  # the handler is put back after the command


def test_an_interrupted_evaluation_says_nothing_was_written(monkeypatch, caplog):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluation_commands, "cmd_evaluate", interrupted)
    monkeypatch.setattr(cli, "check_arguments", lambda args: None)
    assert cli.main(["evaluate", "pendulum", "--checkpoint", "c"]) == 130
    assert "nothing was written" in caplog.text


@pytest.fixture
def threads():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def test_threads_follow_the_free_cores_and_say_so_once(monkeypatch, caplog, threads):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(runtime.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(runtime, "busy_cores", lambda cpus: 2.6)
    torch.set_num_threads(4)
    with caplog.at_level(logging.WARNING):
        assert runtime.choose_threads() == 1  # 4 cores, load 2.6: 1 free
    assert torch.get_num_threads() == 1
    assert "PyTorch runs 1 thread(s) instead of 4; set OMP_NUM_THREADS=N to choose" in caplog.text
    monkeypatch.setattr(runtime, "busy_cores", lambda cpus: 0.2)
    assert runtime.choose_threads() is None  # never raised above what PyTorch runs already
    monkeypatch.setattr(runtime, "busy_cores", lambda cpus: None)  # no /proc/stat: the load average stands in
    monkeypatch.setattr(runtime.os, "getloadavg", lambda: (3.4, 1.0, 1.0))
    torch.set_num_threads(4)
    assert runtime.choose_threads() == 1


def test_busy_cores_are_measured_now_without_this_process(monkeypatch):
    """Two /proc/stat samples: the other processes' ticks over the interval, in cores; this process's own left out."""
    samples = iter([(1000, 4000), (1000 + 150, 4000 + 200)])  # 2 cores x 100 ticks: 150 busy ticks
    own = iter([50, 100])  # of which this process ran 50
    monkeypatch.setattr(runtime, "_cpu_jiffies", lambda cpus: next(samples))
    monkeypatch.setattr(runtime, "_own_jiffies", lambda: next(own))
    assert runtime.busy_cores({0, 1}, interval_s=0.0) == pytest.approx(1.0)
    monkeypatch.undo()
    cpu = min(os.sched_getaffinity(0))
    measured = runtime.busy_cores({cpu}, interval_s=0.05)  # the real files, where there are any
    assert measured is None or 0.0 <= measured <= 1.0


def test_every_json_result_records_the_thread_count(capsys):
    assert cli.main(["presets", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["threads"] == torch.get_num_threads()


def test_a_thread_count_the_user_set_is_kept(monkeypatch, threads):
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    monkeypatch.setattr(runtime.os, "getloadavg", lambda: (50.0, 50.0, 50.0))
    torch.set_num_threads(2)
    assert runtime.choose_threads() is None and torch.get_num_threads() == 2
