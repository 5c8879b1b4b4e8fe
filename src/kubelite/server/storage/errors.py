"""Storage errors. The server maps them onto API statuses (409, 404, 410, 504...)."""

from __future__ import annotations

TYPE_CHECKING = False  # (typing's import: not at a short command's start)

if TYPE_CHECKING:
    from .base import KV


class StorageError(Exception):
    """Base of every error the storage layer raises on purpose."""


class KeyExists(StorageError):
    """create() found the key already present."""

    def __init__(self, key: str, current: "KV | None" = None):
        super().__init__(f"key already exists: {key}")
        self.key = key
        self.current = current


class NotFound(StorageError):
    """The key is absent (update/delete need it)."""

    def __init__(self, key: str):
        super().__init__(f"key not found: {key}")
        self.key = key


class Conflict(StorageError):
    """A compare-and-swap failed: the key's mod_revision is not the expected one."""

    def __init__(self, key: str, expected: int, current: "KV"):
        super().__init__(
            f"conflict on {key}: expected mod_revision {expected}, "
            f"current is {current.mod_revision}"
        )
        self.key = key
        self.expected = expected
        self.current = current


class Compacted(StorageError):
    """The requested revision's history was dropped by compact()."""

    def __init__(self, revision: int, compact_revision: int):
        super().__init__(
            f"required revision {revision} has been compacted "
            f"(compacted up to {compact_revision})"
        )
        self.revision = revision
        self.compact_revision = compact_revision


class FutureRevision(StorageError):
    """A read asked for a revision the store has not reached yet."""

    def __init__(self, revision: int, current_revision: int):
        super().__init__(
            f"required revision {revision} is in the future "
            f"(current revision is {current_revision})"
        )
        self.revision = revision
        self.current_revision = current_revision


class StoreClosed(StorageError):
    """The store (or the watcher) was used after close()."""

    def __init__(self, what: str = "store"):
        super().__init__(f"the {what} is closed")
