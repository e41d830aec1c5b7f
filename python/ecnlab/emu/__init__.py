"""Live emulation: real Linux TCP with ECN through ecnlab's own queues.

``ecnlab emulate SCENARIO --out DIR`` (or :func:`emulate`) runs a scenario's
flows with real sockets in network namespaces, connected only through
``ecnlab-router`` (crates/emu), which forwards their packets over the
scenario's links with the simulator's own AQM queues. See docs/emulation.md.
"""

from ecnlab.emu.netns import EmulationError
from ecnlab.emu.run import PrivilegeError, emulate, emulate_scenario

__all__ = ["emulate", "emulate_scenario", "EmulationError", "PrivilegeError"]
