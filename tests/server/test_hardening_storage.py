"""Compaction gives the space of compacted history back (issue 19): the SQLite file shrinks to
about its live data (incremental vacuum, in short steps) and the WAL is cut back after its
checkpoint, instead of both keeping their peak size."""
from __future__ import annotations

import os

from kubelite.server.storage.sqlite import _WAL_SIZE_LIMIT, SQLiteStore

VALUE = b"x" * 2000
KEYS = 200


def test_compaction_shrinks_the_database_and_its_wal(tmp_path):
    path = tmp_path / "state.db"
    store = SQLiteStore(path)
    try:
        for i in range(KEYS):
            store.create(f"/registry/k/{i}", VALUE)
        for _ in range(20):  # history: 20 revisions of every key
            for i in range(KEYS):
                kv = store.get(f"/registry/k/{i}")
                store.update(f"/registry/k/{i}", VALUE, kv.mod_revision)
        grown = os.path.getsize(path)
        store.compact(store.current_revision())
        live = KEYS * len(VALUE)
        assert os.path.getsize(path) < min(grown / 4, 2 * live + 256 * 1024), (grown, os.path.getsize(path))
        assert os.path.getsize(f"{path}-wal") <= _WAL_SIZE_LIMIT
        # the data is intact and the store goes on
        assert store.get("/registry/k/7").value == VALUE
        store.create("/registry/k/new", VALUE)
    finally:
        store.close()
