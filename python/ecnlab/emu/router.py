"""``python -m ecnlab.emu.router CONFIG.json [--max-seconds S]``: the live-emulation router.

The same program as crates/emu's ``ecnlab-router`` binary (``ecnlab_emu::router``), compiled
into ``ecnlab._core`` so that an installed wheel carries it: ``ecnlab emulate`` runs this
module unless ``$ECNLAB_ROUTER`` names a binary (:func:`ecnlab.emu.run.router_command`).
Nothing else in ecnlab imports this module (``python -m`` runs it as ``__main__``).
The Rust loop runs with the GIL released and handles SIGINT/SIGTERM/SIGHUP itself.
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main() -> int:
    from ecnlab import _core

    return int(_core.router_main(sys.argv[1:]))


if __name__ == "__main__":
    sys.exit(main())
