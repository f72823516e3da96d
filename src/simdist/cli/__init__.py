"""The `simdist` command line: `main` parses and prints (main.py); each pipeline stage's module holds its commands'
parsers and functions (data, training, evaluation, adaptation, pipeline and experiment commands)."""

from simdist.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
