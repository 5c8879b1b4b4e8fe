"""CRD selectableFields (KEP-4358, on by default in 1.32): a custom resource version's declared
JSON paths become field-selector labels. Semantics from the CRD reference ("if jsonPath refers
to absent field in a resource, the jsonPath evaluates to an empty string") and the shirts
example of the Kubernetes docs (kubectl get shirts --field-selector spec.color=blue);
undeclared labels keep apiextensions-apiserver's 'field label not supported' 400."""
from __future__ import annotations

import httpx
import pytest

from kubelite.server.app import create_app
from kubelite.server.core import APIServer
from kubelite.server.inprocess import InProcessTransport
from kubelite.server.resources import Registry
from kubelite.server.storage.memory import MemoryStore

TOKEN = "t"
SHIRTS = "/apis/stable.example.com/v1/namespaces/default/shirts"
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "shirts.stable.example.com"},
    "spec": {"group": "stable.example.com", "scope": "Namespaced",
             "names": {"plural": "shirts", "singular": "shirt", "kind": "Shirt"},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
                               "type": "object", "properties": {"color": {"type": "string"},
                                                                "size": {"type": "string"},
                                                                "stock": {"type": "integer"},
                                                                "sale": {"type": "boolean"}}}}}},
                           "selectableFields": [{"jsonPath": ".spec.color"}, {"jsonPath": ".spec.size"},
                                                {"jsonPath": ".spec.stock"}, {"jsonPath": ".spec.sale"}]}]}}
SHIRTS_DATA = {"example1": {"color": "blue", "size": "S", "stock": 3, "sale": True},
               "example2": {"color": "blue", "size": "M", "stock": 10},
               "example3": {"color": "green", "size": "M", "sale": False},
               "example4": {"size": "L"}}


@pytest.fixture(scope="module")
def client():
    api = APIServer(MemoryStore(), Registry())
    api.bootstrap()
    c = httpx.Client(transport=InProcessTransport(create_app(api, token=TOKEN)), base_url="https://kubelite",
                     headers={"Authorization": f"Bearer {TOKEN}"})
    assert c.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD).status_code == 201
    for name, spec in SHIRTS_DATA.items():
        created = c.post(SHIRTS, json={"apiVersion": "stable.example.com/v1", "kind": "Shirt",
                                       "metadata": {"name": name}, "spec": spec})
        assert created.status_code == 201, created.text
    yield c
    c.close()


def _names(client, selector: str) -> list[str]:
    response = client.get(SHIRTS, params={"fieldSelector": selector})
    assert response.status_code == 200, response.text
    return [item["metadata"]["name"] for item in response.json()["items"]]


@pytest.mark.parametrize("selector, names", [
    ("spec.color=blue", ["example1", "example2"]),
    ("spec.color=blue,spec.size=M", ["example2"]),
    ("spec.color!=blue", ["example3", "example4"]),
    ("spec.color=", ["example4"]),  # absent: the empty string
    ("spec.stock=10", ["example2"]),
    ("spec.sale=true", ["example1"]),
    ("spec.sale=false", ["example3"]),
    ("spec.size==M,metadata.name=example3", ["example3"]),
])
def test_declared_fields_select(client, selector, names):
    assert _names(client, selector) == names


def test_undeclared_field_is_refused(client):
    response = client.get(SHIRTS, params={"fieldSelector": "spec.color=blue,spec.price=1"})
    assert response.status_code == 400
    assert response.json()["message"] == "field label not supported: spec.price"


def test_watch_takes_declared_fields(client):
    with client.stream("GET", SHIRTS, params={"watch": "true", "fieldSelector": "spec.color=green",
                                                "timeoutSeconds": "1"}) as response:
        assert response.status_code == 200
        body = b"".join(response.iter_bytes())
    assert b'"example3"' in body and b'"example1"' not in body
