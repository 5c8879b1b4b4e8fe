"""SQLiteStore specifics: durability, WAL, several processes sharing one file, open_store."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from kubelite.server.storage import (
    Compacted,
    EventType,
    StorageError,
    open_store,
)
from kubelite.server.storage import sqlite as sqlite_module
from kubelite.server.storage.base import KV
from kubelite.server.storage.errors import KeyExists, StoreClosed
from kubelite.server.storage.memory import MemoryStore
from kubelite.server.storage.sqlite import SQLiteStore

TIMEOUT = 10.0

# Run in a child process: increments a shared counter with compare-and-swap and
# creates its own keys, printing the revision of every write it made.
WORKER = textwrap.dedent(
    """
    import os, sys, time
    from kubelite.server.storage import Conflict
    from kubelite.server.storage.sqlite import SQLiteStore

    path, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = SQLiteStore(path)
    print("ready", flush=True)
    while not os.path.exists(path + ".go"):  # start together with the other workers
        time.sleep(0.001)
    revisions = []
    for i in range(count):
        while True:
            current = store.get("/registry/counters/shared")
            try:
                kv = store.update("/registry/counters/shared",
                                  str(int(current.value) + 1).encode(), current.mod_revision)
            except Conflict:
                continue
            revisions.append(kv.mod_revision)
            break
        revisions.append(store.create(f"/registry/items/{name}-{i:04d}", name.encode()).mod_revision)
        time.sleep(0.001)  # leave the write lock free now and then, as real clients do
    store.close()
    print(" ".join(map(str, revisions)))
    """
)


def run_worker(path, name, count) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", WORKER, str(path), name, str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def start_together(path, procs) -> None:
    for proc in procs:  # every worker has started and opened the store
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
    (path.parent / (path.name + ".go")).touch()


def finish(proc: subprocess.Popen) -> list[int]:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return [int(r) for r in out.split()]


def _journal_mode(path, new: str | None = None) -> str:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA journal_mode" + (f"={new}" if new else "")).fetchone()[0]
    finally:
        conn.close()


def test_file_is_in_wal_mode_with_full_sync(tmp_path):
    path = tmp_path / "state.db"
    SQLiteStore(path).close()
    assert _journal_mode(path) == "wal"


def test_restart_keeps_objects_history_and_revision(tmp_path):
    path = tmp_path / "state.db"
    store = SQLiteStore(path)
    a = store.create("/registry/pods/default/a", b"1")
    a2 = store.update(a.key, b"2", a.mod_revision)
    b = store.create("/registry/pods/default/b", b"1")
    gone = store.delete(b.key)
    store.compact(a2.mod_revision)
    store.close()

    store = SQLiteStore(path)
    assert store.current_revision() == gone.mod_revision
    assert store.compact_revision() == a2.mod_revision
    assert store.get(a.key) == a2
    assert store.get(b.key) is None
    assert store.range("/registry/pods/", revision=b.mod_revision).kvs == [a2, b]
    with pytest.raises(Compacted):
        store.range("/registry/pods/", revision=a.mod_revision)
    nxt = store.create("/registry/pods/default/c", b"1")
    assert nxt.mod_revision == gone.mod_revision + 1
    watcher = store.watch("/registry/pods/", from_revision=a2.mod_revision)
    events = [watcher.next(TIMEOUT) for _ in range(3)]
    assert [e.type for e in events] == [EventType.ADDED, EventType.DELETED, EventType.ADDED]
    assert events[1].prev_kv == b
    watcher.close()
    store.close()


def test_a_committed_write_survives_a_killed_process(tmp_path):
    path = tmp_path / "state.db"
    script = textwrap.dedent(
        """
        import os, sys
        from kubelite.server.storage.sqlite import SQLiteStore
        store = SQLiteStore(sys.argv[1])
        kv = store.create("/registry/pods/default/durable", b"yes")
        print(kv.mod_revision, flush=True)
        os._exit(0)  # no close(), no cleanup
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    store = SQLiteStore(path)
    kv = store.get("/registry/pods/default/durable")
    assert kv is not None and kv.value == b"yes" and kv.mod_revision == int(out.stdout)
    store.close()


def test_writes_durable_at_the_end_of_a_block_survive_a_killed_process(tmp_path):
    path = tmp_path / "state.db"
    script = textwrap.dedent(
        """
        import os, sys
        from kubelite.server.storage.sqlite import SQLiteStore
        store = SQLiteStore(sys.argv[1])
        syncs = []
        real_fsync = os.fsync
        os.fsync = lambda fd: syncs.append(os.readlink(f"/proc/self/fd/{fd}")) or real_fsync(fd)
        with store.durable_at_end():
            for i in range(20):
                kv = store.create(f"/registry/pods/default/p{i}", b"yes")
        print(kv.mod_revision, len(syncs), syncs[0].endswith("state.db-wal"), flush=True)
        os._exit(0)  # no close(), no cleanup
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    revision, syncs, log = out.stdout.split()
    revision = int(revision)
    assert (syncs, log) == ("1", "True")  # one sync of the log, for the whole block
    store = SQLiteStore(path)
    assert store.current_revision() == revision
    assert [kv.key for kv in store.range("/registry/pods/default/").kvs] == \
        sorted(f"/registry/pods/default/p{i}" for i in range(20))
    store.close()


def test_a_failed_write_inside_a_block_undoes_itself_alone(tmp_path):
    from kubelite.server.storage.errors import KeyExists, NotFound

    store = SQLiteStore(tmp_path / "state.db")
    start = store.current_revision()
    with store.durable_at_end():
        store.create("/registry/pods/default/a", b"1")
        with pytest.raises(KeyExists):
            store.create("/registry/pods/default/a", b"again")
        with pytest.raises(NotFound):
            store.update("/registry/pods/default/missing", b"x", None)
        store.create("/registry/pods/default/b", b"2")
        # the block reads what it wrote
        assert store.get("/registry/pods/default/a").value == b"1"
        assert [kv.key for kv in store.range("/registry/pods/default/").kvs] == \
            ["/registry/pods/default/a", "/registry/pods/default/b"]
    assert store.current_revision() == start + 2
    assert store.get("/registry/pods/default/a").value == b"1"
    assert store.get("/registry/pods/default/b").mod_revision == start + 2
    store.close()


def test_a_block_left_by_an_exception_writes_nothing(tmp_path):
    store = SQLiteStore(tmp_path / "state.db")
    start = store.current_revision()
    with pytest.raises(RuntimeError):
        with store.durable_at_end():
            store.create("/registry/pods/default/a", b"1")
            raise RuntimeError("bootstrap failed")
    assert store.get("/registry/pods/default/a") is None
    assert store.current_revision() == start
    store.create("/registry/pods/default/a", b"after")  # the store goes on
    assert store.current_revision() == start + 1
    store.close()


def test_other_threads_see_a_block_when_it_ends(tmp_path):
    import threading

    store = SQLiteStore(tmp_path / "state.db")
    seen = []
    with store.durable_at_end():
        store.create("/registry/pods/default/a", b"1")
        reader = threading.Thread(target=lambda: seen.append(store.get("/registry/pods/default/a")))
        reader.start()
        reader.join(60)
    assert seen == [None]
    assert store.get("/registry/pods/default/a").value == b"1"
    store.close()


def test_two_processes_writing_one_file_lose_no_update(tmp_path):
    path = tmp_path / "state.db"
    store = SQLiteStore(path)
    start = store.create("/registry/counters/shared", b"0").mod_revision
    count = 200
    procs = [run_worker(path, name, count) for name in ("left", "right")]
    start_together(path, procs)
    per_process = [finish(p) for p in procs]
    for revisions in per_process:
        assert revisions == sorted(revisions) and len(set(revisions)) == len(revisions)
    every = sorted(per_process[0] + per_process[1])
    total = 2 * 2 * count
    # Every write got its own revision, and together they fill the sequence.
    assert every == list(range(start + 1, start + 1 + total))
    # The processes really ran at the same time: their revisions interleave.
    assert per_process[0][-1] > per_process[1][0] and per_process[1][-1] > per_process[0][0]
    assert store.get("/registry/counters/shared").value == str(2 * count).encode()
    assert len(store.range("/registry/items/").kvs) == 2 * count
    assert store.current_revision() == start + total
    store.close()


def test_a_watcher_sees_writes_of_another_process(tmp_path):
    path = tmp_path / "state.db"
    store = SQLiteStore(path)
    store.create("/registry/counters/shared", b"0")
    watcher = store.watch("/registry/")
    count = 15
    proc = run_worker(path, "other", count)
    start_together(path, [proc])
    revisions = finish(proc)
    events = []
    for _ in range(2 * count):
        event = watcher.next(TIMEOUT)
        assert event is not None, f"only {len(events)} events arrived"
        events.append(event)
    assert [e.revision for e in events] == revisions
    counter = [e for e in events if e.kv.key == "/registry/counters/shared"]
    assert [int(e.kv.value) for e in counter] == list(range(1, count + 1))
    assert all(e.type is EventType.MODIFIED and e.prev_kv is not None for e in counter)
    watcher.close()
    store.close()


def test_two_stores_on_one_file_in_one_process_share_revisions(tmp_path):
    path = tmp_path / "state.db"
    left, right = SQLiteStore(path), SQLiteStore(path)
    watcher = right.watch("/registry/")
    a = left.create("/registry/pods/default/a", b"1")
    b = right.create("/registry/pods/default/b", b"1")
    assert b.mod_revision == a.mod_revision + 1
    assert right.get(a.key) == a
    started = time.monotonic()
    events = [watcher.next(TIMEOUT), watcher.next(TIMEOUT)]
    assert [e.kv for e in events] == [a, b]
    assert time.monotonic() - started < TIMEOUT
    watcher.close()
    left.close()
    right.close()


def test_compaction_by_another_store_ends_a_lagging_watcher(tmp_path):
    path = tmp_path / "state.db"
    watching = SQLiteStore(path, poll_interval=30)  # polls only when this process writes
    writer = SQLiteStore(path)
    watcher = watching.watch("/registry/")
    # Keep the watching store's poller from reading until the compaction is done,
    # as if the other process wrote and compacted between two polls.
    with watching._poller._lock:
        a = writer.create("/registry/pods/default/a", b"1")
        a2 = writer.update(a.key, b"2", a.mod_revision)
        writer.update(a.key, b"3", a2.mod_revision)
        writer.compact(writer.current_revision())
    watching.create("/registry/other", b"wake the poller")
    with pytest.raises(Compacted):
        watcher.next(TIMEOUT)
    assert watcher.next(0.01) is None
    watching.close()
    writer.close()


def test_corrupt_file_is_a_storage_error(tmp_path):
    path = tmp_path / "state.db"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StorageError, match="state.db"):
        SQLiteStore(path)


# -- open_store ---------------------------------------------------------------------


def test_open_store_memory():
    store = open_store("memory://")
    assert isinstance(store, MemoryStore)
    store.close()


@pytest.mark.parametrize("form", ["path", "url"])
def test_open_store_sqlite(tmp_path, form):
    path = tmp_path / "nested" / "dir" / "state.db"
    target = str(path) if form == "path" else f"sqlite://{path}"
    store = open_store(target)
    assert isinstance(store, SQLiteStore)
    store.create("/k", b"v")
    store.close()
    assert path.exists()


@pytest.mark.parametrize(
    "target, message",
    [
        ("etcd://", "at least one endpoint"),
        ("ftp://x", "unknown storage scheme"),
        ("sqlite://", "needs a file path"),
        ("memory://x", "takes no path"),
        ("", "non-empty"),
    ],
)
def test_open_store_rejects_other_locations(target, message):
    with pytest.raises(StorageError, match=message):
        open_store(target)


def _counting_syncs(monkeypatch, release: threading.Event | None = None) -> list:
    """The paths kubelite fsyncs from now on; with `release`, each sync first waits for it."""
    import kubelite.server.storage.sqlite as sqlite_module

    synced, real_fsync = [], os.fsync

    def fsync(fd):
        if release is not None:
            assert release.wait(TIMEOUT)
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(sqlite_module.os, "fsync", fsync)
    return synced


def test_commits_wait_for_no_disk_until_durable_is_asked_for(tmp_path, monkeypatch):
    store = SQLiteStore(tmp_path / "state.db")
    synced = _counting_syncs(monkeypatch)
    store.create("/registry/pods/default/a", b"1")
    store.create("/registry/pods/default/b", b"2")
    assert synced == []
    store.durable()
    assert synced == [str(tmp_path / "state.db-wal")]  # one sync for both
    store.durable()
    assert len(synced) == 1  # nothing new to sync
    store.create("/registry/pods/default/c", b"3")
    store.close()  # what nobody waited for is synced at close
    assert len(synced) == 2


def test_reopening_a_store_writes_nothing_and_syncs_nothing(tmp_path, monkeypatch):
    # Every embedded command opens the store: an existing one is read, not written to.
    path = tmp_path / "state.db"
    SQLiteStore(path).close()
    synced = _counting_syncs(monkeypatch)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process writing: an open that wanted to write would wait
    try:
        store = SQLiteStore(path)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert store.current_revision() == 1
    store.close()
    assert synced == []


def test_reopening_a_store_in_another_journal_mode_puts_it_back_in_wal(tmp_path):
    path = tmp_path / "state.db"
    SQLiteStore(path).close()
    assert _journal_mode(path, "DELETE") == "delete"
    SQLiteStore(path).close()
    assert _journal_mode(path) == "wal"


def test_a_store_of_another_schema_version_is_refused(tmp_path):
    path = tmp_path / "state.db"
    SQLiteStore(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("UPDATE meta SET value = 99 WHERE name = 'schema_version'")
    conn.close()
    with pytest.raises(StorageError, match="schema version 99"):
        SQLiteStore(path)


def test_writers_that_wait_together_share_one_sync(tmp_path, monkeypatch):
    store = SQLiteStore(tmp_path / "state.db")
    release = threading.Event()
    synced = _counting_syncs(monkeypatch, release)
    errors = []

    def write(i):
        try:
            store.create(f"/registry/pods/default/p{i}", b"x")
            store.durable()
        except Exception as err:  # noqa: BLE001 - reported below
            errors.append(err)

    start = store._committed  # (opening the file made a commit)
    first = threading.Thread(target=write, args=(0,))
    first.start()
    deadline = time.monotonic() + TIMEOUT
    while store._syncs._running is False and time.monotonic() < deadline:
        threading.Event().wait(0.01)  # until the first sync has begun (and waits for `release`)
    others = [threading.Thread(target=write, args=(i,)) for i in range(1, 5)]
    for thread in others:
        thread.start()
    while store._committed < start + 5 and time.monotonic() < deadline:
        threading.Event().wait(0.01)
    assert store._committed == start + 5
    release.set()
    for thread in [first, *others]:
        thread.join(TIMEOUT)
    assert errors == []
    # the first write's sync, then one sync for the four committed while it ran
    assert len(synced) == 2
    store.close()
    assert len(synced) == 2


def _answers(store) -> tuple[list, threading.Event, object]:
    """A when_durable callback recording what it was called with, and an event set at each call."""
    got, called = [], threading.Event()

    def callback(failure):
        got.append((failure, store._syncs.synced))
        called.set()

    return got, called, callback


def test_when_durable_calls_back_after_one_sync_for_the_writes_that_ended_meanwhile(tmp_path, monkeypatch):
    store = SQLiteStore(tmp_path / "state.db")
    release = threading.Event()
    synced = _counting_syncs(monkeypatch, release)
    got, called, callback = _answers(store)
    store.create("/registry/pods/default/p0", b"x")
    store.when_durable(callback)
    deadline = time.monotonic() + TIMEOUT
    while store._syncs._running is False and time.monotonic() < deadline:
        threading.Event().wait(0.01)  # until the first sync has begun (and waits for `release`)
    for i in range(1, 5):
        store.create(f"/registry/pods/default/p{i}", b"x")
        store.when_durable(callback)
    assert got == []  # nothing is on disk yet
    release.set()
    while len(got) < 5 and time.monotonic() < deadline:
        called.wait(0.05)
    # each callback came once its own write was synced: the first's sync, then one for the other four
    assert [failure for failure, _ in got] == [None] * 5 and len(synced) == 2
    assert got[0][1] >= store._committed - 4 and all(at >= store._committed for _, at in got[1:])
    got.clear()
    store.when_durable(callback)  # nothing left to sync: at once, on this thread
    assert got == [(None, store._committed)] and len(synced) == 2
    store.close()


def test_when_durable_reports_a_failed_sync_and_syncs_again_later(tmp_path, monkeypatch):
    import kubelite.server.storage.sqlite as sqlite_module

    store = SQLiteStore(tmp_path / "state.db")
    real_fsync, failing = os.fsync, [True]

    def fsync(fd):
        if failing[0]:
            raise OSError(5, "Input/output error")
        real_fsync(fd)

    monkeypatch.setattr(sqlite_module.os, "fsync", fsync)
    got, called, callback = _answers(store)
    store.create("/registry/pods/default/a", b"x")
    store.when_durable(callback)
    assert called.wait(TIMEOUT)
    failure = got[0][0]
    assert isinstance(failure, StorageError) and "state.db" in str(failure) and "Input/output" in str(failure)
    failing[0] = False
    called.clear()
    store.when_durable(callback)
    assert called.wait(TIMEOUT) and got[1] == (None, store._committed)
    store.close()


def test_closing_the_store_ends_the_waits_for_the_disk(tmp_path, monkeypatch):
    store = SQLiteStore(tmp_path / "state.db")
    store.create("/registry/pods/default/a", b"x")
    store.close()
    got, called, callback = _answers(store)
    store._syncs.then(store._committed + 1, callback)
    assert len(got) == 1 and isinstance(got[0][0], StoreClosed)


def test_prefix_version_stays_while_writes_go_elsewhere_and_sees_other_processes(tmp_path):
    path = tmp_path / "state.db"
    store, other = SQLiteStore(path), SQLiteStore(path)
    try:
        prefix = "/registry/admissionregistration.k8s.io/"
        before = store.prefix_version(prefix)
        store.create("/registry/core/configmaps/default/a", b"1")
        store.create("/registry/admissionregistration.k8s.io-not/x", b"1")  # a key sharing the start
        assert store.prefix_version(prefix) == before
        other.create(prefix + "validatingwebhookconfigurations/w", b"{}")  # another process's write
        after = store.prefix_version(prefix)
        assert after != before
        other.delete(prefix + "validatingwebhookconfigurations/w")
        assert store.prefix_version(prefix) not in (before, after)
    finally:
        store.close()
        other.close()


def test_watchers_see_a_blocks_writes_only_once_it_commits(tmp_path):
    # a writer hands its rows to the watchers itself: inside a block they are not committed yet
    store = SQLiteStore(tmp_path / "state.db", poll_interval=3600)
    watcher = store.watch("/registry/pods/")
    try:
        with pytest.raises(RuntimeError):
            with store.durable_at_end():
                store.create("/registry/pods/default/gone", b"1")
                assert watcher.next(timeout=0) is None  # nothing committed yet
                raise RuntimeError("rolled back")
        with store.durable_at_end():
            store.create("/registry/pods/default/kept", b"1")
            assert watcher.next(timeout=0) is None
        event = watcher.next(timeout=60)
        assert event is not None and event.kv.key == "/registry/pods/default/kept"
        assert watcher.next(timeout=0) is None  # the rolled-back write never shows
    finally:
        watcher.close()
        store.close()


def test_creating_an_existing_key_is_refused_with_its_row_and_takes_no_revision(tmp_path):
    store = SQLiteStore(tmp_path / "state.db", poll_interval=3600)
    watcher = store.watch("/registry/")
    key = "/registry/pods/default/a"
    try:
        first = store.create(key, b"1")
        updated = store.update(key, b"2", first.mod_revision)
        revision = store.current_revision()
        with pytest.raises(KeyExists) as refused:
            store.create(key, b"3")
        assert refused.value.key == key
        assert refused.value.current == KV(key, b"2", first.mod_revision, updated.mod_revision)
        assert store.current_revision() == revision
        with store.durable_at_end():  # refused inside a block: undoes itself alone
            with pytest.raises(KeyExists) as inside:
                store.create(key, b"4")
            kept = store.create("/registry/pods/default/b", b"5")
        assert inside.value.current == refused.value.current
        assert kept.mod_revision == revision + 1
        assert store.get(key) == refused.value.current
        events = [watcher.next(timeout=TIMEOUT) for _ in range(3)]
        assert [(e.type, e.kv) for e in events] == [
            (EventType.ADDED, first), (EventType.MODIFIED, updated), (EventType.ADDED, kept)]
        assert watcher.next(timeout=0) is None
    finally:
        watcher.close()
        store.close()


def test_watchers_get_a_writers_own_events_as_the_log_holds_them_and_others_in_between(tmp_path):
    # A write hands its own event to the watchers when it follows the last one they got; a write
    # of another process in between (not polled yet: a long poll interval) is read from the log.
    path = tmp_path / "state.db"
    store, other = SQLiteStore(path, poll_interval=3600), SQLiteStore(path, poll_interval=3600)
    watcher = store.watch("/registry/")
    try:
        a = store.create("/registry/pods/default/a", b"1")
        b = store.update("/registry/pods/default/a", b"2", a.mod_revision)
        c = other.create("/registry/pods/default/c", b"3")
        d = store.delete("/registry/pods/default/a", b.mod_revision)
        e = store.create("/registry/pods/default/e", b"4")
        live = [watcher.next(timeout=TIMEOUT) for _ in range(5)]
        assert [event.revision for event in live] == [kv.mod_revision for kv in (a, b, c, d, e)]
        assert [event.type for event in live] == [
            EventType.ADDED, EventType.MODIFIED, EventType.ADDED, EventType.DELETED, EventType.ADDED]
        assert live[3].kv == d and live[3].prev_kv == b
        assert watcher.next(timeout=0) is None
        with store.watch("/registry/", a.mod_revision - 1) as replayed:  # the same, from the log
            assert [replayed.next(timeout=TIMEOUT) for _ in range(5)] == live
    finally:
        watcher.close()
        store.close()
        other.close()


def test_prefix_version_from_the_rows_since_its_last_look_is_what_a_first_look_reads(tmp_path, monkeypatch):
    monkeypatch.setattr(sqlite_module, "_PREFIX_SCAN", 8)  # beyond it the prefix is read afresh
    path = tmp_path / "state.db"
    store, other = SQLiteStore(path), SQLiteStore(path)
    prefix = "/registry/rbac.authorization.k8s.io/"

    def first_look():
        fresh = SQLiteStore(path)
        try:
            return fresh.prefix_version(prefix)
        finally:
            fresh.close()

    steps = [
        (True, lambda: store.create(prefix + "roles/default/a", b"1")),
        (False, lambda: store.create("/registry/pods/default/p", b"1")),
        (False, lambda: store.create("/registry/rbac.authorization.k8s.io-not/x", b"1")),
        (True, lambda: other.update(prefix + "roles/default/a", b"2", None)),  # another process
        (True, lambda: store.delete(prefix + "roles/default/a")),
        (False, lambda: [store.create(f"/registry/pods/default/q{i}", b"1") for i in range(20)]),
        (True, lambda: store.create(prefix + "roles/default/b", b"1")),
        (True, lambda: store.compact(store.current_revision())),
        (True, lambda: other.create(prefix + "roles/default/c", b"1")),
    ]
    try:
        seen = store.prefix_version(prefix)
        for moves, step in steps:
            step()
            now = store.prefix_version(prefix)
            assert now == first_look()
            assert (now != seen) == moves
            seen = now
    finally:
        store.close()
        other.close()


def test_prefix_version_inside_a_block_that_rolls_back_is_not_kept(tmp_path):
    # The block's revisions are given back: a look taken inside it must not hide the write that
    # takes one of them again.
    store = SQLiteStore(tmp_path / "state.db")
    prefix = "/registry/rbac.authorization.k8s.io/"
    try:
        before = store.prefix_version(prefix)
        with pytest.raises(RuntimeError):
            with store.durable_at_end():
                store.create(prefix + "roles/default/a", b"1")
                assert store.prefix_version(prefix) != before
                raise RuntimeError("rolled back")
        assert store.prefix_version(prefix) == before
        store.create(prefix + "roles/default/b", b"1")  # takes the revision the block gave back
        assert store.prefix_version(prefix) != before
    finally:
        store.close()
