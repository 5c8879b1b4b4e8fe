"""`kubelite rollout ...` against the recordings of a real cluster (tests/data/controllers/deploy-*):
each case is replayed at its recorded times on a FakeClock cluster, and at every `kubectl rollout`
step kubelite's own command runs in-process against that cluster; its exit code, stderr and stdout
must be the recorded ones (for `rollout status`, the last line: how many "Waiting ..." lines come
first depends on the timing of the watch)."""
from __future__ import annotations

import contextlib
import io
import json
import pathlib
import re
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "controllers"))

from deploy_replay import DATA, Replay  # noqa: E402

CASES = ("deploy-create-3", "deploy-rolling-update", "deploy-recreate", "deploy-pause-resume-undo", "deploy-scale",
         "deploy-progress-deadline")
_STEP = re.compile(r"^### t=([\d.]+) \$ kubectl (.*)$")


def recorded_outputs(case: str) -> list[tuple[str, int, str, str]]:
    """(command line, exit code, stdout, stderr) of every kubectl command of a case."""
    steps, current, part = [], None, None
    for line in (DATA / case / "commands.txt").read_text().splitlines(keepends=True):
        m = _STEP.match(line.rstrip("\n"))
        if m:
            current = {"cmd": m.group(2), "rc": None, "stdout": "", "stderr": ""}
            steps.append(current)
            part = None
        elif line.startswith("### "):
            current, part = None, None
        elif current is not None and line.startswith("--- exit code: "):
            current["rc"] = int(line.split()[3])
        elif current is not None and line.rstrip("\n") in ("--- stdout", "--- stderr"):
            part = line.strip()[4:]
        elif current is not None and part:
            if line.startswith("\\ (no newline at end of output)"):
                current[part] = current[part].removesuffix("\n")
            else:
                current[part] += line
    for step in steps:  # the blank line closing each step is not output
        step["stderr"] = step["stderr"].removesuffix("\n") if step["stderr"].endswith("\n\n") else step["stderr"]
        if step["stderr"] == "\n":
            step["stderr"] = ""
    return [(s["cmd"], s["rc"], s["stdout"], s["stderr"]) for s in steps]


class CLIReplay(Replay):
    """The replay, with kubelite's `rollout` command doing the recorded `kubectl rollout` steps."""

    def __init__(self, case: str, monkeypatch):
        super().__init__(case)
        self.monkeypatch = monkeypatch
        self.outputs: list[tuple[str, int, str, str]] = []
        self.sessions: dict = {}

    def _rollout(self, argv: list[str], ns: str) -> None:
        from kubelite.api.cluster import _session
        from kubelite.cli import common
        from kubelite.cli.main import main

        if ns not in self.sessions:
            session = self.sessions[ns] = _session(self.cluster, ns)
            # Kept open for the whole replay: closing an in-process transport shuts the app down.
            session.close = lambda: None
        self.monkeypatch.setattr(common, "session", lambda args: self.sessions[ns])
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(list(argv))
        self.outputs.append((" ".join(argv), rc, out.getvalue(), err.getvalue()))


@pytest.mark.parametrize("case", CASES)
def test_rollout_commands_answer_as_recorded(case, monkeypatch):
    want = [step for step in recorded_outputs(case) if step[0].startswith("rollout ")]
    with CLIReplay(case, monkeypatch) as replay:
        replay.run()
        got = replay.outputs
    assert [cmd for cmd, *_ in got] == [re.sub(r"'", "", cmd) for cmd, *_ in want]
    for (cmd, rc, out, err), (_, want_rc, want_out, want_err) in zip(got, want):
        if cmd.startswith("rollout status") and want_rc == 0:
            out, want_out = out.splitlines()[-1:], want_out.splitlines()[-1:]
        assert (rc, err, _opaque(out)) == (want_rc, want_err, _opaque(want_out)), cmd


def _opaque(out):
    """Output with what differs between two clusters made alike: pod-template hashes (kubelite's
    are not Go's), and in JSON the uid, resourceVersion and timestamps."""
    if isinstance(out, list):
        return [_opaque(line) for line in out]
    if out.startswith("{"):
        obj = json.loads(out)
        meta = obj["metadata"]
        for key in ("uid", "resourceVersion", "creationTimestamp"):
            meta[key] = f"<{key}>"
        for ref in meta.get("ownerReferences") or []:
            ref["uid"] = "<uid>"
        out = json.dumps(obj, indent=4)
    return re.sub(r"(pod-template-hash[=\":\s]+|web-)[bcdfghjklmnpqrstvwxz2456789]{6,10}\b", r"\1<hash>", out)
