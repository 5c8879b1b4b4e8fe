"""Replay of the recorded raw-HTTP server-side apply sequence (reference/apiserver/ssa) against
kubelite: status codes and bodies, managedFields included (times normalised), in order.

Two doors: the in-process app, and HTTPS to `kubelite serve` (the ConfigMap cases 01-26 only:
serve runs its controllers, which write the Deployments of 30-36 as the recording's apiserver,
run without them, did not). The kubectl transcripts of the folder (50-59, client-side ->
server-side migration) are not raw requests; the GETs that follow them are left out
(tests/server/test_ssa_reference.py replays the same migration request by request).
"""
from __future__ import annotations

import json
import ssl

import httpx
import pytest
import yaml

from replay_support import REF, TOKEN, SequenceReplay, diff

FOLDER = "ssa"
CASES = [c for c in json.loads((REF / FOLDER / "cases.json").read_text()) if c["name"] < "50"]
SERVED_CASES = [c for c in CASES if c["name"] < "30"]


def _managed(body) -> list:
    if not isinstance(body, dict):
        return []
    entries = (body.get("metadata") or {}).get("managedFields") or []
    return [{k: ("<time>" if k == "time" else v) for k, v in e.items()} for e in entries]


class _ServedClient:
    """httpx to `kubelite serve`, the recorded bearer token swapped for the served one."""

    def __init__(self, served):
        self.token = served.token
        self.client = httpx.Client(base_url=served.url, verify=ssl.create_default_context(cafile=served.ca),
                                   timeout=30,
                                   headers={"Authorization": f"Bearer {self.token}"})

    def request(self, method, url, content=None, headers=None, params=None):
        headers = {k: (f"Bearer {self.token}" if v == f"Bearer {TOKEN}" else v) for k, v in (headers or {}).items()}
        return self.client.request(method, url, content=content, headers=headers, params=params)

    def close(self):
        self.client.close()


class _Served:
    def __init__(self, served):
        self.client = _ServedClient(served)

    def must(self, method: str, path: str, body=None):
        response = self.client.request(method, path, content=json.dumps(body).encode(),
                                       headers={"Content-Type": "application/json"})
        assert response.status_code < 300, (method, path, response.status_code, response.text)
        return response.json()

    def close(self):
        self.client.close()


def _replay(run: SequenceReplay, cases: list) -> SequenceReplay:
    run.server.must("POST", "/api/v1/namespaces", {"metadata": {"name": "rc-ssa"}})
    run.server.must("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                    yaml.safe_load((REF / "defaults" / "crd-rich.in.yaml").read_text()))
    for case in cases:
        run.run(case["name"])
    return run


@pytest.fixture(scope="module")
def in_process():
    run = _replay(SequenceReplay(FOLDER), CASES)
    yield run
    run.server.close()


@pytest.fixture(scope="module")
def over_https(tmp_path_factory):
    from test_serve_support import serving

    with serving(tmp_path_factory.mktemp("ssa-served")) as served:
        run = _replay(SequenceReplay(FOLDER, server=_Served(served)), SERVED_CASES)
        yield run
        run.server.close()


def _problems(replay, name: str) -> list[str]:
    problems = replay.problems(name)
    outcome = replay.outcomes[name]
    if not problems and outcome["expected"] is not None:
        problems = diff(_managed(outcome["expected"]), _managed(outcome["got"]), ".metadata.managedFields")
    return problems


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_recorded_response(in_process, case):
    problems = _problems(in_process, case["name"])
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("case", SERVED_CASES, ids=[c["name"] for c in SERVED_CASES])
def test_recorded_response_over_https(over_https, case):
    problems = _problems(over_https, case["name"])
    assert not problems, "\n".join(problems)
