"""`python -m hscc` and the `hscc` command."""

import sys

from hscc.exit_codes import INTERRUPTED


def entry() -> None:
    """Console-script entry point. Ctrl-C ends every command with one line and its exit
    code, even while the command line is still loading (its imports take tens of ms)."""
    try:
        from hscc.cli import app

        app()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(INTERRUPTED)


if __name__ == "__main__":
    entry()
