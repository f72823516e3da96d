"""Progress bars: live in a terminal, throttled when stderr is a log file."""
import io
import sys

from simdist.progress import LOG_FILE_INTERVAL_S, progress_bar


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_log_file_gets_a_throttled_bar(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    bar = progress_bar(range(3), file=sys.stderr)
    assert bar.mininterval == LOG_FILE_INTERVAL_S
    assert list(bar) == [0, 1, 2]


def test_terminal_keeps_live_bar_and_caller_choice_wins(monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Terminal())
    assert progress_bar(range(3), file=sys.stderr).mininterval < 1.0
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert progress_bar(range(3), file=sys.stderr, mininterval=2.0).mininterval == 2.0
