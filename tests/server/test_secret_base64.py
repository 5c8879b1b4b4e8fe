"""[]byte fields whose base64 carries line breaks, as kube-apiserver takes them.

Go's base64 decoder skips CR and LF anywhere in the text (a YAML `|` block leaves them), and the
server keeps the decoded bytes: every answer and the stored object carry the canonical padded
encoding, so the line breaks are gone and non-canonical trailing bits come back canonical.
"""
from __future__ import annotations

import base64
import json

import pytest

from kubelite.server.clock import FakeClock
from kubelite.server.cluster import Cluster
from kubelite.server.gobytes import byte_paths, decode

from tests.server.test_serve_support import kubectl_at, serving

SECRETS = "/api/v1/namespaces/default/secrets"
BROKEN = "YWJj\nZGVm\r\nZ2g=\n"  # "abcdefgh" over three lines, CRLF in the middle
CANONICAL = base64.b64encode(b"abcdefgh").decode()


@pytest.fixture(scope="module")
def api():
    with Cluster("memory://", clock=FakeClock(), controllers=False) as cluster:
        with cluster.http_client() as client:
            yield client


def _secret(name: str, **data) -> dict:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "data": data}


def test_decode_skips_line_breaks_as_go_does():
    assert decode(BROKEN) == b"abcdefgh"
    assert decode("YW\nJj\n") == b"abc"
    assert decode("YWJj ZGVm") is None  # a space is not skipped
    assert decode("YWJ") is None  # StdEncoding wants padding


def test_byte_fields_come_from_the_schema():
    assert byte_paths("v1", "Secret") == (("data", "*"),)
    assert byte_paths("v1", "ConfigMap") == (("binaryData", "*"),)
    assert ("spec", "request") in byte_paths("certificates.k8s.io/v1", "CertificateSigningRequest")
    assert byte_paths("apps/v1", "Deployment") == ()


def test_create_stores_the_canonical_encoding(api):
    answer = api.post(SECRETS, json=_secret("created", k=BROKEN, odd="YR=="))
    assert answer.status_code == 201, answer.text
    assert answer.json()["data"] == {"k": CANONICAL, "odd": "YQ=="}
    assert api.get(f"{SECRETS}/created").json()["data"] == {"k": CANONICAL, "odd": "YQ=="}


def test_update_stores_the_canonical_encoding(api):
    api.post(SECRETS, json=_secret("updated", k="YQ=="))
    live = api.get(f"{SECRETS}/updated").json()
    live["data"]["k"] = BROKEN
    answer = api.put(f"{SECRETS}/updated", json=live)
    assert answer.status_code == 200, answer.text
    assert answer.json()["data"]["k"] == CANONICAL


@pytest.mark.parametrize("content_type, body", [
    ("application/merge-patch+json", {"data": {"k": BROKEN}}),
    ("application/strategic-merge-patch+json", {"data": {"k": BROKEN}}),
    ("application/json-patch+json", [{"op": "replace", "path": "/data/k", "value": BROKEN}]),
])
def test_patch_stores_the_canonical_encoding(api, content_type, body):
    name = "patched-" + content_type.split("/")[1].split("+")[0]
    api.post(SECRETS, json=_secret(name, k="YQ=="))
    answer = api.patch(f"{SECRETS}/{name}", content=json.dumps(body), headers={"Content-Type": content_type})
    assert answer.status_code == 200, answer.text
    assert answer.json()["data"]["k"] == CANONICAL


def test_server_side_apply_twice_writes_once(api):
    url = f"{SECRETS}/applied?fieldManager=test"
    headers = {"Content-Type": "application/apply-patch+yaml"}
    first = api.patch(url, content=json.dumps(_secret("applied", k=BROKEN)), headers=headers)
    assert first.status_code == 201, first.text
    assert first.json()["data"]["k"] == CANONICAL
    again = api.patch(url, content=json.dumps(_secret("applied", k=BROKEN)), headers=headers)
    assert again.status_code == 200, again.text
    # the same bytes: nothing changed, so no new resourceVersion
    assert again.json()["metadata"]["resourceVersion"] == first.json()["metadata"]["resourceVersion"]


def test_bad_base64_is_still_refused(api):
    answer = api.post(SECRETS, json=_secret("bad", k="YWJ!"))
    assert answer.status_code == 400
    assert "illegal base64 data at input byte 3" in answer.json()["message"]


def test_configmap_binary_data_is_canonical_too(api):
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bin"}, "binaryData": {"b": BROKEN}}
    answer = api.post("/api/v1/namespaces/default/configmaps", json=cm)
    assert answer.status_code == 201, answer.text
    assert answer.json()["binaryData"] == {"b": CANONICAL}


def test_kubectl_applies_a_yaml_block_of_base64(tmp_path):
    manifest = tmp_path / "secret.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: block\ndata:\n  key: |\n"
        "    YWJj\n    ZGVm\n    Z2g=\n")
    with serving(tmp_path / "srv", "--controllers=-*") as server:
        applied = kubectl_at(server, tmp_path / "cache", "apply", "-f", str(manifest))
        assert applied.returncode == 0, applied.stderr
        assert applied.stdout == "secret/block created\n"
        shown = kubectl_at(server, tmp_path / "cache", "get", "secret", "block", "-o",
                           "jsonpath={.data.key} {.metadata.resourceVersion}")
        value, version = shown.stdout.split()
        assert value == CANONICAL
        # kubectl's three-way patch sees the live text differ from the file's and sends it
        # ("configured"); the server finds the same bytes and writes nothing.
        again = kubectl_at(server, tmp_path / "cache", "apply", "-f", str(manifest))
        assert again.stdout == "secret/block configured\n", again.stderr
        shown = kubectl_at(server, tmp_path / "cache", "get", "secret", "block", "-o",
                           "jsonpath={.metadata.resourceVersion}")
        assert shown.stdout == version
