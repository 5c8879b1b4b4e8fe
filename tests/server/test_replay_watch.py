"""Replay of recorded watch/ streams through the in-process app.

The recorded actions (watch/*.timeline.txt) are performed while a watch is open; the events
received must be the recorded ones (watch/*.events.jsonl): same types in the same order and
the same objects once run-dependent values are normalised. Timeouts are shortened.
"""
from __future__ import annotations

import json
import threading
import time

import pytest

from replay_support import REF, Server, diff, normalise

WATCH = REF / "watch"
NS = "/api/v1/namespaces/rc-watch/configmaps"
MERGE = "application/merge-patch+json"


def _recorded(name: str) -> list[dict]:
    return [json.loads(line) for line in (WATCH / f"{name}.events.jsonl").read_text().splitlines() if line]


def _cm(name, data, labels=None):
    meta = {"name": name, **({"labels": labels} if labels else {})}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}


# name -> (query, actions) with actions as (method, path, body, content type); from the timelines.
CASES = {
    "watch-basic": ("", [
        ("POST", NS, _cm("w1", {"a": "1"}), None),
        ("PATCH", f"{NS}/w1", {"data": {"a": "2"}}, MERGE),
        ("PATCH", f"{NS}/w1", {"metadata": {"labels": {"stage": "two"}}}, MERGE),
        ("PATCH", f"{NS}/w1", {"data": {"a": "2"}}, MERGE),  # no-op: no event
        ("DELETE", f"{NS}/w1", None, None)]),
    "watch-labelselector": ("&labelSelector=stage%3Done", [
        ("POST", NS, _cm("w6", {"a": "1"}, {"stage": "one"}), None),
        ("PATCH", f"{NS}/w6", {"data": {"a": "2"}}, MERGE),
        ("PATCH", f"{NS}/w6", {"metadata": {"labels": {"stage": "two"}}}, MERGE),
        ("PATCH", f"{NS}/w6", {"metadata": {"labels": {"stage": "one"}}}, MERGE),
        ("POST", NS, _cm("w7", {"a": "1"}, {"stage": "two"}), None),
        ("DELETE", f"{NS}/w6", None, None),
        ("DELETE", f"{NS}/w7", None, None)]),
    "watch-fieldselector-name": ("&fieldSelector=metadata.name%3Dw8", [
        ("POST", NS, _cm("w8", {"a": "1"}), None),
        ("POST", NS, _cm("w9", {"a": "1"}), None),
        ("PATCH", f"{NS}/w8", {"data": {"a": "3"}}, MERGE),
        ("DELETE", f"{NS}/w8", None, None),
        ("DELETE", f"{NS}/w9", None, None)]),
}


@pytest.fixture()
def server():
    s = Server()
    s.must("POST", "/api/v1/namespaces", {"metadata": {"name": "rc-watch"}})
    s.must("POST", NS, _cm("pre-existing", {"x": "1"}))
    yield s
    s.close()


def _watch(server, url, actions, headers=None) -> list[dict]:
    events: list[dict] = []

    def read():
        with server.client.stream("GET", url, headers=headers) as response:
            for line in response.iter_lines():
                if line:
                    events.append(json.loads(line))

    reader = threading.Thread(target=read)
    reader.start()
    time.sleep(0.3)
    for method, path, body, ctype in actions:
        server.must(method, path, body, ctype)
    reader.join(timeout=10)
    return events


def _compare(expected: list[dict], got: list[dict]) -> list[str]:
    if [e["type"] for e in expected] != [g["type"] for g in got]:
        return [f"types {[e['type'] for e in got]} != recorded {[e['type'] for e in expected]}"]
    return [p for e, g in zip(expected, got) for p in diff(normalise(e), normalise(g))]


@pytest.mark.parametrize("name", sorted(CASES))
def test_recorded_stream(server, name):
    query, actions = CASES[name]
    rv = server.must("GET", NS)["metadata"]["resourceVersion"]
    got = _watch(server, f"{NS}?watch=1&resourceVersion={rv}&timeoutSeconds=2{query}", actions)
    problems = _compare(_recorded(name), got)
    assert not problems, "\n".join(problems)


def test_no_resource_version_starts_with_the_current_state(server):
    actions = [("POST", NS, _cm("w3", {"a": "1"}), None), ("DELETE", f"{NS}/w3", None, None)]
    for name, query in (("watch-no-resourceversion", ""), ("watch-resourceversion-0", "&resourceVersion=0")):
        actions[0][2]["metadata"]["name"] = actions[1][1].rsplit("/", 1)[1]
        got = _watch(server, f"{NS}?watch=1&timeoutSeconds=2{query}", actions)
        problems = _compare([{**e, "object": {**e["object"], "metadata": {
            **e["object"]["metadata"], "name": e["object"]["metadata"]["name"].replace("w4", "w3")}}}
            for e in _recorded(name)], got)
        assert not problems, (name, problems)


def test_table_watch_sends_column_definitions_once(server):
    actions = [("POST", NS, _cm("w11", {"a": "1"}), None), ("DELETE", f"{NS}/w11", None, None)]
    rv = server.must("GET", NS)["metadata"]["resourceVersion"]
    got = _watch(server, f"{NS}?watch=1&resourceVersion={rv}&timeoutSeconds=2", actions,
                 headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
    recorded = _recorded("watch-table")
    assert [e["type"] for e in got] == ["ADDED", "DELETED"]
    assert [bool(e["object"].get("columnDefinitions")) for e in recorded] == [True] + [False] * (len(recorded) - 1)
    assert [bool(e["object"].get("columnDefinitions")) for e in got] == [True, False]
    assert got[0]["object"]["columnDefinitions"] == recorded[0]["object"]["columnDefinitions"]
    assert "columnDefinitions" in got[1]["object"] and "columnDefinitions" in recorded[1]["object"]
    assert got[1]["object"]["columnDefinitions"] == recorded[1]["object"]["columnDefinitions"]


def test_too_old_resource_version_is_200_with_an_error_event(server):
    server.api.store.compact(server.api.store.current_revision())
    response = server.client.get(f"{NS}?watch=1&resourceVersion=1&timeoutSeconds=2")
    assert response.status_code == 200
    events = [json.loads(line) for line in response.text.splitlines() if line]
    problems = _compare(_recorded("watch-too-old-rv-1"), events)
    assert not problems, problems


@pytest.mark.parametrize("name,exists", [("watch-single-object-path", True),
                                          ("watch-single-object-path-missing", False)])
def test_watch_on_an_object_url_is_a_get(server, name, exists):
    if exists:
        server.must("POST", NS, _cm("w10", {"a": "1"}))
    response = server.client.get(f"{NS}/w10?watch=1&timeoutSeconds=3")
    recorded = json.loads((WATCH / f"{name}.events.jsonl").read_text().splitlines()[0])
    assert response.status_code == (200 if exists else 404)
    assert not diff(normalise(recorded), normalise(response.json()))
