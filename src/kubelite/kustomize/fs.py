"""File access for a build: a loader rooted at one kustomization directory.

Under the default restrictor (LoadRestrictionsRootOnly) a loader reads only files
in or below its root, after resolving symlinks, as Kustomize's file loader does.
"""
from __future__ import annotations

import os

from .errors import KustomizeError

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
ROOT_ONLY = "LoadRestrictionsRootOnly"
NONE = "LoadRestrictionsNone"


def _first_missing(path: str) -> tuple[str, str]:
    """The prefix of path where an lstat walk stops, and why (as Go's EvalSymlinks reports)."""
    parts = path.split("/")
    current = "/" if path.startswith("/") else ""
    for i, part in enumerate(parts):
        if not part:
            continue
        current = os.path.join(current, part) if current else part
        if not os.path.lexists(current):
            return current, "no such file or directory"
        if i < len(parts) - 1 and not os.path.isdir(current):
            return os.path.join(current, *[p for p in parts[i + 1:] if p][:1]), "not a directory"
    return path, "no such file or directory"


def eval_symlinks(path: str, shown: str | None = None) -> str:
    """filepath.EvalSymlinks; `shown` is the path the error names (default: path)."""
    if not os.path.lexists(path) or not os.path.exists(path):
        where, why = _first_missing(path)
        raise KustomizeError(f"evalsymlink failure on '{shown or path}' : lstat {where}: {why}")
    return os.path.realpath(path)


class Loader:
    def __init__(self, root: str, restrictor: str = ROOT_ONLY, visited: tuple = ()) -> None:
        self.root = root
        self.restrictor = restrictor
        self.visited = visited  # roots of the kustomizations on the way here (cycle detection)

    def abs(self, path: str) -> str:
        return os.path.normpath(os.path.join(self.root, path))

    def resolve(self, path: str) -> str:
        """The file `path` names, as the load restrictor allows it."""
        full = self.abs(path)
        if self.restrictor != ROOT_ONLY:
            return full
        real = eval_symlinks(full)
        if os.path.isdir(real):
            raise KustomizeError(f"'{real}' must resolve to a file")
        root = self.root.rstrip("/") + "/"
        if not real.startswith(root):
            raise KustomizeError(f"security; file '{full}' is not in or below '{self.root}'")
        return real

    def load_bytes(self, path: str) -> bytes:
        real = self.resolve(path)
        try:
            with open(real, "rb") as f:
                return f.read()
        except IsADirectoryError:
            raise KustomizeError(f"read {real}: is a directory") from None
        except OSError as exc:
            raise KustomizeError(f"open {real}: {(exc.strerror or str(exc)).lower()}") from None

    def load(self, path: str) -> str:
        """The text of a file named relative to the root."""
        return self.load_bytes(path).decode("utf-8", errors="replace")

    def new(self, path: str) -> "Loader":
        """A loader rooted at a subdirectory (a base, overlay or component)."""
        if not path:
            raise KustomizeError("new root cannot be empty")
        if os.path.isabs(path):
            raise KustomizeError(f"new root '{path}' cannot be absolute")
        full = self.abs(path)
        try:
            real = eval_symlinks(full)
        except KustomizeError as exc:
            raise KustomizeError(f"must build at directory: not a valid directory: {exc}") from None
        if not os.path.isdir(real):
            raise KustomizeError(f"must build at directory: '{real}': file is not directory")
        # bases may live outside the root under either restrictor; only cycles are refused
        for seen in (self.root, *reversed(self.visited)):
            if seen == real or seen.startswith(real.rstrip("/") + "/"):
                raise KustomizeError(f"cycle detected: candidate root '{real}' contains visited root '{seen}'")
        return Loader(real, self.restrictor, (*self.visited, self.root))


def find_kustomization(directory: str) -> str | None:
    found = [n for n in KUSTOMIZATION_FILES if os.path.isfile(os.path.join(directory, n))]
    if len(found) > 1:
        raise KustomizeError(f"Found multiple kustomization files under: {directory}\n")
    return found[0] if found else None
