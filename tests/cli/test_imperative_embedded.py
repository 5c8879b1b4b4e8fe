"""Seed 004 part 3 verbatim against the embedded cluster (no kubeconfig: KUBELITE_HOME is the cluster)."""
import io
import sys
from contextlib import redirect_stderr, redirect_stdout

import pytest
import yaml


def _kubelite(argv, stdin=None):
    from kubelite.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()))
    try:
        with redirect_stdout(out), redirect_stderr(err):
            rc = main(argv)
    finally:
        sys.stdin = old
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture
def embedded(tmp_path, monkeypatch):
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("KUBELITE_HOME", str(tmp_path / "kubelite"))


def test_create_service_nodeport(embedded):
    assert _kubelite(["create", "service", "nodeport", "my-ns", "--tcp=5678:8080"]) == (0, "service/my-ns created\n", "")
    rc, out, _ = _kubelite(["get", "service", "my-ns", "-o", "yaml"])
    svc = yaml.safe_load(out)
    assert svc["spec"]["type"] == "NodePort"
    assert svc["spec"]["ports"][0]["targetPort"] == 8080
    assert 30000 <= svc["spec"]["ports"][0]["nodePort"] <= 32767


def test_set_selector_pipeline_into_create(embedded):
    _, generated, _ = _kubelite(["create", "service", "clusterip", "my-svc", "--clusterip=None", "-o", "yaml",
                                 "--dry-run=client"])
    _, selected, _ = _kubelite(["set", "selector", "--local", "-f", "-", "environment=qa", "-o", "yaml"], generated)
    assert _kubelite(["create", "-f", "-"], selected) == (0, "service/my-svc created\n", "")
    _, out, _ = _kubelite(["get", "service", "my-svc", "-o", "yaml"])
    live = yaml.safe_load(out)
    assert live["spec"]["selector"] == {"environment": "qa"}
    assert live["spec"]["clusterIP"] == "None"


def test_set_on_live_deployment_and_failure_creates_nothing(embedded):
    assert _kubelite(["create", "deployment", "web", "--image=nginx"])[0] == 0
    assert _kubelite(["set", "image", "deployment/web", "nginx=nginx:1.27"]) == \
        (0, "deployment.apps/web image updated\n", "")
    _, out, _ = _kubelite(["get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}"])
    assert out == "nginx:1.27"
    rc, out, err = _kubelite(["create", "configmap", "cm", "--from-literal=novalue"])
    assert (rc, out, err) == (1, "", "error: invalid literal source novalue, expected key=value\n")
    assert _kubelite(["get", "configmap", "cm"])[0] == 1


def test_save_config_annotation_is_kubectls_struct_order_json(embedded):
    rc, out, _ = _kubelite(["create", "namespace", "team", "--save-config", "--dry-run=client", "-o", "json"])
    annotation = yaml.safe_load(out)["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
    assert annotation == ('{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"team",'
                          '"creationTimestamp":null},"spec":{},"status":{}}\n')
