"""The ``ragox`` command line: a thin shell over :mod:`ragox.service`."""

import sys

from ragox.cli._main import cli, main

__all__ = ["cli", "main", "run"]


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
