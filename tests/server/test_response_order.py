"""Response bytes in kube-apiserver's key order, against the recorded GET bodies.

``defaults/NAME.get.raw.json`` holds the exact bytes a real kube-apiserver 1.32.13 answered a GET
with. Built through the same create pipeline as test_defaults and encoded by the server's
response encoder, our body must equal them byte for byte once the values only a live server
makes (uid, resourceVersion, creationTimestamp, managedFields, allocated IPs and ports) are
taken from the recording.
"""
from __future__ import annotations

import copy
import json
import pathlib

import pytest
import yaml

from kubelite.server.handlers.http import encode_json
from test_defaults import _cases, _strip_openshift, run_create  # noqa: E402 (tests/server is on sys.path)

DATA = pathlib.Path(__file__).parent.parent / "data" / "reference" / "apiserver" / "defaults"
VOLATILE_META = ("uid", "resourceVersion", "creationTimestamp", "managedFields")
ALLOCATED_SPEC = ("clusterIP", "clusterIPs", "healthCheckNodePort")


def _without_volatile(body: dict) -> dict:
    for key in VOLATILE_META:
        body.get("metadata", {}).pop(key, None)
    return body


def _take_allocations(got: dict, want: dict) -> None:
    """Server-allocated Service values from the recording, keeping our key positions."""
    if want.get("kind") != "Service":
        return
    spec, mine = want.get("spec", {}), got.get("spec", {})
    for key in ALLOCATED_SPEC:
        if key in mine and key in spec:
            mine[key] = spec[key]
    for ours, theirs in zip(mine.get("ports") or [], spec.get("ports") or []):
        if "nodePort" in ours and "nodePort" in theirs:
            ours["nodePort"] = theirs["nodePort"]


_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}


def _text(body: dict) -> bytes:
    """Compact JSON in the dict's own key order, escaped as Go's encoder does (no reordering)."""
    text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    return "".join(_GO_ESCAPES.get(ch, ch) for ch in text).encode() + b"\n"


def _served(name: str) -> tuple[bytes, bytes]:
    """(our GET body, the recorded one), volatile values removed from both."""
    raw = (DATA / f"{name}.get.raw.json").read_bytes()
    expected = json.loads(raw)
    obj = yaml.safe_load((DATA / f"{name}.in.yaml").read_text())
    if name == "cr-gadget":
        obj["spec"]["false"] = obj["spec"].pop("n")  # kubectl reads YAML 1.1 (see test_defaults)
    ours = json.loads(encode_json(run_create(obj, copy.deepcopy(expected))))
    want = copy.deepcopy(expected)
    _strip_openshift(want)
    _take_allocations(ours, want)
    return _text(_without_volatile(ours)), _text(_without_volatile(want))


@pytest.mark.parametrize("name", _cases())
def test_recorded_bytes_reencode_exactly(name):
    """The comparison below is only as good as its encoder: the recording must survive it."""
    raw = (DATA / f"{name}.get.raw.json").read_bytes()
    assert _text(json.loads(raw)) == raw.rstrip(b"\n") + b"\n"


@pytest.mark.parametrize("name", _cases())
def test_get_body_bytes_match_recording(name):
    ours, want = _served(name)
    assert ours.decode() == want.decode()


# ---- the same objects created and read back through the ASGI app (POST, then GET) ----

# Differences in values, not in key order, that the app does not reproduce yet.
APP_VALUE_GAPS: dict[str, str] = {}
# Created first: later objects refer to them (LimitRanges apply to pods, CRDs serve the CRs).
_FIRST = ("crd-", "limitrange-", "serviceaccount-", "resourcequota-")


@pytest.fixture(scope="module")
def app_client():
    import httpx

    from kubelite.server.app import create_app
    from kubelite.server.core import APIServer
    from kubelite.server.inprocess import InProcessTransport
    from kubelite.server.resources import Registry
    from kubelite.server.storage import open_store

    api = APIServer(open_store("memory://"), Registry())
    api.bootstrap()
    transport = InProcessTransport(create_app(api))
    with httpx.Client(transport=transport, base_url="http://kubelite") as client:
        for namespace in ("rc-defaults", "rc-defaults-limits", "rc-defaults-quota"):
            client.post("/api/v1/namespaces", json={"apiVersion": "v1", "kind": "Namespace",
                                                    "metadata": {"name": namespace}})
        yield client, _create_all(client)
    transport.close()


def _collection_url(client, obj: dict, namespace: str | None) -> str:
    api_version, kind = obj["apiVersion"], obj["kind"]
    base = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
    found = [r for r in client.get(base).json()["resources"] if r["kind"] == kind and "/" not in r["name"]]
    assert found, f"{api_version} {kind} not served"
    scope = f"/namespaces/{namespace}" if found[0]["namespaced"] else ""
    return f"{base}{scope}/{found[0]['name']}"


def _create_all(client) -> dict[str, str]:
    """POST every recorded input (dependencies first): name -> object URL."""
    urls = {}
    for name in sorted(_cases(), key=lambda n: (not n.startswith(_FIRST), n)):
        obj = yaml.safe_load((DATA / f"{name}.in.yaml").read_text())
        if name == "cr-gadget":
            obj["spec"]["false"] = obj["spec"].pop("n")
        expected = json.loads((DATA / f"{name}.get.raw.json").read_text())
        url = _collection_url(client, obj, expected["metadata"].get("namespace"))
        response = client.post(url, json=obj)
        assert response.status_code == 201, (name, response.text)
        urls[name] = f"{url}/{expected['metadata']['name']}"
    return urls


def _as_recorded(body: bytes, expected: dict) -> dict:
    """Our body with the values only a live server makes replaced by the recorded ones."""
    text = body.decode()
    ours = json.loads(text)
    swaps = {ours["metadata"]["uid"]: expected["metadata"]["uid"]}  # job labels/selectors carry it
    for mine, theirs in zip((ours.get("spec") or {}).get("volumes") or [],
                            (expected.get("spec") or {}).get("volumes") or []):
        if mine.get("name", "").startswith("kube-api-access-"):
            swaps[mine["name"]] = theirs["name"]
    for old, new in swaps.items():
        text = text.replace(f'"{old}"', f'"{new}"').replace(f'"{old}', f'"{new}')
    ours = json.loads(text)
    status = ours.get("status")
    if isinstance(status, dict) and "lastPhaseTransitionTime" in status:
        status["lastPhaseTransitionTime"] = expected["status"]["lastPhaseTransitionTime"]
    if ours.get("kind") == "CustomResourceDefinition":
        # the controllers' condition times are the moment of creation
        for mine, theirs in zip(status.get("conditions") or [], expected["status"].get("conditions") or []):
            mine["lastTransitionTime"] = theirs["lastTransitionTime"]
    return ours


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(reason=APP_VALUE_GAPS[n], strict=True)) if n in APP_VALUE_GAPS else n
    for n in _cases()])
def test_app_get_bytes_match_recording(app_client, name):
    client, urls = app_client
    response = client.get(urls[name])
    assert response.status_code == 200
    expected = json.loads((DATA / f"{name}.get.raw.json").read_bytes())
    ours, want = _as_recorded(response.content, expected), copy.deepcopy(expected)
    _strip_openshift(want)
    _take_allocations(ours, want)
    assert _text(_without_volatile(ours)).decode() == _text(_without_volatile(want)).decode()


@pytest.mark.parametrize("name", ["crd-minimal", "crd-rich"])
def test_crd_create_answers_the_status_before_the_controllers_ran(name):
    """POST answers the CRD as created (storedVersions only); a GET right after shows what the
    naming/establishing controllers wrote, at a later resourceVersion."""
    import httpx

    from kubelite.server.app import create_app
    from kubelite.server.core import APIServer
    from kubelite.server.inprocess import InProcessTransport
    from kubelite.server.resources import Registry
    from kubelite.server.storage import open_store

    api = APIServer(open_store("memory://"), Registry())
    api.bootstrap()
    transport = InProcessTransport(create_app(api))
    obj = yaml.safe_load((DATA / f"{name}.in.yaml").read_text())
    created = json.loads((DATA / f"{name}.created.json").read_text())
    got = json.loads((DATA / f"{name}.get.raw.json").read_text())
    url = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    with httpx.Client(transport=transport, base_url="http://kubelite") as client:
        answer = client.post(url, json=obj).json()
        served = client.get(f"{url}/{obj['metadata']['name']}").json()
    transport.close()
    assert answer["status"] == created["status"]
    assert [c["type"] for c in served["status"]["conditions"]] == ["NamesAccepted", "Established"]
    assert served["status"]["acceptedNames"] == got["status"]["acceptedNames"]
    assert int(served["metadata"]["resourceVersion"]) > int(answer["metadata"]["resourceVersion"])
