"""Reading the recorded `kubectl kustomize` conformance cases."""
from __future__ import annotations

import os
import re

ROOT = os.path.join(os.path.dirname(__file__), "..", "data", "kustomize", "cases")


def _read(path: str) -> str:
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def case_names() -> list[str]:
    return sorted(os.listdir(ROOT))


def load(name: str) -> dict:
    cdir = os.path.realpath(os.path.join(ROOT, name))
    entry = "."
    if os.path.exists(os.path.join(cdir, "entry.txt")):
        entry = _read(os.path.join(cdir, "entry.txt")).strip() or "."
    flags = []
    if os.path.exists(os.path.join(cdir, "flags.txt")):
        flags = [l.strip() for l in _read(os.path.join(cdir, "flags.txt")).splitlines() if l.strip()]
    case = {"dir": cdir, "path": os.path.normpath(os.path.join(cdir, "input", entry)), "flags": flags}
    if os.path.exists(os.path.join(cdir, "expected.rc")):
        case["stderr"] = _read(os.path.join(cdir, "expected.err"))
        case["error"] = error_message(case["stderr"])
    else:
        case["expected"] = _read(os.path.join(cdir, "expected.yaml"))
    return case


def build_options(flags: list[str]) -> dict:
    opts = {}
    for flag in flags:
        if flag.startswith("--load-restrictor"):
            opts["load_restrictor"] = flag.split("=", 1)[1]
        elif flag.startswith("--reorder"):
            opts["reorder"] = flag.split("=", 1)[1]
    return opts


def error_message(err_text: str) -> str | None:
    """The message inside klog's `"command failed" err=...` line (None if absent)."""
    m = re.search(r'"command failed" err="((?:[^"\\]|\\.)*)"', err_text)
    if m:
        return bytes(m.group(1), "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")
    m = re.search(r'"command failed" err=<\n(.*)\n >', err_text, re.S)
    if m:
        return "\n".join(line[1:] if line.startswith("\t") else line for line in m.group(1).split("\n"))
    return None
