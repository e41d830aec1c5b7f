"""The Dask backend: runs on an existing ``distributed`` cluster (``--scheduler tcp://HOST:PORT``).

Workers compute a run and send its files back; this process writes them into
the sweep directory, so results land on the machine that started the sweep.
Needs the optional extra ``ecnlab[dask]`` (and ecnlab installed on the workers).
"""

from __future__ import annotations

import socket
import uuid
from collections.abc import Generator
from typing import Any

from ecnlab.errors import ScenarioError
from ecnlab.sweep.execute import Outcome, compute_run

__all__ = ["run_dask", "connect"]

Task = tuple[str, dict[str, Any]]
CONNECT_TIMEOUT = "20s"


def connect(address: str) -> Any:
    """A ``distributed.Client`` for ``address``; a missing package or dead scheduler is one clear error."""
    try:
        from distributed import Client
    except ImportError:
        raise ScenarioError("--scheduler", "needs the Dask extra: pip install 'ecnlab[dask]'", address) from None
    _probe(address)
    try:
        return Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError) as e:
        raise ScenarioError("--scheduler", f"cannot connect: {e}", address) from None


def _probe(address: str) -> None:
    """Fail at once when nothing listens at a ``tcp://HOST:PORT`` address (Dask itself retries until its timeout)."""
    host, _, port = address.removeprefix("tcp://").rpartition(":")
    if not address.startswith("tcp://") or not host or not port.isdigit():
        return  # another protocol or form: leave it to distributed
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except OSError as e:
        raise ScenarioError("--scheduler", f"cannot connect: {e.strerror or e}", address) from None


def run_dask(tasks: list[Task], client: Any) -> Generator[Outcome, None, None]:
    """Submit every task to the cluster and yield each Outcome as it arrives."""
    from distributed import as_completed

    token = uuid.uuid4().hex[:8]  # keys unique per invocation, so a re-run never reuses a stale result
    futures = {
        client.submit(compute_run, name, data, key=f"ecnlab-{token}-{i}", pure=False, retries=0): name
        for i, (name, data) in enumerate(tasks)
    }
    finished = False
    try:
        for fut in as_completed(list(futures), loop=client.loop):  # type: ignore[no-untyped-call]
            name = futures.pop(fut)
            try:
                outcome = fut.result()
            except Exception as e:  # the worker died or the task could not be sent
                outcome = Outcome(name, None, f"dask: {type(e).__name__}: {e}")
            fut.release()
            yield outcome
        finished = True
    finally:
        if not finished and futures:
            client.cancel(list(futures))
