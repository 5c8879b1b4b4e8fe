"""The storage contract, modelled on etcd's MVCC key-value store.

One global revision counts every write. A fresh store is at revision 1 (as etcd
is), so the first write gets revision 2 and no object ever has resourceVersion
"0", which the API reserves for "any version". A key's ``mod_revision`` is the
revision of its last write and becomes the object's resourceVersion.

Compaction (``compact(c)``) forgets the changes made at or below ``c`` but keeps
the state as of ``c``: afterwards a range at a revision >= c still works, one
below c raises Compacted, and a watch needs ``from_revision >= c`` (it replays
the events strictly after ``from_revision``, each with its previous value).
"""

from __future__ import annotations

import abc
import contextlib
import enum

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .watch import Watcher


class _Frozen:
    """What @dataclass(frozen=True, slots=True) makes of a class, written out: the import of
    dataclasses (inspect, ast, dis) and the methods it compiles at every start were most of the
    cost of these three classes to a short command. Fields are the slots, in order."""

    __slots__ = ()

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"cannot delete field {name!r}")

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self):
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__qualname__}({fields})"

    def __reduce__(self):
        return type(self), self._values()


_set = object.__setattr__


class KV(_Frozen):
    __slots__ = ("key", "value", "create_revision", "mod_revision")
    key: str
    value: bytes
    create_revision: int
    mod_revision: int

    def __init__(self, key: str, value: bytes, create_revision: int, mod_revision: int):
        _set(self, "key", key)
        _set(self, "value", value)
        _set(self, "create_revision", create_revision)
        _set(self, "mod_revision", mod_revision)


class EventType(str, enum.Enum):
    ADDED = "ADDED"
    MODIFIED = "MODIFIED"
    DELETED = "DELETED"

    def __str__(self) -> str:
        return self.value


class Event(_Frozen):
    """One write seen by a watcher.

    For DELETED, ``kv`` is the last value of the key stamped with the delete's
    revision (what the API server sends as the deleted object) and ``prev_kv``
    is that value at its own mod_revision.
    """

    __slots__ = ("type", "kv", "prev_kv", "revision")
    type: EventType
    kv: KV
    prev_kv: KV | None
    revision: int

    def __init__(self, type: EventType, kv: KV, prev_kv: KV | None, revision: int):
        _set(self, "type", type)
        _set(self, "kv", kv)
        _set(self, "prev_kv", prev_kv)
        _set(self, "revision", revision)


class RangeResult(_Frozen):
    __slots__ = ("kvs", "more", "revision")
    kvs: list[KV]
    more: bool
    revision: int

    def __init__(self, kvs: list[KV], more: bool, revision: int):
        _set(self, "kvs", kvs)
        _set(self, "more", more)
        _set(self, "revision", revision)


class Store(abc.ABC):
    """A thread-safe, etcd-shaped key-value store. Every method is synchronous."""

    #: Whether other processes can open the same data (and so need leader election).
    shared = False
    #: Whether each call waits on the network (etcd): the API server then keeps store calls
    #: off its event loop, so that one round trip never holds up the other requests.
    remote = False

    @abc.abstractmethod
    def get(self, key: str) -> KV | None:
        """The current value of ``key``, or None."""

    @abc.abstractmethod
    def range(
        self,
        prefix: str,
        *,
        start_after: str | None = None,
        limit: int = 0,
        revision: int = 0,
    ) -> RangeResult:
        """Keys starting with ``prefix``, in lexicographic order, as of ``revision``.

        ``revision=0`` reads the current state. ``limit=0`` means no limit; with a
        limit, ``more`` says whether keys remain and the next page is read with
        ``start_after`` = the last key returned and ``revision`` = the result's
        revision. Raises Compacted below the compaction point and
        FutureRevision above the current revision.
        """

    def revisions(self, prefix: str) -> list[tuple[str, int]]:
        """(key, mod_revision) of every key under ``prefix`` now, in key order: for a reader that
        keeps what it derived from each value and reads again only the values that changed.
        Backends answer without reading the values where they can; this default ranges."""
        return [(kv.key, kv.mod_revision) for kv in self.range(prefix).kvs]

    def count(self, prefix: str, *, start_after: str | None = None, revision: int = 0) -> int:
        """How many keys ``range`` would return without a limit (a list's remainingItemCount).

        Backends answer without reading the values where they can; this default pages."""
        total, after = 0, start_after
        while True:
            page = self.range(prefix, start_after=after, limit=500, revision=revision)
            total += len(page.kvs)
            if not page.more or not page.kvs:
                return total
            after, revision = page.kvs[-1].key, page.revision

    @abc.abstractmethod
    def create(self, key: str, value: bytes) -> KV:
        """Create ``key``; KeyExists if it is present."""

    @abc.abstractmethod
    def update(self, key: str, value: bytes, expected_mod_revision: int | None) -> KV:
        """Replace the value if the key's mod_revision is the expected one.

        NotFound if absent, Conflict (with the current KV) on a mismatch.
        ``expected_mod_revision=None`` writes unconditionally.
        """

    @abc.abstractmethod
    def delete(self, key: str, expected_mod_revision: int | None = None) -> KV:
        """Delete ``key``; returns its last value stamped with the delete's revision."""

    @abc.abstractmethod
    def current_revision(self) -> int:
        """The revision of the latest write (1 on a fresh store)."""

    @abc.abstractmethod
    def compact_revision(self) -> int:
        """The revision of the last compaction (0 if never compacted)."""

    def prefix_version(self, prefix: str) -> object:
        """A value that is the same at two calls only if nothing under ``prefix`` was written in
        between: what a reader that keeps something it derived from those keys looks at before
        using it again (the RBAC policy at every request it decides). This default is the current
        revision, which any write moves; a backend may answer for the prefix alone."""
        return self.current_revision()

    @abc.abstractmethod
    def watch(self, prefix: str, from_revision: int = 0) -> "Watcher":
        """Events for keys under ``prefix`` strictly after ``from_revision``.

        ``from_revision=0`` means "from the current revision". Compacted if
        ``from_revision`` is below the compaction point.
        """

    def sync_watchers(self) -> None:
        """Hand every write committed so far to the watchers before returning.

        Backends that deliver events from another thread (SQLite's poller, etcd's watch stream)
        catch up here; a caller that has just written can then rely on its watchers having seen
        the write. Backends feed a watcher through ``Watcher.offer`` and end it with ``fail``."""

    def durable_at_end(self) -> "contextlib.AbstractContextManager[None]":
        """A block of writes, on this thread, that are on disk when the block ends rather than
        each at its commit: for the many small writes of a first start, which a crash inside the
        block only sends back to be written again at the next start. SQLite makes the block one
        transaction: other threads and processes see its writes when it ends, and none of them if
        it ends with an exception. Backends whose every commit is cheap to make durable (memory,
        etcd's own log) keep their behaviour."""
        return contextlib.nullcontext()

    def marks(self, *names: str) -> tuple[int | None, ...]:
        """Numbers kept beside the data, outside its revisions (None: never set): what the store's
        user notes about it, e.g. the revision the controllers last settled at. Writing one is no
        write to the data: no revision, no watch event. This default keeps them for the life of
        the object; SQLite keeps them in its file."""
        kept = self.__dict__.get("_kept_marks") or {}
        return tuple(kept.get(name) for name in names)

    def set_marks(self, **values: int) -> None:
        """Set marks (see `marks`). A hint for the next reader: a crash may lose the last ones."""
        self.__dict__.setdefault("_kept_marks", {}).update(values)

    def durable(self) -> None:
        """Return when every write this process has committed is on disk: the API server calls it
        before it answers a client's write. Backends whose commits are durable when they return
        (memory has no disk, etcd syncs its own log) have nothing to wait for."""

    def unsynced(self) -> bool:
        """Whether durable() might have anything to wait for: a commit not yet known on disk.
        Backends that override durable() override this too."""
        return False

    def prepare_when_durable(self, loop) -> None:
        """Ready when_durable(..., loop) ahead of the loop's first write (cheap once done)."""

    def when_durable(self, callback, loop=None) -> None:
        """durable() without blocking: callback(None), on whichever thread, once every write this
        process has committed so far is on disk; callback(exception) if that fails. An event
        loop waits on it without a thread of its own per write: with `loop` (the asyncio loop
        running on the calling thread), the callback is called on that loop's thread."""
        from .errors import StorageError

        try:
            self.durable()
        except StorageError as err:
            callback(err)
        else:
            callback(None)

    @abc.abstractmethod
    def compact(self, revision: int) -> None:
        """Drop the history at and below ``revision``, keeping the state as of it.

        Compacted if ``revision`` is not above the previous compaction point,
        FutureRevision if it is above the current revision.
        """

    @abc.abstractmethod
    def close(self) -> None:
        """Release resources and end every watcher. Idempotent."""

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
