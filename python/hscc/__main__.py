"""`python -m hscc`: the same as the `hscc` command."""

from hscc.cli import entry

entry()
