"""The data is private (issue 19): the store holds every Secret, the data dir the token and the
CA key. Directories 0700 and files 0600 whatever the umask, for `kubelite serve` and for the
embedded cluster in $KUBELITE_HOME; wider modes left by earlier runs are tightened."""
from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import sys

from kubelite.server.private import private_database, private_dir
from kubelite.server.storage.sqlite import SQLiteStore

from test_serve_support import serving


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@contextlib.contextmanager
def umask(value: int):
    previous = os.umask(value)
    try:
        yield
    finally:
        os.umask(previous)


def test_sqlite_store_files_are_private_under_umask_000(tmp_path):
    db = tmp_path / "state.db"
    with umask(0):
        store = SQLiteStore(db)
        try:
            store.create("/registry/core/secrets/default/s", b'{"data":{"k":"c2VjcmV0"}}')
            assert (tmp_path / "state.db-wal").exists()
            for name in ("state.db", "state.db-wal", "state.db-shm"):
                assert mode(tmp_path / name) == 0o600, name
        finally:
            store.close()


def test_wider_modes_left_behind_are_tightened(tmp_path):
    directory = tmp_path / "home"
    directory.mkdir(mode=0o755)
    os.chmod(directory, 0o755)
    db = directory / "state.db"
    db.touch()
    os.chmod(db, 0o644)
    private_dir(directory)
    private_database(db)
    assert mode(directory) == 0o700
    assert mode(db) == 0o600


def test_embedded_home_is_private_under_umask_000(tmp_path):
    home = tmp_path / "home"
    env = {**os.environ, "KUBELITE_HOME": str(home)}
    done = subprocess.run([sys.executable, "-m", "kubelite", "create", "secret", "generic", "s",
                           "--from-literal=password=hunter2"], env=env, capture_output=True, text=True,
                          timeout=120, preexec_fn=lambda: os.umask(0))
    assert done.returncode == 0, done.stderr
    assert mode(home) == 0o700
    for path in home.iterdir():
        if path.name.startswith("state.db"):
            assert mode(path) == 0o600, path


def test_serve_data_dir_is_private_under_umask_000(tmp_path):
    with umask(0):  # the server process inherits it
        server_context = serving(tmp_path)
        server = server_context.__enter__()
    try:
        data = server.data_dir
        assert mode(data) == 0o700
        assert mode(data / "pki") == 0o700
        files = [p for p in data.rglob("*") if p.is_file()]
        assert {p.name for p in files} >= {"state.db", "state.db-wal", "token", "ca.key", "server.key"}
        for path in files:
            assert mode(path) == 0o600, path
        assert mode(server.kubeconfig) == 0o600
    finally:
        server_context.__exit__(None, None, None)
