"""What a simulated container prints, and the kubelet's log options applied to it.

No process runs, so a container's log is made from its Pod:
- the annotation `sim.kubelite.io/log.<container>` (that container) or `sim.kubelite.io/log`
  (every container): its text, one log line per line;
- otherwise a container whose command is `echo ...` (or `sh -c` / `bash -c` with a script made
  only of `echo` commands joined by `;`, `&&` or newlines) prints what echo would;
- otherwise nothing (an empty log, as an idle nginx that nobody has asked anything).

Every line is stamped with the container's start time (the kubelet's fixed nine-digit
nanosecond RFC 3339 form), one nanosecond apart so that their order is kept.
"""
from __future__ import annotations

import datetime

from kubelite.server.clock import UTC, parse_time

LOG_ANNOTATION = "sim.kubelite.io/log"
_SHELLS = ("sh", "bash", "ash", "dash", "zsh")


def find_container(pod: dict, name: str) -> dict | None:
    spec = pod.get("spec") or {}
    for group in ("containers", "initContainers", "ephemeralContainers"):
        for c in spec.get(group) or []:
            if c.get("name") == name:
                return c
    return None


def container_status(pod: dict, name: str) -> dict | None:
    status = pod.get("status") or {}
    for group in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
        for cs in status.get(group) or []:
            if cs.get("name") == name:
                return cs
    return None


def log_text(pod: dict, container: dict) -> str:
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    for key in (f"{LOG_ANNOTATION}.{container.get('name')}", LOG_ANNOTATION):
        if key in annotations:
            text = str(annotations[key])
            return text if not text or text.endswith("\n") else text + "\n"
    return _echoed(list(container.get("command") or []) + list(container.get("args") or []))


def _echoed(argv: list[str]) -> str:
    if not argv:
        return ""
    program = argv[0].rsplit("/", 1)[-1]
    if program == "echo":
        return _echo(argv[1:])
    if program in _SHELLS and len(argv) >= 3 and argv[1] == "-c":
        return _echo_script(argv[2])
    return ""


def _echo(args: list[str]) -> str:
    newline = True
    if args and args[0] == "-n":
        newline, args = False, args[1:]
    return " ".join(args) + ("\n" if newline else "")


def _echo_script(script: str) -> str:
    """The output of a script of echo commands; nothing if it does anything else."""
    import shlex  # here: only a pod's log reads it, not every request that imports the pod handlers

    out = []
    for line in script.replace("&&", ";").replace("\n", ";").split(";"):
        if not line.strip():
            continue
        try:
            words = shlex.split(line)
        except ValueError:
            return ""
        if not words or words[0] != "echo":
            return "".join(out)  # what was echoed before the first other command
        out.append(_echo(words[1:]))
    return "".join(out)


def started_at(pod: dict, name: str) -> float | None:
    state = (container_status(pod, name) or {}).get("state") or {}
    for phase in ("running", "terminated"):
        when = parse_time((state.get(phase) or {}).get("startedAt"))
        if when is not None:
            return when
    return None


def kubelet_timestamp(seconds: float, nanos: int = 0) -> str:
    whole = int(seconds)
    moment = datetime.datetime.fromtimestamp(whole, UTC)
    frac = int(round((seconds - whole) * 1e9)) + nanos
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{frac:09d}Z"


def log_lines(pod: dict, container: dict) -> list[tuple[float, str]]:
    """(time, line with its newline) for every line the container printed."""
    start = started_at(pod, container.get("name")) or 0.0
    text = log_text(pod, container)
    return [(start, line) for line in text.splitlines(keepends=True)]


def render(lines: list[tuple[float, str]], *, timestamps: bool = False, tail: int | None = None,
           since: float | None = None, limit_bytes: int | None = None) -> bytes:
    """Apply the kubelet's log options (sinceTime/sinceSeconds, tailLines, timestamps, limitBytes)."""
    numbered = [(i, t, line) for i, (t, line) in enumerate(lines) if since is None or t >= since]
    if tail is not None:
        numbered = numbered[len(numbered) - tail:] if tail else []
    out = "".join((f"{kubelet_timestamp(t, i)} " if timestamps else "") + line for i, t, line in numbered)
    data = out.encode()
    return data[:limit_bytes] if limit_bytes is not None else data
