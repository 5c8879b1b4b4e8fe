"""Replay of the recorded meta/ sequence: generation, resourceVersion and uid rules, DELETE answers.

All 51 recorded requests are sent in order to one in-process kubelite seeded as the recording
was (namespace rc-meta, the Widget and Gadget CRDs). Recorded uids and resourceVersions in
request bodies are mapped to ours first. Each response must have the recorded status and the
recorded body once run-dependent values are normalised; resourceVersions are compared
relatively (equal where the recording's are equal — the no-op writes —, increasing otherwise).
"""
from __future__ import annotations

import json

import pytest
import yaml

from replay_support import REF, RVOrder, Server, diff, normalise, object_rvs, parse_record, without_openshift

FOLDER = "meta"
CASES = json.loads((REF / FOLDER / "cases.json").read_text())


class MetaReplay:
    def __init__(self):
        self.server = Server()
        self.rvs = RVOrder()
        self.uids: dict[str, str] = {}  # recorded -> ours
        self.max_rv = 0
        self.outcomes: dict[str, dict] = {}
        self.server.must("POST", "/api/v1/namespaces", {"metadata": {"name": "rc-meta"}})
        for crd in ("crd-rich", "crd-minimal"):  # widgets (status+scale) and gadgets (neither)
            self.server.must("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                             yaml.safe_load((REF / "defaults" / f"{crd}.in.yaml").read_text()))

    def _map_request(self, body: bytes) -> bytes:
        if not body.startswith(b"{"):
            return body
        obj = json.loads(body)
        meta = obj.get("metadata")
        if isinstance(meta, dict):
            # kubelite keeps no managedFields before server-side apply: a client's copy is not sent.
            meta.pop("managedFields", None)
            if meta.get("uid") in self.uids:
                meta["uid"] = self.uids[meta["uid"]]
            if meta.get("resourceVersion") and self.rvs.ours(meta["resourceVersion"]) is not None:
                meta["resourceVersion"] = str(self.rvs.ours(meta["resourceVersion"]))
        return json.dumps(obj).encode()

    def run(self, case: dict) -> dict:
        record = parse_record(FOLDER, case["name"])
        response = self.server.client.request(record["method"], record["target"],
                                              content=self._map_request(record["body"]) or None,
                                              headers=record["headers"])
        expected = json.loads(record["response"]) if record["response"].startswith(b"{") else None
        got = response.json() if response.content.startswith(b"{") else None
        outcome = {"status": (record["status"], response.status_code), "expected": expected, "got": got}
        if expected is not None and got is not None:
            self._learn_ids(expected, got)
        if got is not None and isinstance(got.get("items"), list):
            outcome["list_rv"] = int(got["metadata"]["resourceVersion"])
            outcome["max_rv_before"] = self.max_rv
        for _, rv in object_rvs(got):
            self.max_rv = max(self.max_rv, int(rv))
        return outcome

    def _learn_ids(self, expected: dict, got: dict) -> None:
        for (_, theirs), (_, ours) in zip(object_rvs(expected), object_rvs(got)):
            self.rvs.add(theirs, ours)
        for where in ("metadata", "details"):
            theirs = (expected.get(where) or {}).get("uid")
            ours = (got.get(where) or {}).get("uid")
            if theirs and ours:
                self.uids[theirs] = ours


@pytest.fixture(scope="module")
def replay():
    run = MetaReplay()
    for case in CASES:
        run.outcomes[case["name"]] = run.run(case)
    yield run
    run.server.close()


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_recorded_response(replay, case):
    outcome = replay.outcomes[case["name"]]
    recorded_status, status = outcome["status"]
    assert status == recorded_status, outcome["got"]
    if outcome["expected"] is not None:
        problems = diff(normalise(without_openshift(outcome["expected"])), normalise(outcome["got"]))
        assert not problems, "\n".join(problems)


def test_resource_versions_keep_the_recorded_relations(replay):
    # No-op writes (d09-d11, w05, w06) share their predecessor's recorded RV: ours must too.
    replay.rvs.check()
    assert len(replay.rvs.pairs) >= 30


def test_noop_writes_keep_resource_version(replay):
    def rv(name):
        return replay.outcomes[name]["got"]["metadata"]["resourceVersion"]

    assert rv("d08-get") == rv("d09-noop-patch") == rv("d10-noop-put") == rv("d11-put-generation-override")
    assert rv("w04-status") == rv("w05-status-via-main") == rv("w06-toplevel-field")
    assert int(rv("d12-patch-spec-paused")) > int(rv("d11-put-generation-override"))


def test_list_resource_version_is_the_global_revision(replay):
    for name in ("c04-list-after", "r10-list-secrets", "r11-list-empty", "r12-list-cluster-namespaces"):
        outcome = replay.outcomes[name]
        assert outcome["list_rv"] >= outcome["max_rv_before"], name


def test_recreated_object_has_a_new_uid(replay):
    first = replay.outcomes["d01-create"]["got"]["metadata"]["uid"]
    again = replay.outcomes["d21-recreate"]["got"]["metadata"]["uid"]
    assert first != again
