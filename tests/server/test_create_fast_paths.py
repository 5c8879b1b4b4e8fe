"""A create's shorter ways: what it keeps between writes never hides a write made through another
server on the same store (two APIServers on one SQLite file stand for two `kubelite serve
--workers` processes), and what it builds another way is what the general way builds."""
from __future__ import annotations

import datetime
import json
import pathlib
import random
import threading

import pytest

from kubelite.jsoncopy import clone
from kubelite.server import errors
from kubelite.server.clock import UTC, FakeClock, format_time
from kubelite.server.cluster import Cluster
from kubelite.server.core import DeleteOptions, WriteOptions
from kubelite.server.fieldmanager import FieldManager, manager, managers, typed
from kubelite.server.resources import Registry


@pytest.fixture
def servers(tmp_path):
    path = tmp_path / "shared.db"
    one = Cluster(f"sqlite:{path}", controllers=False)
    two = Cluster(f"sqlite:{path}", controllers=False)
    yield one.api, two.api
    one.close()
    two.close()


def _services(api):
    return api.registry.lookup("", "v1", "services")


def _service(api, name: str, ip: str | None = None) -> dict:
    spec = {"ports": [{"port": 80}]}
    if ip:
        spec["clusterIP"] = ip
    body = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec}
    return api.create(_services(api), "default", body, WriteOptions()).obj


def _refused(api, name: str, ip: str) -> str:
    with pytest.raises(errors.StatusError) as caught:
        _service(api, name, ip)
    assert caught.value.code == 422
    return str(caught.value)


def test_an_address_taken_through_another_server_is_not_handed_out_again(servers):
    one, two = servers
    _service(one, "warm")  # what `one` holds is kept from here on
    _service(two, "theirs", "10.0.0.50")
    assert "provided IP is already allocated" in _refused(one, "mine", "10.0.0.50")
    two.delete(_services(two), "default", "theirs", DeleteOptions())
    assert _service(one, "mine", "10.0.0.50")["spec"]["clusterIP"] == "10.0.0.50"


def test_an_address_this_server_took_is_held_and_freed_through_the_other(servers):
    one, two = servers
    _service(one, "first", "10.0.0.60")
    assert "provided IP is already allocated" in _refused(one, "second", "10.0.0.60")
    assert "provided IP is already allocated" in _refused(two, "second", "10.0.0.60")
    two.delete(_services(two), "default", "first", DeleteOptions())
    assert _service(one, "second", "10.0.0.60")["spec"]["clusterIP"] == "10.0.0.60"


def test_an_address_changed_through_another_server_is_seen(servers):
    one, two = servers
    _service(one, "moved", "10.0.0.70")
    # Written behind the API's back (as another version of the server might): the stored value changes.
    r = _services(two)
    stored = two.get(r, "default", "moved")
    stored["spec"]["clusterIP"], stored["spec"]["clusterIPs"] = "10.0.0.71", ["10.0.0.71"]
    two.store.update(two._key(r, "default", "moved"), two._encode(stored), int(stored["metadata"]["resourceVersion"]))
    assert "provided IP is already allocated" in _refused(one, "next", "10.0.0.71")
    assert _service(one, "next", "10.0.0.70")["spec"]["clusterIP"] == "10.0.0.70"


def test_an_address_this_server_freed_is_handed_out_again(servers):
    one, _ = servers
    _service(one, "first", "10.0.0.80")
    _configmap(one, "default", "between")  # this server's own writes since: nothing read again
    one.delete(_services(one), "default", "first", DeleteOptions())
    assert _service(one, "again", "10.0.0.80")["spec"]["clusterIP"] == "10.0.0.80"


def test_this_servers_own_updates_and_deletes_keep_what_it_read(servers):
    one, _ = servers
    cm = _configmap(one, "default", "first")
    r = one.registry.lookup("", "v1", "configmaps")
    cm["data"] = {"k": "changed"}
    one.update(r, "default", "first", cm, WriteOptions())
    one.delete(r, "default", "first", DeleteOptions())
    epoch, unchanged = one._own.look()
    assert unchanged  # the store's revision is this server's last write's
    _namespace(one, "fresh")  # what a create reads of namespaces changed: read again, in a new epoch
    assert one._own.look()[0] != epoch


def test_random_addresses_avoid_every_held_one(servers):
    one, two = servers
    taken = {_service(two if i % 2 else one, f"s{i}")["spec"]["clusterIP"] for i in range(40)}
    assert len(taken) == 40 and "10.0.0.1" not in taken


def _configmap(api, namespace: str, name: str) -> dict:
    r = api.registry.lookup("", "v1", "configmaps")
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}
    return api.create(r, namespace, body, WriteOptions()).obj


def _namespace(api, name: str) -> None:
    body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
    api.create(api.registry.lookup("", "v1", "namespaces"), "", body, WriteOptions())


def test_a_namespace_deleted_through_another_server_takes_no_more_creates(servers):
    one, two = servers
    _namespace(one, "gone")
    for i in range(3):  # found once, then known while only this server's creates follow
        _configmap(one, "gone", f"c{i}")
    two.delete(two.registry.lookup("", "v1", "namespaces"), "", "gone", DeleteOptions())
    with pytest.raises(errors.StatusError) as caught:
        _configmap(one, "gone", "late")
    assert caught.value.code == 403 and "is being terminated" in str(caught.value)


def test_a_namespace_made_through_another_server_takes_creates_at_once(servers):
    one, two = servers
    _configmap(one, "default", "first")
    with pytest.raises(errors.StatusError) as caught:
        _configmap(one, "later", "c")
    assert caught.value.code == 404
    _namespace(two, "later")
    assert _configmap(one, "later", "c")["metadata"]["namespace"] == "later"


def test_a_webhook_configured_through_another_server_is_called_at_the_next_create(servers):
    one, two = servers
    _configmap(one, "default", "before")
    _configmap(one, "default", "still-before")
    hook = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "refuse"},
            "webhooks": [{"name": "refuse.example.com", "admissionReviewVersions": ["v1"], "sideEffects": "None",
                          "failurePolicy": "Fail", "timeoutSeconds": 5,
                          "clientConfig": {"url": "https://127.0.0.1:1/refuse"},
                          "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                                     "resources": ["configmaps"]}]}]}
    two.create(two.registry.lookup("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations"), "",
               hook, WriteOptions())
    with pytest.raises(errors.StatusError) as caught:
        _configmap(one, "default", "after")
    assert 'failed calling webhook "refuse.example.com"' in str(caught.value)


@pytest.mark.parametrize("fraction", [0.0, 0.25, 0.5, 0.999998, 0.9999994, 0.9999996, 0.99999999])
def test_rfc3339_is_the_second_fromtimestamp_gives(fraction):
    clock = FakeClock(1_700_000_000 + fraction)
    for step in (0.0, 0.0000003, 0.4, 0.3, 0.2999996, 0.0000002, 1.7):
        clock.advance(step)
        expected = format_time(datetime.datetime.fromtimestamp(clock.time(), UTC))
        assert clock.rfc3339() == expected, clock.time()


# -- a create's managedFields: built as a tree, the same as the general way ------------------------

_DATA = pathlib.Path(__file__).resolve().parent.parent / "data"


def _objects(value):
    if isinstance(value, dict):
        if isinstance(value.get("apiVersion"), str) and isinstance(value.get("kind"), str) \
                and isinstance(value.get("metadata"), dict):
            yield value
        for item in value.values():
            yield from _objects(item)
    elif isinstance(value, list):
        for item in value:
            yield from _objects(item)


def _corpus():
    """Built-in objects recorded from kube-apiserver and kept with the tests (a few thousand)."""
    registry = Registry()
    for path in sorted(_DATA.rglob("*.json")):
        if path.stat().st_size > 3_000_000:
            continue
        try:
            document = json.loads(path.read_text())
        except ValueError:
            continue
        for obj in _objects(document):
            group, _, version = obj["apiVersion"].rpartition("/")
            r = registry.by_kind(group, version, obj["kind"])
            if r is not None and (r.group, r.kind) not in manager._SET_AFTER_FIELD_MANAGEMENT:
                yield r, obj


def _shaken(value, rnd: random.Random):
    """`value` with fields dropped, nulled or emptied and list items repeated at random."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            roll = rnd.random()
            if roll < 0.05:
                continue
            out[key] = None if roll < 0.08 else (type(item)() if roll < 0.1 and isinstance(item, (dict, list))
                                                 else _shaken(item, rnd))
        return out
    if isinstance(value, list):
        out = [_shaken(item, rnd) for item in value]
        if out and rnd.random() < 0.2:
            out.append(clone(out[0]))
        return out
    return value


def _general(fields, r, obj: dict):
    try:
        return managers.encode(fields._update_entries(r, manager.zero_object(r), clone(obj), [], "m", ""))
    except typed.ValueMismatch:
        return None


def test_created_managed_fields_are_what_the_general_way_records():
    fields = FieldManager(FakeClock(1_700_000_000))
    rnd = random.Random(16)
    seen = set()
    for r, obj in _corpus():
        for candidate in (obj, _shaken(obj, rnd), _shaken(obj, rnd)):
            candidate = clone(candidate)
            if not isinstance(candidate.get("metadata"), dict):
                candidate["metadata"] = {}  # as the create's body check leaves it
            candidate["metadata"].pop("managedFields", None)
            assert fields._created_entry(r, clone(candidate), "m") == _general(fields, r, candidate), candidate
            seen.add(r.kind)
    assert len(seen) > 20


def test_a_create_records_its_managed_fields_through_the_tree():
    fields = FieldManager(FakeClock(1_700_000_000))
    r = Registry().by_kind("apps", "v1", "Deployment")
    body = {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d", "namespace": "default", "uid": "u", "labels": {"a": "b"}},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"a": "b"}},
                     "template": {"metadata": {"labels": {"a": "b"}},
                                  "spec": {"containers": [{"name": "c", "image": "i"}, {"name": "c", "image": "j"}]}}},
            "status": {"replicas": 3}}
    recorded = fields.record_update(r, None, clone(body), "m")["metadata"]["managedFields"]
    assert recorded == _general(fields, r, body)
    assert "f:status" not in recorded[0]["fieldsV1"] and "f:name" not in recorded[0]["fieldsV1"]["f:metadata"]


def test_a_decoded_body_is_claimed_once_by_the_thread_that_decoded_it():
    from kubelite.server.handlers import decode

    r = Registry().lookup("", "v1", "configmaps")
    body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}).encode()
    value = decode.decode_object(body, "application/json", r)[0]
    assert not decode.claim(dict(value))  # an equal object is not the decoded one
    assert decode.claim(value)
    assert not decode.claim(value)  # once
    other = decode.decode_object(body, "application/json", r)[0]
    claimed = []
    thread = threading.Thread(target=lambda: claimed.append(decode.claim(other)))
    thread.start()
    thread.join()
    assert claimed == [False] and decode.claim(other)


def test_a_body_given_to_create_by_its_caller_is_left_as_it_was(servers):
    one, _ = servers
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kept"}, "data": {"k": "v"}}
    before = clone(body)
    one.create(one.registry.lookup("", "v1", "configmaps"), "default", body, WriteOptions())
    assert body == before
