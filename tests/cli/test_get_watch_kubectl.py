"""Differential: `kubelite get -w` / `--watch-only` and /usr/bin/kubectl against the same
`kubelite serve`, with writes made while both watch; both stop at --request-timeout.

Every watcher of a case runs at once (kubectl ~0.15 s, kubelite ~0.5 s to start), the writes
come after all have started, and the outputs are compared byte for byte (AGE columns aside).
"""
from __future__ import annotations

import re
import shutil
import subprocess
import threading

import pytest

from cli_support import without_ages

pytestmark = pytest.mark.kubectl

KUBECTL = "/usr/bin/kubectl"
OBJECTS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: alpha, labels: {app: web, x: "0"}}
data: {color: blue}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: beta, labels: {app: db}}
---
apiVersion: v1
kind: Service
metadata: {name: web, labels: {app: web}}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
"""
TWO_KINDS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: alpha}
---
apiVersion: v1
kind: Service
metadata: {name: web}
"""
TWO_CONFIGMAPS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: alpha}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: beta}
"""

WATCHES = [
    ["get", "cm", "-w"],
    ["get", "cm", "--watch-only"],
    ["get", "cm", "alpha", "-w"],
    ["get", "configmap/alpha", "--watch-only", "-o", "yaml"],
    ["get", "cm", "-w", "-o", "yaml"],
    ["get", "cm", "-w", "-o", "json"],
    ["get", "cm", "-w", "-o", "name"],
    ["get", "cm", "-w", "--output-watch-events"],
    ["get", "cm", "-w", "-o", "json", "--output-watch-events"],
    ["get", "cm", "-w", "-o", "yaml", "--output-watch-events", "--watch-only"],
    ["get", "cm", "-A", "-w", "-o", "wide"],
    ["get", "cm", "-w", "--show-labels", "--no-headers"],
    ["get", "cm", "alpha", "-w", "-L", "x"],
    ["get", "cm", "-l", "app=web", "-w"],
    ["get", "svc", "-w", "-o", "wide"],
    ["get", "cm", "-w", "--sort-by", ".metadata.name"],
]

def _normalise(text: str) -> str:
    return without_ages(text)


@pytest.fixture(scope="module")
def loaded(served, tmp_path_factory):
    if not shutil.which(KUBECTL):
        pytest.skip("kubectl not installed")
    base = tmp_path_factory.mktemp("watch")
    (base / "objects.yaml").write_text(OBJECTS)
    (base / "two-kinds.yaml").write_text(TWO_KINDS)
    (base / "two-configmaps.yaml").write_text(TWO_CONFIGMAPS)
    kubectl = [KUBECTL, "--kubeconfig", str(served.kubeconfig), "--cache-dir", str(base / "cache")]
    r = subprocess.run(kubectl + ["create", "-f", str(base / "objects.yaml")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # the root CA publisher's config map is part of every namespace's listing: wait for it, so
    # that no watcher starts before it exists and another after
    r = subprocess.run(kubectl + ["wait", "--for=create", "configmap/kube-root-ca.crt", "--timeout=60s"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return served, base


# -v=6 request logs (kubectl's klog lines, kubelite's alike): they tell when a watcher is watching,
# and are taken out of stderr before the comparison.
_REQUEST_LOG = re.compile(r"^I\d{4} [\d:.]+ .*\n", re.M)


class _Watcher:
    """A `get -w` process whose -v=6 stderr is read as it comes, to know when its watch is open."""

    def __init__(self, argv: list[str], env: dict):
        self.proc = subprocess.Popen(argv + ["-v=6"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=env)
        self.err: list[str] = []
        self.watching = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stderr:
            self.err.append(line)
            if "watch=true" in line and _REQUEST_LOG.match(line):
                self.watching.set()
        self.watching.set()  # ended (a refusal, or the request timeout): nothing more to wait for

    def result(self) -> tuple[int, str, str]:
        out = self.proc.stdout.read()
        self.proc.wait(timeout=30)
        self._reader.join(timeout=30)
        return self.proc.returncode, out, _REQUEST_LOG.sub("", "".join(self.err))


def test_watch_output_matches_kubectl_with_writes_during_the_watch(loaded, remote, kubectl):
    served, base = loaded
    # long enough for every watcher to start on a loaded machine (the writes wait for all of them)
    timeout = ["--request-timeout", "30s"]
    procs = []
    for command in WATCHES:
        procs.append((command, _Watcher(kubectl.argv0 + command + timeout, kubectl.env),
                      _Watcher(remote.argv0 + command + timeout, remote.env)))
    for command, theirs, mine in procs:
        for watcher in (theirs, mine):
            assert watcher.watching.wait(timeout=60), f"{' '.join(command)} never started watching"
    k = kubectl.argv0
    for write in (["create", "configmap", "gamma", "--from-literal=k=v"],
                  ["label", "cm", "alpha", "x=1", "--overwrite"],
                  ["annotate", "svc", "web", "note=changed"],
                  ["label", "cm", "beta", "app=web", "--overwrite"],
                  ["delete", "cm", "gamma"]):
        r = subprocess.run(k + write, capture_output=True, text=True, env=kubectl.env)
        assert r.returncode == 0, r.stderr
    failures, seen = [], {}
    for command, theirs, mine in procs:
        (t_code, t_out, t_err), (m_code, m_out, m_err) = theirs.result(), mine.result()
        seen[" ".join(command)] = m_out
        if (m_code, _normalise(m_out), m_err) != (t_code, _normalise(t_out), t_err):
            failures.append((command, (t_code, t_out, t_err), (m_code, m_out, m_err)))
    assert not failures, failures
    # The writes were seen: gamma added then deleted, alpha modified.
    events = [line.split()[:2] for line in seen["get cm -w --output-watch-events"].splitlines()]
    assert events == [["EVENT", "NAME"], ["ADDED", "alpha"], ["ADDED", "beta"], ["ADDED", "kube-root-ca.crt"],
                      ["ADDED", "gamma"],
                      ["MODIFIED", "alpha"], ["MODIFIED", "beta"], ["DELETED", "gamma"]]


@pytest.mark.parametrize("command", [
    ["get", "deploy,svc", "-w"],
    ["get", "all", "-w"],
    ["get", "cm/alpha", "svc/web", "-w"],
    ["get", "cm", "alpha", "beta", "-w"],
    ["get", "cm", "nope", "-w"],
    ["get", "nosuchtype", "-w"],
    ["get", "-f", "{base}/two-kinds.yaml", "-w"],
    ["get", "-f", "{base}/two-configmaps.yaml", "-w"],
    ["get", "cm", "-l", "app=none", "-w"],
], ids=lambda c: " ".join(c))
def test_watch_refusals_match_kubectl(loaded, remote, kubectl, command):
    served, base = loaded
    command = [c.replace("{base}", str(base)) for c in command] + ["--request-timeout", "1s"]
    mine, theirs = remote.run(*command), kubectl.run(*command)
    assert (mine.returncode, _normalise(mine.stdout), mine.stderr) == \
        (theirs.returncode, _normalise(theirs.stdout), theirs.stderr)
