"""Replay of recorded watch/ streams through the in-process app.

The recorded actions (watch/*.timeline.txt) are performed while a watch is open; the events
received must be the recorded ones (watch/*.events.jsonl): same types in the same order and
the same objects once run-dependent values are normalised. Timeouts are shortened.
"""
from __future__ import annotations

import json
import threading

import pytest

from replay_support import REF, Server, decode_continue, diff, normalise, parse_record

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

    def read(response):
        for line in response.iter_lines():
            if line:
                events.append(json.loads(line))

    # entered here: the watch has answered (it is open) before anything is written
    with server.client.stream("GET", url, headers=headers) as response:
        reader = threading.Thread(target=read, args=(response,))
        reader.start()
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


def test_cluster_wide_watch_sees_labelled_changes_in_any_namespace(server):
    """watch-cluster-wide: /api/v1/configmaps?watch=1 filtered by label, actions in rc-watch."""
    rv = server.must("GET", "/api/v1/configmaps")["metadata"]["resourceVersion"]
    actions = [("POST", NS, _cm("w12", {"a": "1"}, {"rc-watch-all": "yes"}), None),
               ("DELETE", f"{NS}/w12", None, None)]
    got = _watch(server, f"/api/v1/configmaps?watch=1&resourceVersion={rv}"
                         f"&labelSelector=rc-watch-all%3Dyes&timeoutSeconds=2", actions)
    problems = _compare(_recorded("watch-cluster-wide"), got)
    assert not problems, "\n".join(problems)


# -- the gone-* records: requests meeting a compacted revision ----------------------------------

GONE_LIST_RV = "132775"  # the recorded list resourceVersion taken before the two patches
GONE_CONTINUE = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTMyNzg4LCJzdGFydCI6InBhZ2UtMFx1MDAwMCJ9"


@pytest.fixture()
def compacted(server):
    """The recorded steps (etcd-compaction.txt and the gone-* records): pages created, a list
    resourceVersion taken, two patches, a one-item page's continue token taken, one more
    patch, then compaction at the current revision."""
    for i in range(3):
        server.must("POST", NS, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"page-{i}"}})
    list_rv = server.must("GET", NS)["metadata"]["resourceVersion"]
    for x in ("2", "3"):
        server.must("PATCH", f"{NS}/pre-existing", {"data": {"x": x}}, MERGE)
    token = server.must("GET", NS, limit="1")["metadata"]["continue"]
    server.must("PATCH", f"{NS}/pre-existing", {"data": {"x": "4"}}, MERGE)
    server.api.store.compact(server.api.store.current_revision())
    return {GONE_LIST_RV: list_rv, GONE_CONTINUE: token}


@pytest.mark.parametrize("name", ["gone-list-exact-compacted", "gone-list-continue-compacted",
                                  "gone-list-notolderthan-compacted"])
def test_list_meeting_a_compacted_revision(server, compacted, name):
    record = parse_record("watch", name)
    target = record["target"]
    for recorded, ours in compacted.items():
        target = target.replace(recorded, ours)
    assert target != record["target"], "the recorded request should name a revision or token of its run"
    response = server.client.request(record["method"], target, headers=record["headers"])
    assert response.status_code == record["status"], response.text
    expected, got = json.loads(record["response"]), response.json()
    problems = diff(normalise(expected), normalise(got))
    assert not problems, "\n".join(problems)


def test_compacted_continue_gives_an_inconsistent_continuation_token(server, compacted):
    """The fresh token resumes at the same key with resourceVersion -1 (read the current state)."""
    recorded = decode_continue(json.loads(parse_record("watch", "gone-list-continue-compacted")["response"])
                               ["metadata"]["continue"])
    response = server.client.get(f"{NS}?limit=1&continue={compacted[GONE_CONTINUE]}")
    assert response.status_code == 410
    fresh = response.json()["metadata"]["continue"]
    assert decode_continue(fresh) == recorded
    follow = server.client.get(f"{NS}?limit=1&continue={fresh}")
    assert follow.status_code == 200, follow.text
    assert [i["metadata"]["name"] for i in follow.json()["items"]] == ["page-1"]


def test_watch_from_a_compacted_revision_inside_the_cache_window(server, compacted):
    response = server.client.get(f"{NS}?watch=1&resourceVersion={compacted[GONE_LIST_RV]}&timeoutSeconds=1")
    assert response.status_code == 200
    events = [json.loads(line) for line in response.text.splitlines() if line]
    problems = _compare(_recorded("gone-watch-compacted-rv"), events)
    assert not problems, problems
