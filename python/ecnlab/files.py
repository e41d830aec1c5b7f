"""Files ecnlab writes: each one whole or not at all, and an operating-system error on it named;
the Parquet tables it reads back, a damaged one named.

Every result file (summary.json, Parquet tables, manifests, figures, reports) is written into a
temporary file beside its final name (``.NAME.XXXXXXXX``) and renamed into place only when complete
(POSIX ``rename(2)`` replaces a file atomically), so a full disk, a quota or an interrupted write
leaves the earlier file, never a truncated one. An ``OSError`` from any of these writes names the
file as the user knows it (:func:`ecnlab.errors.shown_path`), also when the system reported it
without a file name (``write(2)`` failing with ENOSPC); the command line turns it into one line and
exit status 2 (:func:`ecnlab.errors.os_error_line`). :func:`read_parquet` reads any of ecnlab's
Parquet tables (the store's, a run's time series and flow table) and raises
:class:`~ecnlab.errors.ResultError` naming the file when it is missing or damaged.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["naming", "write_atomic", "write_text", "write_bytes", "write_figure", "read_parquet"]


@contextlib.contextmanager
def naming(path: str | Path) -> Iterator[None]:
    """Raise an OSError inside the block as one that names ``path`` (when it names no file)."""
    try:
        yield
    except OSError as e:
        if e.filename is not None:
            raise
        code = e.errno
        cause = e.strerror or str(e) or type(e).__name__
        raise OSError(code, cause, str(path)) from e


def write_atomic(path: str | Path, write: Callable[[str], Any]) -> Path:
    """Write ``path`` through ``write(tmp_path)`` into a temporary file beside it, then rename it into
    place; on any failure the temporary file is removed and ``path`` is as it was."""
    path = Path(path)
    with naming(path):
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        os.close(fd)
        try:
            write(tmp)
            os.chmod(tmp, 0o644 & ~_umask())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    return path


def write_text(path: str | Path, text: str) -> Path:
    """``path`` holds ``text`` (UTF-8), written whole (:func:`write_atomic`)."""
    return write_atomic(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def write_bytes(path: str | Path, data: bytes) -> Path:
    """``path`` holds ``data``, written whole (:func:`write_atomic`)."""
    return write_atomic(path, lambda tmp: Path(tmp).write_bytes(data))


def write_figure(fig: Any, path: str | Path, **kwargs: Any) -> Path:
    """``fig.savefig(path, **kwargs)`` written whole (:func:`write_atomic`); the format is taken from
    ``path``'s suffix, as savefig would."""
    path = Path(path)
    fmt = kwargs.pop("format", None) or path.suffix.lstrip(".") or None
    return write_atomic(path, lambda tmp: fig.savefig(tmp, format=fmt, **kwargs))


def read_parquet(path: Path, remedy: str = "") -> pd.DataFrame:
    """``path`` as a DataFrame; a missing or damaged file raises ResultError naming it (and ``remedy``)."""
    import pandas as pd
    import pyarrow as pa

    from ecnlab.errors import MissingResultError, ResultError

    tail = f"; {remedy}" if remedy else ""
    if not path.is_file():
        raise MissingResultError(path, f"missing{tail}")
    try:
        return pd.read_parquet(path)
    except (OSError, pa.ArrowException, ValueError) as e:
        cause = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ResultError(path, f"damaged ({cause}){tail}") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
