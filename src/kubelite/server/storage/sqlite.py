"""SQLiteStore: the contract on one SQLite file in WAL mode (the embedded default).

The file holds an append-only ``log`` (one row per write, the revision is its
primary key, like kine's table), a ``live`` index (key -> revision of its
current row) for fast current reads, and ``meta`` (current and compacted
revisions). Each write is one ``BEGIN IMMEDIATE`` transaction that checks its
precondition, takes the next revision and appends the row, so several processes
can share the file and still get one serializable sequence of revisions.

Commits do not wait for the disk (``synchronous=NORMAL``: a crash of the process loses nothing,
the log is in the operating system's hands); ``durable()`` does, and the API server calls it
before it answers a client's write. Writes that end together share one fsync of the log (a group
commit, as etcd batches its log's syncs) and no thread holds the write lock while it waits. An
event loop's writes wait without blocking (``when_durable(callback, loop)``): a child process
syncs the log for them, asked and answered through pipes the loop watches.

Watchers are fed by one poller thread per store that reads log rows above the
last revision it dispatched: writes from this process wake it at once, writes
from other processes are seen within ``poll_interval``.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import threading

from .base import KV, Event, EventType, RangeResult, Store
from .errors import (
    Compacted,
    Conflict,
    FutureRevision,
    KeyExists,
    NotFound,
    StorageError,
    StoreClosed,
)
from .keys import (
    check_key,
    check_limit,
    check_prefix,
    check_revision,
    check_start_after,
    check_value,
    prefix_end,
    range_start,
)
from .watch import Watcher

TYPE_CHECKING = False  # typing for annotations only: a short command's start does without it
if TYPE_CHECKING:
    from typing import Iterator

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS log (
    revision INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    create_revision INTEGER NOT NULL,
    prev_revision INTEGER NOT NULL,   -- 0 when the write created the key
    deleted INTEGER NOT NULL,         -- 1 for a delete (its value lives in prev)
    value BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS log_key_revision ON log (key, revision);
CREATE TABLE IF NOT EXISTS live (
    key TEXT PRIMARY KEY,
    revision INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO meta VALUES ('schema_version', 1);
INSERT OR IGNORE INTO meta VALUES ('revision', 1);
INSERT OR IGNORE INTO meta VALUES ('compact_revision', 0);
"""

_CURRENT_ROW = (
    "SELECT l.create_revision, l.revision, l.value FROM live "
    "JOIN log l ON l.revision = live.revision WHERE live.key = ?"
)

# A write with the row it replaced (NULLs for a creation).
_EVENT_ROWS = (
    "SELECT l.revision, l.key, l.create_revision, l.prev_revision, l.deleted, l.value, "
    "p.create_revision, p.value FROM log l LEFT JOIN log p ON p.revision = l.prev_revision "
    "WHERE l.revision > ?{where} ORDER BY l.revision{limit}"
)

_POLL_BATCH = 500

# prefix_version's read: (compaction point, current revision, latest revision under the prefix).
_PREFIX_VERSION = (
    "SELECT (SELECT value FROM meta WHERE name = 'compact_revision'), "
    "(SELECT value FROM meta WHERE name = 'revision'), "
    "(SELECT MAX(revision) FROM log WHERE {where})"
)
_PREFIX_SCAN = 1024  # rows since the last look beyond which the prefix's own entries are read instead
_PREFIXES_KEPT = 64


class SQLiteStore(Store):
    shared = True

    def __init__(self, path: str | os.PathLike, *, poll_interval: float = 0.025):
        self.path = os.fspath(path)
        self.poll_interval = poll_interval
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        # Threads of this process queue here rather than in SQLite's sleeping busy handler.
        self._write_lock = threading.Lock()
        self._committed = 0  # write transactions this process has committed
        self._syncs = _LogSyncs(self.path + "-wal", lambda: self._committed, self._storage_error)
        self._closed = False
        self._poller = _Poller(self)
        self._errors = _SQLiteErrors(self)
        # prefix_version's last look per prefix: (SQL for the rows since, its key bounds,
        # compaction point, latest revision under the prefix, revision it was read at).
        self._prefix_versions: dict[str, tuple] = {}
        parent = os.path.dirname(os.path.abspath(self.path))
        try:
            os.makedirs(parent, exist_ok=True)
        except OSError as err:
            raise StorageError(f"cannot create directory {parent}: {err}") from None
        try:
            from kubelite.server.private import private_database

            private_database(self.path)  # it holds every Secret: readable by its owner only
        except OSError as err:
            raise StorageError(f"cannot create {self.path}: {err}") from None
        self._initialize()

    # -- connections and transactions ----------------------------------------------

    def _initialize(self) -> None:
        conn = self._conn()
        if self._ready(conn):
            return
        with self._sqlite_errors():
            # Pages compaction frees go back to the file system (takes effect in a new database).
            conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
            mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise StorageError(f"{self.path}: cannot switch SQLite to WAL mode (got {mode})")
        with self._transaction(write=True) as conn:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            version = self._meta(conn, "schema_version")
            if version != SCHEMA_VERSION:
                raise StorageError(
                    f"{self.path}: storage schema version {version} is not supported "
                    f"(this kubelite reads version {SCHEMA_VERSION})"
                )

    @staticmethod
    def _ready(conn: sqlite3.Connection) -> bool:
        """Whether the file already is a WAL database of this schema version: two reads. Every
        command of the embedded cluster opens the store; the schema's write transaction took the
        write lock (waiting behind another process's writes) and left a commit for close() to
        fsync, though it changed nothing."""
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                return False
            row = conn.execute("SELECT value FROM meta WHERE name = 'schema_version'").fetchone()
        except sqlite3.Error:  # no meta table yet (a new file), or not a database: the full path says
            return False
        return row is not None and row[0] == SCHEMA_VERSION

    def _conn(self) -> sqlite3.Connection:
        if self._closed:
            raise StoreClosed()
        conn = getattr(self._local, "conn", None)
        if conn is None:
            with self._sqlite_errors():
                conn = sqlite3.connect(
                    self.path, timeout=60, isolation_level=None, check_same_thread=False
                )
                conn.execute("PRAGMA synchronous=NORMAL")  # durable() syncs the log
                # a WAL reset by a checkpoint is cut back to this size instead of staying at its peak
                conn.execute(f"PRAGMA journal_size_limit={_WAL_SIZE_LIMIT}")
            with self._connections_lock:
                if self._closed:
                    conn.close()
                    raise StoreClosed()
                self._connections.append(conn)
            self._local.conn = conn
        return conn

    def _sqlite_errors(self) -> _SQLiteErrors:
        return self._errors

    def _raise(self, err: sqlite3.Error) -> None:
        if self._closed:
            raise StoreClosed() from None
        raise StorageError(f"{self.path}: {err}") from err

    def _transaction(self, *, write: bool = False) -> _Transaction:
        """A read snapshot, or an exclusive write transaction, committed on success."""
        return _Transaction(self, write)

    @contextlib.contextmanager
    def durable_at_end(self) -> Iterator[None]:
        # One transaction for the whole block: one commit and one fsync of the log, rather than a
        # BEGIN and a COMMIT per write and per read (a first start's 113 policy objects: 75 ms
        # -> 43 ms median here). Other threads' writes wait for it, as for any write transaction.
        conn = self._conn()
        with self._write_lock:
            with self._sqlite_errors():
                conn.execute("BEGIN IMMEDIATE")
            self._local.block = True
            try:
                yield
            except BaseException:
                self._local.block = False
                with self._sqlite_errors():
                    conn.execute("ROLLBACK")
                raise
            self._local.block = False
            with self._sqlite_errors():
                conn.execute("COMMIT")
            self._committed += 1
        self._poller.written()
        self.durable()

    def durable(self) -> None:
        """Return when every write this process committed so far is on disk."""
        with self._sqlite_errors():
            self._syncs.sync_through(self._committed)

    def unsynced(self) -> bool:
        return self._syncs.synced < self._committed

    def prepare_when_durable(self, loop) -> None:
        # The child process's start (~12 ms of CPU) at a loop's first storage request, usually a
        # read: the first write's sync is the syncer thread's until the process is ready anyway,
        # but a first write beside that start took ~15 ms longer on a loaded 2-core machine.
        self._syncs.prepare(loop)

    def when_durable(self, callback, loop=None) -> None:
        if loop is None:
            self._syncs.then(self._committed, callback)
        else:
            self._syncs.on_loop(loop, self._committed, callback)

    def _storage_error(self, err: sqlite3.Error | OSError) -> StorageError:
        return StoreClosed() if self._closed else StorageError(f"{self.path}: {err}")

    @staticmethod
    def _meta(conn: sqlite3.Connection, name: str) -> int:
        return conn.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()[0]

    # -- marks: in the meta table, named "mark.<name>" ---------------------------------

    def marks(self, *names: str) -> tuple[int | None, ...]:
        keys = [f"mark.{name}" for name in names]
        with self._sqlite_errors():
            rows = dict(self._conn().execute(
                f"SELECT name, value FROM meta WHERE name IN ({', '.join('?' * len(keys))})", keys).fetchall())
        return tuple(rows.get(key) for key in keys)

    def set_marks(self, **values: int) -> None:
        rows = [(f"mark.{name}", int(value)) for name, value in values.items()]
        # A hint, not data: nobody waits for the disk for it (a crash may lose it, and the reader
        # then does what it would do without it); the next durable() syncs it with the rest.
        with self._transaction(write=True) as conn:
            conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", rows)

    # -- reads ------------------------------------------------------------------------

    def get(self, key: str) -> KV | None:
        check_key(key)
        conn = self._conn()
        with self._sqlite_errors():
            row = conn.execute(_CURRENT_ROW, (key,)).fetchone()
        return None if row is None else KV(key, row[2], row[0], row[1])

    def current_revision(self) -> int:
        with self._sqlite_errors():
            return self._meta(self._conn(), "revision")

    def compact_revision(self) -> int:
        with self._sqlite_errors():
            return self._meta(self._conn(), "compact_revision")

    def prefix_version(self, prefix: str) -> object:
        """(compaction point, latest revision written under the prefix): a write under the prefix
        (a delete too: it appends a row) raises the second, and only a compaction removes rows,
        which moves the first.
        The first look at a prefix reads the MAX over its index entries (every row of its
        history: RBAC's hundred-odd roles and bindings took 14 us); later ones read only the
        rows written since the last look, by revision, which between two requests is a few
        (rows are only appended until a compaction, which moves the first number anyway)."""
        known = self._prefix_versions.get(prefix) if prefix.__class__ is str else None
        if known is None or getattr(self._local, "block", False):
            return self._read_prefix_version(prefix)
        since, params, compacted, latest, checked = known
        with self._sqlite_errors():
            now_compacted, current, newer = self._conn().execute(since, (checked, checked, *params)).fetchone()
        if now_compacted != compacted or current > checked + _PREFIX_SCAN:
            return self._read_prefix_version(prefix)
        if newer is not None:
            latest = newer
        if current > checked:
            self._prefix_versions[prefix] = (since, params, compacted, latest, current)
        return compacted, latest

    def _read_prefix_version(self, prefix: str) -> tuple:
        check_prefix(prefix)
        where, params = _key_bounds("key", prefix, None)
        with self._sqlite_errors():
            compacted, current, latest = self._conn().execute(
                _PREFIX_VERSION.format(where=f"1{where}"), params).fetchone()
        # Not inside durable_at_end's transaction: its revisions are not committed yet, and one
        # rolled back would be taken again by a write this would then never look at.
        if not getattr(self._local, "block", False):
            if len(self._prefix_versions) >= _PREFIXES_KEPT:
                self._prefix_versions.clear()
            # "+key": by revision (the rows since), not along the prefix's index entries.
            since = _PREFIX_VERSION.format(
                where=f"revision > ? AND revision <= ? + {_PREFIX_SCAN}{_key_bounds('+key', prefix, None)[0]}")
            self._prefix_versions[prefix] = (since, tuple(params), compacted, latest, current)
        return compacted, latest

    def range(self, prefix, *, start_after=None, limit=0, revision=0) -> RangeResult:
        check_prefix(prefix)
        check_start_after(start_after)
        check_limit(limit)
        check_revision("revision", revision)
        with self._transaction() as conn:
            current = self._meta(conn, "revision")
            at = current if revision == 0 else revision
            if at > current:
                raise FutureRevision(at, current)
            compacted = self._meta(conn, "compact_revision")
            if at < compacted:
                raise Compacted(at, compacted)
            fetch = limit + 1 if limit else 0
            if at == current:
                rows = self._live_rows(conn, prefix, start_after, fetch)
            else:
                rows = self._rows_at(conn, at, prefix, start_after, fetch)
        more = bool(limit) and len(rows) > limit
        kvs = [KV(r[0], r[3], r[1], r[2]) for r in (rows[:limit] if more else rows)]
        return RangeResult(kvs, more, at)

    def revisions(self, prefix: str) -> list[tuple[str, int]]:
        check_prefix(prefix)
        where, params = _key_bounds("key", prefix, None)
        with self._sqlite_errors():
            return self._conn().execute(
                f"SELECT key, revision FROM live WHERE 1{where} ORDER BY key", params).fetchall()

    def count(self, prefix: str, *, start_after: str | None = None, revision: int = 0) -> int:
        check_prefix(prefix)
        check_start_after(start_after)
        check_revision("revision", revision)
        with self._transaction() as conn:
            current = self._meta(conn, "revision")
            if revision in (0, current):
                where, params = _key_bounds("key", prefix, start_after)
                return conn.execute(f"SELECT COUNT(*) FROM live WHERE 1{where}", params).fetchone()[0]
        # An older revision: as the range at that revision (which also checks compaction).
        return super().count(prefix, start_after=start_after, revision=revision)

    @staticmethod
    def _live_rows(conn, prefix, start_after, limit) -> list[tuple]:
        where, params = _key_bounds("live.key", prefix, start_after)
        sql = (
            "SELECT live.key, l.create_revision, l.revision, l.value FROM live "
            f"JOIN log l ON l.revision = live.revision WHERE 1{where} ORDER BY live.key"
        )
        return conn.execute(sql + (f" LIMIT {limit}" if limit else ""), params).fetchall()

    @staticmethod
    def _rows_at(conn, revision, prefix, start_after, limit) -> list[tuple]:
        """Each key's latest row at or below ``revision``, unless that row is a delete."""
        where, params = _key_bounds("key", prefix, start_after)
        sql = (
            "SELECT l.key, l.create_revision, l.revision, l.value FROM "
            "(SELECT key, MAX(revision) AS revision FROM log "
            f"WHERE revision <= ?{where} GROUP BY key) m "
            "JOIN log l ON l.revision = m.revision WHERE l.deleted = 0 ORDER BY l.key"
        )
        return conn.execute(sql + (f" LIMIT {limit}" if limit else ""), (revision, *params)).fetchall()

    # -- writes -------------------------------------------------------------------------

    def create(self, key: str, value: bytes) -> KV:
        check_key(key)
        value = check_value(value)
        with self._transaction(write=True) as conn:
            revision = self._next_revision(conn)
            # The live table's primary key refuses an existing key: no look for it first. Its
            # row is read only then, in this transaction, which the error rolls back.
            if not conn.execute("INSERT OR IGNORE INTO live VALUES (?, ?)", (key, revision)).rowcount:
                raise KeyExists(key, self._current(conn, key))
            conn.execute(
                "INSERT INTO log VALUES (?, ?, ?, 0, 0, ?)", (revision, key, revision, value)
            )
        kv = KV(key, value, revision, revision)
        self._poller.written(EventType.ADDED, kv, None)
        return kv

    def update(self, key: str, value: bytes, expected_mod_revision: int | None) -> KV:
        check_key(key)
        value = check_value(value)
        check_revision("expected_mod_revision", expected_mod_revision, optional=True)
        with self._transaction(write=True) as conn:
            current = self._expect(conn, key, expected_mod_revision)
            revision = self._next_revision(conn)
            conn.execute(
                "INSERT INTO log VALUES (?, ?, ?, ?, 0, ?)",
                (revision, key, current.create_revision, current.mod_revision, value),
            )
            conn.execute("UPDATE live SET revision = ? WHERE key = ?", (revision, key))
        kv = KV(key, value, current.create_revision, revision)
        self._poller.written(EventType.MODIFIED, kv, current)
        return kv

    def delete(self, key: str, expected_mod_revision: int | None = None) -> KV:
        check_key(key)
        check_revision("expected_mod_revision", expected_mod_revision, optional=True)
        with self._transaction(write=True) as conn:
            current = self._expect(conn, key, expected_mod_revision)
            revision = self._next_revision(conn)
            conn.execute(
                "INSERT INTO log VALUES (?, ?, ?, ?, 1, x'')",
                (revision, key, current.create_revision, current.mod_revision),
            )
            conn.execute("DELETE FROM live WHERE key = ?", (key,))
        kv = KV(key, current.value, current.create_revision, revision)
        self._poller.written(EventType.DELETED, kv, current)
        return kv

    def _current(self, conn: sqlite3.Connection, key: str) -> KV | None:
        row = conn.execute(_CURRENT_ROW, (key,)).fetchone()
        return None if row is None else KV(key, row[2], row[0], row[1])

    def _expect(self, conn: sqlite3.Connection, key: str, expected: int | None) -> KV:
        current = self._current(conn, key)
        if current is None:
            raise NotFound(key)
        if expected is not None and current.mod_revision != expected:
            raise Conflict(key, expected, current)
        return current

    @staticmethod
    def _next_revision(conn: sqlite3.Connection) -> int:
        return conn.execute(
            "UPDATE meta SET value = value + 1 WHERE name = 'revision' RETURNING value").fetchone()[0]

    # -- watch and compaction ---------------------------------------------------------

    def sync_watchers(self) -> None:
        self._poller.catch_up()

    def watch(self, prefix: str, from_revision: int = 0) -> Watcher:
        check_prefix(prefix)
        check_revision("from_revision", from_revision)
        return self._poller.subscribe(prefix, from_revision)

    def _events_after(
        self, conn: sqlite3.Connection, revision: int, *, prefix: str = "", upto: int = 0,
        limit: int = 0,
    ) -> list[Event]:
        where, params = _key_bounds("l.key", prefix, None)
        if upto:
            where += " AND l.revision <= ?"
            params.append(upto)
        sql = _EVENT_ROWS.format(where=where, limit=f" LIMIT {limit}" if limit else "")
        return [_event(row) for row in conn.execute(sql, (revision, *params))]

    def compact(self, revision: int) -> None:
        check_revision("revision", revision)
        # Our watchers must have read the rows this compaction removes.
        self._poller.catch_up()
        with self._transaction(write=True) as conn:
            compacted = self._meta(conn, "compact_revision")
            if revision <= compacted:
                raise Compacted(revision, compacted)
            current = self._meta(conn, "revision")
            if revision > current:
                raise FutureRevision(revision, current)
            # Keep, per key, only its latest row at or below the revision, unless that
            # row is a delete: that is the state as of the revision, and the prev row
            # of every later write.
            conn.execute(
                "DELETE FROM log WHERE revision <= :rev AND (deleted = 1 OR revision < "
                "(SELECT MAX(m.revision) FROM log m WHERE m.key = log.key AND m.revision <= :rev))",
                {"rev": revision},
            )
            conn.execute(
                "UPDATE meta SET value = ? WHERE name = 'compact_revision'", (revision,)
            )
        self._reclaim()

    def _reclaim(self) -> None:
        """Return the pages compaction freed to the file system and checkpoint the WAL, in short
        steps that never hold the write lock for long (requests go on in between)."""
        with self._sqlite_errors():
            conn = self._conn()
            while conn.execute("PRAGMA freelist_count").fetchone()[0] > 0:
                with self._transaction(write=True) as step:
                    before = step.execute("PRAGMA freelist_count").fetchone()[0]
                    step.execute(f"PRAGMA incremental_vacuum({_VACUUM_STEP})").fetchall()
                    if step.execute("PRAGMA freelist_count").fetchone()[0] >= before:
                        break  # not an incremental-vacuum database (made by an older kubelite)
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def close(self) -> None:
        if self._closed:
            return
        with contextlib.suppress(StorageError):
            self.durable()  # the controllers' writes, which nobody waited for
        self._syncs.stop(StoreClosed())
        self._poller.stop()
        self._closed = True
        with self._connections_lock:
            connections, self._connections = self._connections, []
        for conn in connections:
            with contextlib.suppress(sqlite3.Error):
                conn.close()


class _SQLiteErrors:
    """SQLiteStore._sqlite_errors: SQLite's errors as StorageError (StoreClosed once closed). One
    instance per store (it keeps no state): a generator context manager cost each read a
    microsecond, an eighth of a get."""

    __slots__ = ("_store",)

    def __init__(self, store: SQLiteStore):
        self._store = store

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, error, trace) -> None:
        if isinstance(error, sqlite3.Error):
            self._store._raise(error)


class _Transaction:
    """SQLiteStore._transaction: a class rather than a generator context manager, which cost
    every read and write three microseconds more (a twentieth of a create). Inside
    durable_at_end's transaction reads see it as it is, and a write is a savepoint, so that one
    that fails (an existing key, a conflict) undoes itself alone."""

    __slots__ = ("_store", "_write", "_conn", "_nested", "_locked")

    def __init__(self, store: SQLiteStore, write: bool):
        self._store = store
        self._write = write

    def __enter__(self) -> sqlite3.Connection:
        store = self._store
        conn = self._conn = store._conn()
        self._nested = getattr(store._local, "block", False)
        self._locked = False
        if self._nested:
            if self._write:
                self._run("SAVEPOINT kubelite_write")
            return conn
        if self._write:
            store._write_lock.acquire()
            self._locked = True
        try:
            conn.execute("BEGIN IMMEDIATE" if self._write else "BEGIN")
        except BaseException as err:
            self._release()
            self._raise(err)
        return conn

    def __exit__(self, kind, error, trace) -> None:
        try:
            if self._nested:
                if not self._write:
                    return
                if kind is not None:
                    self._run("ROLLBACK TO kubelite_write")
                self._run("RELEASE kubelite_write")
            else:
                try:
                    self._conn.execute("ROLLBACK" if kind is not None else "COMMIT")
                except BaseException as err:
                    self._raise(err)
                if kind is None and self._write:
                    self._store._committed += 1
        finally:
            self._release()
        if isinstance(error, sqlite3.Error):
            self._raise(error)

    def _run(self, statement: str) -> None:
        try:
            self._conn.execute(statement)
        except sqlite3.Error as err:
            self._raise(err)

    def _release(self) -> None:
        if self._locked:
            self._locked = False
            self._store._write_lock.release()

    def _raise(self, err: BaseException) -> None:
        if not isinstance(err, sqlite3.Error):
            raise err
        self._store._raise(err)


class _LogSyncs:
    """fsyncs of SQLite's write-ahead log, one at a time: a thread that needs commit N on disk
    waits for a sync begun after N was committed, and one sync serves every commit before it.
    `committed()` is the count of commits made so far; `error(err)` the exception a failed sync's
    OSError (or SQLite error) is reported as."""

    def __init__(self, path: str, committed, error):
        self.path = path
        self.committed = committed
        self.error = error
        self._state = threading.Condition()
        self._synced = 0    # every commit up to this count is on disk
        self._running = False
        # when_durable's callbacks, (commit count, callback), and the thread that syncs for them:
        # one sync and one wakeup per waiter serve every write that ended meanwhile, where a thread
        # per write waiting in sync_through took a switch to it and back for each.
        self._waiting: list[tuple[int, object]] = []
        self._syncer: threading.Thread | None = None
        self._stopped: BaseException | None = None
        # on_loop's child process, and whether one could not be started (or ended: the thread then)
        self._loop_syncs: _LoopSyncs | None = None
        self._no_process = False

    @property
    def synced(self) -> int:
        """The count of commits known on disk (read without the lock: it only grows)."""
        return self._synced

    def sync_through(self, wanted: int) -> None:
        with self._state:
            while self._synced < wanted:
                if self._running:
                    self._state.wait()
                    continue
                self._running = True
                target = self.committed()  # everything committed by now goes with this sync
                self._state.release()
                try:
                    self._fsync()
                finally:
                    self._state.acquire()
                    self._running = False
                    self._state.notify_all()
                self._synced = max(self._synced, target)

    def then(self, wanted: int, callback) -> None:
        """callback(None) once commit `wanted` is on disk, at once if it is, else on the syncer
        thread; callback(exception) if the sync fails or the store closes first."""
        with self._state:
            stopped = self._stopped
            if stopped is None and self._synced < wanted:
                self._waiting.append((wanted, callback))
                if self._syncer is None:
                    self._syncer = threading.Thread(target=self._sync_waiting,
                                                    name="kubelite-log-sync", daemon=True)
                    self._syncer.start()
                elif len(self._waiting) == 1:
                    self._state.notify_all()
                return
        callback(stopped)

    def on_loop(self, loop, wanted: int, callback) -> None:
        """then() for the event loop running on this thread: callback(None or the exception) is
        called on it, and the sync is a child process's (_LoopSyncs), or the syncer thread's when
        none can be had (none could be started, or another loop, still open, has it)."""
        if self._synced >= wanted or self._stopped is not None:
            callback(self._stopped)
            return
        syncs = self._loop_syncs
        if syncs is None or syncs.loop is not loop:
            syncs = self._loop_syncs_for(loop)
        if syncs is None:
            self.by_thread(loop, wanted, callback)
        else:
            syncs.wait(wanted, callback)

    def prepare(self, loop) -> None:
        """The child process of on_loop(loop, ...) started, unless it is or none can be had
        (cheap once done: every storage request on the loop asks)."""
        syncs = self._loop_syncs
        if (syncs is None or syncs.loop is not loop) and self._stopped is None and not self._no_process:
            self._loop_syncs_for(loop)

    def by_thread(self, loop, wanted: int, callback) -> None:
        """then(), the callback called on `loop`'s thread."""
        self.then(wanted, lambda failure: loop.call_soon_threadsafe(callback, failure))

    def _loop_syncs_for(self, loop) -> _LoopSyncs | None:
        with self._state:
            syncs = self._loop_syncs
            if syncs is not None:
                if not syncs.loop.is_closed():
                    return None
                syncs.move_to(loop)  # a loop after another (asyncio.run's): the same process
                return syncs
            if self._no_process or self._stopped is not None:
                return None
            try:
                self._loop_syncs = _LoopSyncs(self, loop)
            except (OSError, ValueError, _subprocess().SubprocessError):
                self._no_process = True
            return self._loop_syncs

    def synced_through(self, target: int) -> None:
        """A sync begun once `target` commits were made has ended (the child process's)."""
        with self._state:
            if target > self._synced:
                self._synced = target

    def process_ended(self, syncs: _LoopSyncs) -> None:
        """The child process is gone: the syncer thread from now on."""
        with self._state:
            if self._loop_syncs is syncs:
                self._loop_syncs = None
                self._no_process = True

    def stop(self, reason: BaseException) -> None:
        """No more syncs for when_durable: its waiters get `reason` (the store closed)."""
        with self._state:
            self._stopped = reason
            waiting, self._waiting = self._waiting, []
            loop_syncs, self._loop_syncs = self._loop_syncs, None
            self._state.notify_all()
        for _, callback in waiting:
            callback(reason)
        if loop_syncs is not None:
            loop_syncs.stop(reason)

    def _sync_waiting(self) -> None:
        while True:
            with self._state:
                while not self._waiting and self._stopped is None:
                    self._state.wait()
                if self._stopped is not None:
                    return
                wanted = max(count for count, _ in self._waiting)
            failure = None
            try:
                self.sync_through(wanted)
            except (OSError, sqlite3.Error) as err:
                failure = self.error(err)
            with self._state:
                waiting, self._waiting = self._waiting, []
                for entry in waiting:
                    if failure is None and entry[0] > self._synced:
                        self._waiting.append(entry)  # committed after this sync began
            for count, callback in waiting:
                if failure is not None or count <= self._synced:
                    callback(failure)

    def _fsync(self) -> None:
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return  # no log: the last connection checkpointed it into the database, synced
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# The child process of _LoopSyncs: "ready" once started, then one fsync of the log per request
# read, answered "ok" or with the OS error's number and text. Only the interpreter's built-in
# modules (-I -S: no site, no environment), SIGINT ignored (a terminal's ^C is the server's to
# handle; it closes the pipe).
_SYNC_PROCESS = r"""
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
path = sys.argv[1]
os.write(1, b"ready\n")
while os.read(0, 512):
    try:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        answer = b"ok"
    except FileNotFoundError:
        answer = b"ok"  # no log: the last connection checkpointed it into the database, synced
    except OSError as err:
        answer = b"%d %s" % (err.errno or 0, (err.strerror or str(err)).encode())
    os.write(1, answer + b"\n")
"""


class _LoopSyncs:
    """The syncs an event loop's writes wait for, done by a child process: the loop writes a
    byte down one pipe when a write needs the disk and no sync is under way, and reads the
    answer from the other among its sockets. A syncer thread woke three times a sync (asked,
    back from the fsync, waking the loop) and each time took the interpreter from the loop:
    loop CPU per create ~85 us more, and ~45 us of the thread's own (Secret creates from 4
    threads against serve). One sync at a time; it serves every write committed before it
    was asked for, and the writes that end meanwhile wait for the next one."""

    def __init__(self, syncs: _LogSyncs, loop):
        self._syncs = syncs
        self.loop = loop
        subprocess = _subprocess()
        self._process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _SYNC_PROCESS, os.path.abspath(syncs.path)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True)
        self._ask = self._process.stdin.fileno()
        self._answers = self._process.stdout.fileno()
        os.set_blocking(self._answers, False)
        self._asked_at = 0  # the commit count the sync under way was asked at, 0 when none is
        # Until the process says it is ready (its interpreter's start, 10-20 ms), the syncer
        # thread syncs: a fresh server's first write does not wait for that start.
        self._ready = False
        self._waiting: list[tuple[int, object]] = []  # (commit count, callback)
        self._stopped: BaseException | None = None
        self._ended = False
        loop.add_reader(self._answers, self._answered)

    def move_to(self, loop) -> None:
        """Serve `loop` now; the last one is closed (the waits of its writes went with it)."""
        self.loop = loop
        self._waiting = []
        loop.add_reader(self._answers, self._answered)

    def wait(self, wanted: int, callback) -> None:
        if not self._ready:
            self._syncs.by_thread(self.loop, wanted, callback)
            return
        self._waiting.append((wanted, callback))
        if not self._asked_at:
            self._ask_for_sync()

    def _ask_for_sync(self) -> None:
        self._asked_at = self._syncs.committed()
        try:
            os.write(self._ask, b"s")
        except OSError:  # the process is gone (its answer pipe says so too)
            self._gone()

    def _answered(self) -> None:
        try:
            answer = os.read(self._answers, 512)
        except BlockingIOError:
            return
        except OSError:
            answer = b""
        if not answer.endswith(b"\n"):  # the end of the pipe (answers are a few bytes, whole)
            self._gone()
            return
        if not self._ready:  # nothing is asked before: this is all it said
            self._ready = answer == b"ready\n"
            if not self._ready:
                self._gone()
            return
        asked_at, self._asked_at = self._asked_at, 0
        failure = None
        if answer == b"ok\n":
            self._syncs.synced_through(asked_at)
            done = [entry for entry in self._waiting if entry[0] <= asked_at]
            self._waiting = [entry for entry in self._waiting if entry[0] > asked_at] \
                if len(done) < len(self._waiting) else []
        else:
            number, _, text = answer.decode(errors="replace").strip().partition(" ")
            failure = self._syncs.error(OSError(int(number) if number.isdigit() else 0, text))
            done, self._waiting = self._waiting, []
        if self._waiting:
            self._ask_for_sync()
        for _, callback in done:
            callback(failure)

    def _gone(self) -> None:
        """The process ended (or was stopped): its writes' waits go to the syncer thread, or get
        the store's closing."""
        self._end()
        self._syncs.process_ended(self)
        waiting, self._waiting = self._waiting, []
        for wanted, callback in waiting:
            if self._stopped is not None:
                callback(self._stopped)
            else:
                self._syncs.on_loop(self.loop, wanted, callback)

    def stop(self, reason: BaseException) -> None:
        """The store closed (on any thread): the waits get `reason`, on the loop's thread."""
        self._stopped = reason
        loop = self.loop
        if loop.is_closed():
            self._end()  # nobody waits on a closed loop
            return
        running = None
        with contextlib.suppress(RuntimeError):
            import asyncio

            running = asyncio.get_running_loop()
        if running is loop or not loop.is_running():
            self._gone()
            return
        try:
            loop.call_soon_threadsafe(self._gone)
        except RuntimeError:  # closed meanwhile
            self._end()

    def _end(self) -> None:
        if self._ended:
            return
        self._ended = True
        if not self.loop.is_closed():
            self.loop.remove_reader(self._answers)
        self._process.stdin.close()  # the process's end of the loop
        self._process.stdout.close()
        try:
            self._process.wait(1)  # its sync under way, at most
        except _subprocess().TimeoutExpired:
            self._process.kill()
            self._process.wait()


def _subprocess():
    """subprocess, imported once a loop's writes need the sync process: it brings locale, signal
    and selectors, which an embedded command opening the store does without."""
    import subprocess

    return subprocess


_WAL_SIZE_LIMIT = 4 * 1024 * 1024
_VACUUM_STEP = 2048  # pages per step of reclaiming: each step a short write transaction


class _Poller:
    """Reads new log rows and hands them to this store's watchers, in revision order."""

    def __init__(self, store: SQLiteStore):
        self._store = store
        self._lock = threading.Lock()  # guards watchers/last; held while dispatching
        self._wakeup = threading.Event()
        self._watchers: set[Watcher] = set()
        self._last: int | None = None  # last revision dispatched, None when idle
        self._thread: threading.Thread | None = None
        self._stopping = False

    def wake(self) -> None:
        self._wakeup.set()

    def written(self, kind: EventType | None = None, kv: KV | None = None, prev: KV | None = None) -> None:
        """After a write of this process: its rows go to the watchers on the writer's own thread
        when no one else is dispatching. Waking the poller's thread for them cost each write a
        switch to that thread and back (on a busy machine a twentieth of a create's time).
        A write that says what it wrote (kind, kv, prev: its event) and follows the last revision
        dispatched is handed over as it is: reading it back from the log cost the write a fifth
        of its time. Any other is read from the log with whatever else is new."""
        if not self._watchers or getattr(self._store._local, "block", False):
            return  # (inside durable_at_end's transaction nothing is committed yet: its end calls again)
        if not self._lock.acquire(blocking=False):
            self._wakeup.set()  # whoever holds it may have read before this write: poll again
            return
        try:
            if not self._watchers:
                return
            if kind is not None and kv.mod_revision == self._last + 1:
                # No other write came between (revisions have no gaps), so the log holds nothing
                # older for the watchers, nor can a compaction have passed what they were sent.
                event = Event(kind, kv, prev, kv.mod_revision)
                for watcher in list(self._watchers):
                    watcher.offer(event)
                self._last = kv.mod_revision
            elif kind is None or kv.mod_revision > self._last:
                self._poll_all()
        finally:
            self._lock.release()

    def _poll_all(self) -> None:
        try:
            while self._watchers and self._poll():
                pass
        except StorageError as err:
            self._fail_all(err)

    def subscribe(self, prefix: str, from_revision: int) -> Watcher:
        store = self._store
        with self._lock:
            if self._stopping:
                raise StoreClosed()
            with store._transaction() as conn:
                current = store._meta(conn, "revision")
                compacted = store._meta(conn, "compact_revision")
                if self._last is None:
                    self._last = current
                if from_revision == 0:
                    from_revision = current
                elif from_revision < compacted:
                    raise Compacted(from_revision, compacted)
                replay = []
                if from_revision < self._last:
                    replay = store._events_after(conn, from_revision, prefix=prefix, upto=self._last)
            watcher = Watcher(prefix, from_revision, self._unsubscribe)
            for event in replay:
                watcher.offer(event)
            self._watchers.add(watcher)
            self._start()
        self.wake()
        return watcher

    def catch_up(self) -> None:
        with self._lock:
            while self._watchers and self._poll():
                pass

    def _unsubscribe(self, watcher: Watcher) -> None:
        with self._lock:
            self._watchers.discard(watcher)
            if not self._watchers:
                self._last = None

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name=f"kubelite-storage-watch:{self._store.path}", daemon=True
            )
            self._thread.start()

    def _run(self) -> None:
        while not self._stopping:
            self._wakeup.wait(self._store.poll_interval if self._watchers else None)
            self._wakeup.clear()
            if self._stopping:
                return
            with self._lock:
                if not self._watchers:
                    continue
                try:
                    backlog = self._poll()
                except StorageError as err:
                    self._fail_all(err)
                    continue
            if backlog:
                self._wakeup.set()

    def _poll(self) -> bool:
        """Dispatch new rows; True if more are waiting."""
        store = self._store
        with store._transaction() as conn:
            compacted = store._meta(conn, "compact_revision")
            if compacted > self._last:
                # Another process compacted past rows we had not read yet: those may be gone.
                self._fail_all(Compacted(self._last, compacted))
                return False
            events = store._events_after(conn, self._last, limit=_POLL_BATCH)
        for event in events:
            for watcher in list(self._watchers):
                watcher.offer(event)
            self._last = event.revision
        return len(events) == _POLL_BATCH

    def _fail_all(self, error: StorageError) -> None:
        watchers, self._watchers = list(self._watchers), set()
        self._last = None
        for watcher in watchers:
            watcher._on_close = None  # we hold the lock; do not call back into _unsubscribe
            watcher.fail(error)

    def stop(self) -> None:
        with self._lock:
            self._stopping = True
            watchers, self._watchers = list(self._watchers), set()
            self._last = None
        self._wakeup.set()
        for watcher in watchers:
            watcher.close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)


def _key_bounds(column: str, prefix: str, start_after: str | None) -> tuple[str, list]:
    """SQL conditions (each starting with AND) selecting keys under prefix after start_after."""
    bound, inclusive = range_start(prefix, start_after)
    where, params = "", []
    if bound:
        where += f" AND {column} {'>=' if inclusive else '>'} ?"
        params.append(bound)
    end = prefix_end(prefix)
    if end is not None:
        where += f" AND {column} < ?"
        params.append(end)
    return where, params


def _event(row: tuple) -> Event:
    revision, key, create_revision, prev_revision, deleted, value, prev_create, prev_value = row
    prev = KV(key, prev_value, prev_create, prev_revision) if prev_revision else None
    if deleted:
        return Event(EventType.DELETED, KV(key, prev.value, create_revision, revision), prev, revision)
    kv = KV(key, value, create_revision, revision)
    return Event(EventType.MODIFIED if prev else EventType.ADDED, kv, prev, revision)
