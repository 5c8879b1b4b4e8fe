"""Where kubelite keeps its own files: $KUBELITE_HOME, else ~/.kubelite."""
from __future__ import annotations

import os
import pathlib


def kubelite_home() -> pathlib.Path:
    env = os.environ.get("KUBELITE_HOME")
    if env:
        return pathlib.Path(env).expanduser()
    return pathlib.Path(os.environ.get("HOME") or pathlib.Path.home()) / ".kubelite"
