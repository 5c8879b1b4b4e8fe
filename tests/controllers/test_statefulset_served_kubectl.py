"""The recorded `statefulset` and `daemonset` cases replayed with real kubectl against
`kubelite serve`: every kubectl command of commands.txt, its exit code and output compared with
the recording (StatefulSet revision names exactly: the hashes are the real controller's; the
DaemonSet's are normalised, see daemonset.py). `rollout status` prints a progress line per
change it sees, which depends on timing, so only its last line is compared, and the others must be
progress lines kubectl prints. The recorder's `# wait until ...` steps become polls."""
from __future__ import annotations

import json
import re
import shutil

import pytest

from test_job_served_kubectl import DATA, KUBECTL, entries, kubectl, normal, poll, served  # noqa: F401

pytestmark = pytest.mark.kubectl
PROGRESS = re.compile(r"^(Waiting for \d+ pods to be ready\.\.\.|Waiting for partitioned roll out to finish: \d+ "
                      r"out of \d+ new pods have been updated\.\.\.|Waiting for statefulset spec update to be "
                      r"observed\.\.\.|Waiting for daemon set .*|Waiting for daemon set spec update to be "
                      r"observed\.\.\.)$")
DS_REVISION = re.compile(r"\bagent-[a-z0-9]{8,10}\b")


def _get(served, cache, cwd, ns: str, what: str) -> dict:
    r = kubectl(served, cache, ["get", "-n", ns, what, "-o", "json"], cwd)
    return json.loads(r.stdout) if r.returncode == 0 else {}


QUIET_LOOKS = 3  # looks in a row (a poll's interval apart) that must see the same objects


def _quiet(served, cache, cwd, ns: str):
    """A check for poll(): true once QUIET_LOOKS looks in a row see the namespace's objects at the
    same resourceVersions, i.e. nothing changed over the poll's intervals (the recorder waited for
    3 s without watch events)."""
    looks: list[str] = []

    def check() -> bool:
        r = kubectl(served, cache, ["get", "-n", ns, "statefulsets,daemonsets,pods,controllerrevisions", "-o",
                                    "jsonpath={range .items[*]}{.metadata.name}={.metadata.resourceVersion} {end}"],
                    cwd)
        looks.append(r.stdout if r.returncode == 0 else f"error {len(looks)}")
        return len(looks) >= QUIET_LOOKS and len(set(looks[-QUIET_LOOKS:])) == 1
    return check


def wait_step(served, cache, cwd, ns: str, text: str) -> None:
    m = re.match(r"wait until (\w+) (\d+) ready( and updated)?", text)
    if m:
        name, count, updated = m.group(1), int(m.group(2)), bool(m.group(3))

        def ready():
            s = _get(served, cache, cwd, ns, f"statefulset/{name}").get("status") or {}
            ok = s.get("readyReplicas") == count and s.get("replicas") == count
            return ok and (not updated or (s.get("updatedReplicas") == count
                                           and s.get("currentRevision") == s.get("updateRevision")))
        assert poll(ready), text
        return
    m = re.match(r"wait until (\d+) (updated )?pod ready", text)
    if m:
        count = int(m.group(1))

        def ds_ready():
            s = _get(served, cache, cwd, ns, "daemonset/agent").get("status") or {}
            return s.get("numberReady") == count and (not m.group(2) or s.get("updatedNumberScheduled") == count)
        assert poll(ds_ready), text
        return
    m = re.match(r"wait until only (\S+) runs (\S+?):? held", text)
    if m:
        pod, image = m.group(1), m.group(2)

        def only():
            items = _get(served, cache, cwd, ns, "pods").get("items") or []
            runs = {p["metadata"]["name"] for p in items if p["spec"]["containers"][0]["image"] == image
                    and p["status"].get("phase") == "Running"}
            return runs == {pod}
        assert poll(only), text
        return
    if text.startswith("wait until quiet"):
        assert poll(_quiet(served, cache, cwd, ns)), text


def compare(argv: list[str], code: int, stdout: str, got) -> tuple | None:
    want_out, got_out = normal(DS_REVISION.sub("agent-<rev>", stdout)), normal(DS_REVISION.sub("agent-<rev>",
                                                                                              got.stdout))
    if "rollout" in argv and "status" in argv:
        lines = got_out.splitlines()
        if not all(PROGRESS.match(line) for line in lines[:-1]):
            return argv, want_out, got_out
        want_out = want_out.splitlines()[-1] if want_out else ""
        got_out = lines[-1] if lines else ""
    if (got.returncode, got_out) != (code, want_out):
        return argv, (code, want_out), (got.returncode, got_out, got.stderr)
    return None


@pytest.mark.parametrize("case", ["statefulset", "daemonset"])
def test_recorded_case_with_kubectl(served, tmp_path, case):
    if not shutil.which(KUBECTL):
        pytest.skip("kubectl not installed")
    cwd, ns, cache = DATA / case, f"pub-{case}", tmp_path / "cache"
    mismatches = []
    for kind, entry in entries(case):
        if kind == "wait":
            wait_step(served, cache, cwd, ns, entry)
            continue
        argv, code, stdout = entry
        problem = compare(argv, code, stdout, kubectl(served, cache, argv, cwd))
        if problem:
            mismatches.append(problem)
    assert not mismatches, "\n\n".join(f"{a}\nrecorded: {w!r}\nkubelite: {g!r}" for a, w, g in mismatches)
