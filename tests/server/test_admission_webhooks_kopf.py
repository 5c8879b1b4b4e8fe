"""A kopf operator's admission handlers really called by `kubelite serve`.

The operator runs in a subprocess with its own webhook server (kopf.WebhookServer on 127.0.0.1,
certificate from a test CA) and `settings.admission.managed`, so kopf itself creates the
Validating/MutatingWebhookConfigurations; then a create it denies is refused with its message
and a create it mutates is stored with its patch.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from test_serve_support import free_port, kubectl_at, serving
from webhook_support import make_certificates

pytest.importorskip("kopf")

OPERATOR = '''
import kopf

@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_):
    settings.admission.server = kopf.WebhookServer(
        addr="127.0.0.1", port={port}, host="127.0.0.1",
        certfile={cert!r}, pkeyfile={key!r}, cafile={ca!r})
    settings.admission.managed = "auto.kopf.dev"

@kopf.on.validate("configmaps", id="no-forbidden")
def refuse(body, **_):
    if body.get("data", {{}}).get("forbidden"):
        raise kopf.AdmissionError("forbidden data is not allowed here", code=422)

@kopf.on.mutate("configmaps", id="stamp")
def stamp(patch, **_):
    patch.metadata.setdefault("labels", {{}})["stamped-by"] = "kopf"
'''


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def operated(tmp_path_factory):
    base = tmp_path_factory.mktemp("kopf")
    certs = make_certificates(base / "pki")
    script = base / "operator.py"
    script.write_text(OPERATOR.format(port=free_port(), cert=str(certs["cert"]), key=str(certs["key"]),
                                      ca=str(certs["ca"])))
    with serving(base, "--controllers=namespace") as server:
        env = dict(os.environ, KUBECONFIG=str(server.kubeconfig))
        log = open(base / "operator.log", "wb")
        operator = subprocess.Popen([sys.executable, "-m", "kopf", "run", "--standalone", "--all-namespaces",
                                     str(script)], env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            yield server, base, operator
        finally:
            operator.terminate()
            try:
                operator.wait(timeout=20)
            except subprocess.TimeoutExpired:
                operator.kill()
                operator.wait()
            log.close()


def kubectl(operated, *args, stdin=None):
    server, base, _ = operated
    return kubectl_at(server, base / "kubectl-cache", *args, stdin=stdin)


def test_kopf_validation_denies_and_mutation_applies(operated):
    _, base, operator = operated

    def configured():
        if operator.poll() is not None:
            raise AssertionError("kopf exited:\n" + (base / "operator.log").read_text())
        names = []
        for kind in ("validatingwebhookconfigurations", "mutatingwebhookconfigurations"):
            got = kubectl(operated, "get", kind, "auto.kopf.dev", "-o", "json")
            if got.returncode != 0:
                return None
            # kopf may create a configuration before it fills in its webhooks (an empty list is omitted)
            webhooks = json.loads(got.stdout).get("webhooks")
            if not webhooks:
                return None
            names += [w["name"] for w in webhooks]
        return names

    names = wait_for(configured, 120, "kopf to register its webhooks")
    assert sorted(names) == ["no-forbidden.auto.kopf.dev", "stamp.auto.kopf.dev"]

    bad = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bad"}, "data": {"forbidden": "yes"}}
    refused = kubectl(operated, "apply", "-f", "-", stdin=json.dumps(bad))
    assert refused.returncode == 1
    assert refused.stderr == ('Error from server: error when creating "STDIN": admission webhook '
                              '"no-forbidden.auto.kopf.dev" denied the request: forbidden data is not allowed here\n')
    assert kubectl(operated, "get", "configmap", "bad").returncode == 1

    good = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "good"}, "data": {"k": "v"}}
    created = kubectl(operated, "apply", "-f", "-", stdin=json.dumps(good))
    assert created.returncode == 0, created.stderr
    labels = kubectl(operated, "get", "configmap", "good", "-o", "jsonpath={.metadata.labels}")
    assert json.loads(labels.stdout) == {"stamped-by": "kopf"}
