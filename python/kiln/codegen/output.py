"""Writes generated files only when their content changed, so unchanged outputs keep their
mtime and incremental builds do not recompile."""

from __future__ import annotations

import os
import tempfile


def _file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_FILE_MODE = _file_mode()


def write_if_changed(path: str, text: str) -> bool:
    """Writes ``text`` to ``path`` unless it already holds exactly that; True when written."""
    data = text.encode("utf-8")
    try:
        with open(path, "rb") as stream:
            if stream.read() == data:
                return False
    except FileNotFoundError:
        pass
    directory = os.path.dirname(path) or "."
    fd, temp = tempfile.mkstemp(dir=directory, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
        os.chmod(temp, _FILE_MODE)  # mkstemp creates 0600; give what open() would have
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
    return True
