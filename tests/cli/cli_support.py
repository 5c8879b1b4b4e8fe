"""Running `kubelite` (and /usr/bin/kubectl) as subprocesses with an isolated HOME.

A plain module (not conftest) so test files can import it by a name no other test folder uses.
"""
from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

KUBECTL = "/usr/bin/kubectl"

_AGE = re.compile(r"\b\d+(s|m|h|d)(\d+(s|m|h))?\b")
_COLUMN_GAP = re.compile(r"(?<=\S)  +")


# When kubectl's own deadline ends a wait, client-go's reflector sometimes logs the ending watch
# (a race in its watch handler between the closed stream and the stop request, more likely on a
# busy machine): "very short watch" warnings, "Failed to watch ... context deadline exceeded"
# errors. Client-side noise, not something the server sent.
_REFLECTOR_LOG = re.compile(r"^[WE]\d{4} [\d:.]+ +\d+ reflector\.go:\d+\] .*\n", re.M)


def without_reflector_noise(stderr: str) -> str:
    return _REFLECTOR_LOG.sub("", stderr)


def without_ages(text: str) -> str:
    """Table output with its ages masked: two runs a second apart may print `9s` and `10s`, and
    the AGE column's width then shifts the padding around it, so gaps between columns are compared
    as gaps (indentation at the start of a line is kept)."""
    return _COLUMN_GAP.sub("  ", _AGE.sub("AGE", text))


class CLI:
    """A kubelite (or kubectl) command line with its environment; `run()` returns CompletedProcess."""

    def __init__(self, home: pathlib.Path, argv0: list[str], extra: list[str] = ()):
        self.home = home
        self.argv0 = argv0
        self.extra = list(extra)
        self.env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG",)}
        self.env.update(HOME=str(home), KUBELITE_HOME=str(home / "kubelite"))

    def run(self, *args: str, stdin: str | None = None, cwd: pathlib.Path | None = None):
        return subprocess.run(self.argv0 + list(args) + self.extra, input=stdin, capture_output=True, text=True,
                              env=self.env, cwd=cwd, timeout=60)


def kubelite_argv() -> list[str]:
    return [sys.executable, "-m", "kubelite"]
