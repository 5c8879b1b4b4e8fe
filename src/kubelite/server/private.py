"""Keeping a cluster's data private to its owner, whatever the umask.

The store holds every Secret, the data directory the token and the CA key: directories are
0700 and files 0600, created so and tightened if an older kubelite left them wider.
"""
from __future__ import annotations

import os
import pathlib

DIR_MODE = 0o700
FILE_MODE = 0o600
# SQLite's companions of a database file; it creates them with the database file's mode.
_SQLITE_SUFFIXES = ("", "-wal", "-shm", "-journal")


def private_dir(path: str | os.PathLike) -> pathlib.Path:
    """Create `path` (and its parents) if needed; `path` itself ends up 0700."""
    path = pathlib.Path(path)
    path.mkdir(parents=True, exist_ok=True)
    if path.stat().st_mode & 0o777 != DIR_MODE:
        os.chmod(path, DIR_MODE)
    return path


def private_database(path: str | os.PathLike) -> None:
    """Create the SQLite database file 0600 before SQLite opens it (its -wal and -shm follow
    its mode), and tighten the files an earlier run left readable by others."""
    path = os.fspath(path)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE)
    os.close(fd)
    for suffix in _SQLITE_SUFFIXES:
        try:
            if os.stat(path + suffix).st_mode & 0o777 != FILE_MODE:
                os.chmod(path + suffix, FILE_MODE)
        except FileNotFoundError:
            pass
