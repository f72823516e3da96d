"""Progress bars: live in a terminal, throttled when stderr is a log file."""

import io
import sys

from simdist.progress import LOG_FILE_INTERVAL_S, LOG_FILE_MIN_INTERVAL_S, progress_bar


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_log_file_gets_a_throttled_bar(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    bar = progress_bar(range(3), file=sys.stderr)
    assert bar.mininterval == LOG_FILE_MIN_INTERVAL_S
    assert list(bar) == [0, 1, 2]
    assert progress_bar(iter(range(3)), file=sys.stderr).mininterval == LOG_FILE_INTERVAL_S  # no known total


def test_a_log_files_bar_moves_every_twentieth_of_its_total(monkeypatch):
    """A 1,000-step finetune's bar once sat at 0/1000 in a log file and jumped to 100 % (a 30 s redraw interval)."""
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    bar = progress_bar(range(200, 1000), initial=200, total=1000, file=sys.stderr, mininterval=0.0)
    assert bar.miniters == 50
    list(bar)
    shown = [line for line in stream.getvalue().replace("\r", "\n").splitlines() if "/1000" in line]
    assert 10 <= len(shown) <= 20 and "1000/1000" in shown[-1]


def test_terminal_keeps_live_bar_and_caller_choice_wins(monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Terminal())
    assert progress_bar(range(3), file=sys.stderr).mininterval < 1.0
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert progress_bar(range(3), file=sys.stderr, mininterval=2.0).mininterval == 2.0
