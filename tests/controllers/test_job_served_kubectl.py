"""The recorded Job cases replayed with real kubectl against `kubelite serve` (real time, the
whole cluster: scheduler, simulated node and kubelet, garbage collector): every kubectl command
of commands.txt is run and its exit code and output compared with the recording, with what
differs between runs normalised (ages, durations, uids, IPs, timestamps, generated suffixes).
The recorder's own `# wait until ...` steps become polls with a deadline."""
from __future__ import annotations

import json
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import time

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "server"))
from test_serve_support import KUBECTL, served  # noqa: E402,F401 (a fixture)

DATA = HERE.parent / "data" / "controllers"
pytestmark = pytest.mark.kubectl


def entries(case: str) -> list[tuple[str, object]]:
    """("kubectl", (argv, exit code, stdout)) and ("wait", text) in the recorded order."""
    out: list[tuple[str, object]] = []
    blocks = re.split(r"^### t=[\d.]+ ", (DATA / case / "commands.txt").read_text(), flags=re.M)[1:]
    for block in blocks:
        head, _, rest = block.partition("\n")
        if head.startswith("# "):
            out.append(("wait", head[2:]))
            continue
        code = int(re.search(r"^--- exit code: (\d+)", rest, re.M).group(1))
        stdout = rest.split("--- stdout\n", 1)[1].split("--- stderr\n", 1)[0]
        if stdout.endswith("\\ (no newline at end of output)\n"):
            stdout = stdout[:-len("\n\\ (no newline at end of output)\n")]
        out.append(("kubectl", (shlex.split(head.removeprefix("$ kubectl ")), code, stdout)))
    return out


_RULES = [
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"), "<time>"),
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<uid>"),
    (re.compile(r"\b10\.244\.\d+\.\d+\b"), "<ip>"),
    (re.compile(r"(?<=[a-z0-9])-[a-z0-9]{5}\b"), "-<x>"),
    (re.compile(r"\b\d+(m\d+)?s\b"), "<age>"),
    (re.compile(r"[ \t]+"), " "),
]


def normal(text: str) -> str:
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text


def kubectl(served, cache: pathlib.Path, argv: list[str], cwd: pathlib.Path):
    return subprocess.run([KUBECTL, "--kubeconfig", str(served.kubeconfig), "--cache-dir", str(cache), *argv],
                          capture_output=True, text=True, timeout=180, cwd=cwd)


def poll(check, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


def wait_step(served, cache, case: str, text: str, cwd) -> None:
    ns = f"pub-{case}"

    def job_names():
        r = kubectl(served, cache, ["get", "-n", ns, "jobs", "-o", "json"], cwd)
        return json.loads(r.stdout or '{"items": []}')["items"]

    if "deleted by the TTL" in text:
        assert poll(lambda: not job_names()), text
    elif "pods deleted" in text:
        assert poll(lambda: kubectl(served, cache, ["get", "-n", ns, "pods", "-o", "name"], cwd).stdout == ""), text
    elif text.startswith("sleep") and "suspended" in text:
        assert poll(lambda: any(c["type"] == "Suspended" for j in job_names()
                                for c in (j.get("status") or {}).get("conditions") or [])), text
    elif "job status settled" in text or "job complete" in text:
        assert poll(lambda: all(not (j.get("status") or {}).get("uncountedTerminatedPods") for j in job_names()))


@pytest.mark.parametrize("case", ["job-basic", "job-indexed", "job-suspend", "job-ttl", "job-failed"])
def test_recorded_job_case_with_kubectl(served, tmp_path, case):
    if not shutil.which(KUBECTL):
        pytest.skip("kubectl not installed")
    cwd = DATA / case
    mismatches = []
    for kind, entry in entries(case):
        if kind == "wait":
            wait_step(served, tmp_path / "cache", case, entry, cwd)
            continue
        argv, code, stdout = entry
        got = kubectl(served, tmp_path / "cache", argv, cwd)
        if (got.returncode, normal(got.stdout)) != (code, normal(stdout)):
            mismatches.append((argv, (code, normal(stdout)), (got.returncode, normal(got.stdout), got.stderr)))
    assert not mismatches, "\n\n".join(f"{a}\nrecorded: {w!r}\nkubelite: {g!r}" for a, w, g in mismatches)
