"""The kopf operator of examples/operator, run against a kubelite cluster served for the test
(kube_server): it sees Greetings created with kubectl-style apply and writes ConfigMaps that
the garbage collector deletes with their owner."""
from __future__ import annotations

import pytest

from api_support import ROOT

kopf_testing = pytest.importorskip("kopf.testing", reason="kopf is not installed (pip install kopf)")

OPERATOR = ROOT / "examples" / "operator"


def test_greeting_gets_its_configmap_and_loses_it_with_the_owner(kube_server):
    kube_server.apply(str(OPERATOR / "crd.yaml"))
    args = ["run", "--standalone", "--namespace=default", str(OPERATOR / "greetings.py")]
    with kopf_testing.KopfRunner(args, timeout=60) as runner:
        kube_server.apply(str(OPERATOR / "greeting.yaml"))
        cm = kube_server.wait("configmap/world-greeting", "create", timeout=30)
        assert cm["data"] == {"message": "Hello, world!"}
        assert cm["metadata"]["ownerReferences"][0]["kind"] == "Greeting"

        kube_server.patch("greetings", "world", {"spec": {"salutation": "Goodbye"}}, type="merge")
        changed = kube_server.wait("configmap/world-greeting", "jsonpath={.data.message}=Goodbye, world!",
                                   timeout=30)
        assert changed["data"]["message"] == "Goodbye, world!"

        kube_server.delete("greetings", "world")
        assert kube_server.wait("configmap/world-greeting", "delete", timeout=30) is None
    assert runner.exit_code == 0, runner.output
    assert runner.exception is None
    assert "greeted world" in runner.output
