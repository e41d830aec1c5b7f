"""Type stubs for the PyO3 extension ``ecnlab._core`` (crates/py)."""

class EngineError(Exception):
    """The engine rejected its input or failed during a run."""

def version() -> str:
    """The ecnlab version the extension was built from."""

def run(spec_json: str) -> str:
    """Run one simulation (``SimSpec`` JSON in, result JSON out), with the GIL released."""

def default_tcp_config() -> str:
    """The engine's ``TcpConfig::default()`` as JSON."""
