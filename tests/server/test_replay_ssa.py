"""Replay of the recorded raw-HTTP server-side apply sequence (reference/apiserver/ssa) against an
in-process kubelite: status codes and bodies, managedFields included (times normalised), in order.

The kubectl transcripts of that folder (50-59, client-side -> server-side migration) are not raw
requests; the GETs that follow them are left out here (tests/server/test_ssa_reference.py
replays the same migration from the controllers corpus, request by request).
"""
from __future__ import annotations

import json

import pytest
import yaml

from replay_support import REF, SequenceReplay, diff

FOLDER = "ssa"
CASES = [c for c in json.loads((REF / FOLDER / "cases.json").read_text()) if c["name"] < "50"]


def _managed(body) -> list:
    if not isinstance(body, dict):
        return []
    entries = (body.get("metadata") or {}).get("managedFields") or []
    return [{k: ("<time>" if k == "time" else v) for k, v in e.items()} for e in entries]


@pytest.fixture(scope="module")
def replay():
    run = SequenceReplay(FOLDER)
    run.server.must("POST", "/api/v1/namespaces", {"metadata": {"name": "rc-ssa"}})
    run.server.must("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                    yaml.safe_load((REF / "defaults" / "crd-rich.in.yaml").read_text()))
    for case in CASES:
        run.run(case["name"])
    yield run
    run.server.close()


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_recorded_response(replay, case):
    problems = replay.problems(case["name"])
    outcome = replay.outcomes[case["name"]]
    if not problems and outcome["expected"] is not None:
        problems = diff(_managed(outcome["expected"]), _managed(outcome["got"]), ".metadata.managedFields")
    assert not problems, "\n".join(problems)
