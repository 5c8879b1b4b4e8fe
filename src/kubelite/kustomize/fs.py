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


def eval_symlinks(path: str) -> str:
    if not os.path.lexists(path):
        raise KustomizeError(f"evalsymlink failure on '{path}' : lstat {path}: no such file or directory")
    return os.path.realpath(path)


class Loader:
    def __init__(self, root: str, restrictor: str = ROOT_ONLY, visited: tuple = ()) -> None:
        self.root = root
        self.restrictor = restrictor
        self.visited = visited  # roots of the kustomizations on the way here (cycle detection)

    def abs(self, path: str) -> str:
        return os.path.normpath(os.path.join(self.root, path))

    def check_allowed(self, real: str) -> None:
        if self.restrictor == ROOT_ONLY:
            root = self.root.rstrip("/") + "/"
            if not (real + "/").startswith(root) and real != self.root:
                raise KustomizeError(f"security; file '{real}' is not in or below '{self.root}'")

    def load(self, path: str) -> str:
        """The text of a file named relative to the root."""
        real = eval_symlinks(self.abs(path))
        self.check_allowed(real)
        if os.path.isdir(real):
            raise KustomizeError(f"read {real}: is a directory")
        try:
            with open(real, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise KustomizeError(f"{exc.strerror}: {real}") from None
        return data.decode("utf-8", errors="replace")

    def load_bytes(self, path: str) -> bytes:
        real = eval_symlinks(self.abs(path))
        self.check_allowed(real)
        with open(real, "rb") as f:
            return f.read()

    def new(self, path: str) -> "Loader":
        """A loader rooted at a subdirectory (a base, overlay or component)."""
        real = eval_symlinks(self.abs(path))
        if not os.path.isdir(real):
            raise KustomizeError(f"'{real}' must resolve to a file")
        if self.restrictor == ROOT_ONLY:
            pass  # bases may live outside the root; only files are restricted
        for seen in (*self.visited, self.root):
            if seen == real or seen.startswith(real.rstrip("/") + "/"):
                raise KustomizeError(f"cycle detected: candidate root '{real}' contains visited root '{seen}'")
        return Loader(real, self.restrictor, (*self.visited, self.root))


def find_kustomization(directory: str) -> str | None:
    found = [n for n in KUSTOMIZATION_FILES if os.path.isfile(os.path.join(directory, n))]
    if len(found) > 1:
        raise KustomizeError(f"Found multiple kustomization files under: {directory}")
    return found[0] if found else None
