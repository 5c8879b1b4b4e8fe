"""Under `kubelite serve`, real kubectl sees the `kubernetes` Service's Endpoints and EndpointSlice
name the address and port the server listens on, and the kube-root-ca.crt ConfigMaps carry the CA
that kubectl's kubeconfig trusts."""
from __future__ import annotations

import json
import pathlib
import shutil
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "server"))

from test_serve_support import KUBECTL, kubectl_at, serving  # noqa: E402
from test_several_servers import eventually  # noqa: E402

pytestmark = pytest.mark.skipif(not shutil.which(KUBECTL), reason="kubectl not installed")


def test_kubectl_sees_the_served_address_and_ca(tmp_path):
    with serving(tmp_path) as server:
        cache = tmp_path / "cache"

        def endpoints():
            got = kubectl_at(server, cache, "get", "endpoints", "kubernetes", "-o", "json")
            return json.loads(got.stdout) if got.returncode == 0 else None

        ep = eventually("the kubernetes Endpoints at the served port",
                        lambda: (e := endpoints()) and e["subsets"][0]["ports"][0]["port"] == server.port and e)
        assert ep["subsets"][0]["addresses"] == [{"ip": "127.0.0.1"}]
        listed = kubectl_at(server, cache, "get", "endpointslices", "kubernetes", "-o",
                            "jsonpath={.endpoints[0].addresses[0]}:{.ports[0].port}")
        assert (listed.returncode, listed.stdout) == (0, f"127.0.0.1:{server.port}")
        assert kubectl_at(server, cache, "create", "namespace", "fresh").returncode == 0

        def published():
            got = kubectl_at(server, cache, "get", "configmap", "kube-root-ca.crt", "-n", "fresh", "-o",
                             "jsonpath={.data.ca\\.crt}")
            return got.stdout if got.returncode == 0 and got.stdout else None

        assert eventually("kube-root-ca.crt in a new namespace", published) == pathlib.Path(server.ca).read_text()
