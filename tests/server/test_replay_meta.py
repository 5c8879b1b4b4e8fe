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

from replay_support import REF, SequenceReplay

FOLDER = "meta"
CASES = json.loads((REF / FOLDER / "cases.json").read_text())


def _seeded() -> SequenceReplay:
    run = SequenceReplay(FOLDER)
    run.server.must("POST", "/api/v1/namespaces", {"metadata": {"name": "rc-meta"}})
    for crd in ("crd-rich", "crd-minimal"):  # widgets (status+scale) and gadgets (neither)
        run.server.must("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                        yaml.safe_load((REF / "defaults" / f"{crd}.in.yaml").read_text()))
    return run


@pytest.fixture(scope="module")
def replay():
    run = _seeded()
    for case in CASES:
        run.run(case["name"])
    yield run
    run.server.close()


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_recorded_response(replay, case):
    problems = replay.problems(case["name"])
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
