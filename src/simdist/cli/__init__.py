"""The `simdist` command line: `main` parses (main.py), one function per command runs it (commands.py)."""

from simdist.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
