"""The bootstrap policy a new store gets from server/data/bootstrap_policy_stored.json (prepared by
tools/gen_bootstrap_stored.py) is what the create path stores, object for object, in the same
order; a store where RBAC objects, webhooks or admission policies exist goes the create and
reconcile path."""
from __future__ import annotations

import json
import pathlib
import re

import pytest

from tools_support import load_tool

from kubelite.server.auth import bootstrap
from kubelite.server.clock import FakeClock
from kubelite.server.core import APIServer, WriteOptions
from kubelite.server.resources import Registry
from kubelite.server.storage import open_store

PREFIX = f"/registry/{bootstrap.GROUP}/"
UUID4 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")


def test_prepared_file_is_what_the_tool_writes_now():
    tool = load_tool("gen_bootstrap_stored")
    assert tool.OUT.read_text(encoding="utf-8") == tool.render(), \
        "the create path or the policy changed: run python tools/gen_bootstrap_stored.py"


def _policy_on_new_store(path: pathlib.Path, prepared: bool):
    store = open_store(str(path))
    api = APIServer(store, Registry(), clock=FakeClock(1_700_000_000.5))
    api.bootstrap()
    with store.durable_at_end():
        bootstrap.ensure_policy(api, prepared=prepared)
    kvs = sorted(store.range(PREFIX).kvs, key=lambda kv: kv.mod_revision)
    store.close()
    return kvs


def test_prepared_objects_are_what_the_create_path_stores(tmp_path):
    created = _policy_on_new_store(tmp_path / "created.db", prepared=False)
    prepared = _policy_on_new_store(tmp_path / "prepared.db", prepared=True)
    assert [kv.key for kv in prepared] == [kv.key for kv in created]  # the same keys, written in the same order
    assert [kv.mod_revision for kv in prepared] == [kv.mod_revision for kv in created]
    uids = set()
    for mine, theirs in zip(prepared, created):
        meta = json.loads(mine.value)["metadata"]
        assert UUID4.fullmatch(meta["uid"])
        uids.add(meta["uid"])
        assert meta["creationTimestamp"] == meta["managedFields"][0]["time"] == "2023-11-14T22:13:20Z"
        their_uid = json.loads(theirs.value)["metadata"]["uid"]
        assert mine.value.replace(meta["uid"].encode(), their_uid.encode()) == theirs.value  # byte for byte
    assert len(uids) == len(prepared) == len(bootstrap.written())


def _api(tmp_path):
    store = open_store(str(tmp_path / "state.db"))
    api = APIServer(store, Registry(), clock=FakeClock())
    api.bootstrap()
    return store, api


@pytest.fixture
def prepared_writes(monkeypatch):
    calls = []
    real = bootstrap._write_prepared
    monkeypatch.setattr(bootstrap, "_write_prepared", lambda api: (calls.append(api), real(api)))
    return calls


def test_a_new_store_gets_the_prepared_objects(tmp_path, prepared_writes):
    store, api = _api(tmp_path)
    try:
        bootstrap.ensure_policy(api)
        assert len(prepared_writes) == 1
        assert len(store.range(PREFIX).kvs) == len(bootstrap.written())
        bootstrap.ensure_policy(api)  # the next start: nothing new
        assert len(prepared_writes) == 1
    finally:
        store.close()


def test_a_store_with_rbac_objects_is_reconciled(tmp_path, prepared_writes):
    store, api = _api(tmp_path)
    try:
        r = api.registry.lookup(bootstrap.GROUP, "v1", "clusterroles")
        api.create(r, "", {"apiVersion": bootstrap.API_VERSION, "kind": "ClusterRole",
                           "metadata": {"name": "mine"}, "rules": []}, WriteOptions())
        bootstrap.ensure_policy(api)
        assert prepared_writes == []
        assert len(store.range(PREFIX).kvs) == len(bootstrap.written()) + 1
    finally:
        store.close()


def test_a_store_with_a_webhook_goes_the_create_path(tmp_path, prepared_writes):
    store, api = _api(tmp_path)
    try:
        r = api.registry.lookup("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations")
        api.create(r, "", {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
                           "metadata": {"name": "hook"}, "webhooks": [{
                               "name": "hook.example.com", "admissionReviewVersions": ["v1"], "sideEffects": "None",
                               "failurePolicy": "Ignore", "clientConfig": {"url": "https://127.0.0.1:1/hook"},
                               "rules": [{"operations": ["CREATE"], "apiGroups": ["apps"], "apiVersions": ["v1"],
                                          "resources": ["deployments"]}]}]}, WriteOptions())
        bootstrap.ensure_policy(api)
        assert prepared_writes == []
        assert len(store.range(PREFIX).kvs) == len(bootstrap.written())
    finally:
        store.close()
