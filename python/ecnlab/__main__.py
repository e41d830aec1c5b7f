"""``python -m ecnlab``."""

from ecnlab.cli import entry

entry()
